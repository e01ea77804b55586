-- loans_as_of. member_loans as of tx :t, read from the transaction log
-- (datoms with tx <= t only), with book and returned. A datom (e, a, v)
-- holds as of t when its latest assert with tx <= t is not older than its
-- latest retract with tx <= t.
-- m    the member holding the card as of t (log AVET (a, v, tx))
-- ln   the loans whose loan/member is m as of t (log AVET (a, v, tx))
-- av   their book and returned values as of t (log (e, a, tx)); a
--      returned that the history changed has two versions, only one of
--      which holds at t
-- Columns loan, book, returned.
WITH p AS (
  SELECT CAST(:card AS TEXT) AS card, CAST(:t AS BIGINT) AS t
),
m AS (
  SELECT l.e
  FROM log_text l
  WHERE l.a = (SELECT a FROM attrs WHERE ident = 'member/card')
    AND l.v = (SELECT card FROM p)
    AND l.tx <= (SELECT t FROM p)
  GROUP BY l.e
  HAVING MAX(CASE WHEN l.added THEN l.tx END)
      >= COALESCE(MAX(CASE WHEN NOT l.added THEN l.tx END), 0)
),
ln AS (
  SELECT l.e
  FROM log_int l
  WHERE l.a = (SELECT a FROM attrs WHERE ident = 'loan/member')
    AND l.v IN (SELECT e FROM m)
    AND l.tx <= (SELECT t FROM p)
  GROUP BY l.e, l.v
  HAVING MAX(CASE WHEN l.added THEN l.tx END)
      >= COALESCE(MAX(CASE WHEN NOT l.added THEN l.tx END), 0)
),
av AS (
  SELECT l.e, l.a, l.v
  FROM log_int l
  WHERE l.e IN (SELECT e FROM ln)
    AND l.a IN ((SELECT a FROM attrs WHERE ident = 'loan/book'),
                (SELECT a FROM attrs WHERE ident = 'loan/returned'))
    AND l.tx <= (SELECT t FROM p)
  GROUP BY l.e, l.a, l.v
  HAVING MAX(CASE WHEN l.added THEN l.tx END)
      >= COALESCE(MAX(CASE WHEN NOT l.added THEN l.tx END), 0)
)
SELECT e AS loan,
       MAX(CASE WHEN a = (SELECT a FROM attrs WHERE ident = 'loan/book')
                THEN v END) AS book,
       MAX(CASE WHEN a = (SELECT a FROM attrs WHERE ident = 'loan/returned')
                THEN v END) AS returned
FROM av
GROUP BY e
HAVING COUNT(DISTINCT a) = 2
ORDER BY loan
