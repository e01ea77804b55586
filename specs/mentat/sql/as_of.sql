-- as_of. q2 as of tx t, read from the log (datoms with tx <= t only).
-- A datom (e, a, v) holds as of t when its latest assert with tx <= t is
-- not older than its latest retract with tx <= t.
-- u   the user holding the email as of t (log AVET (a, v, tx))
-- i   the issues whose issue/assignee is u as of t (log AVET (a, v, tx))
-- ts  their title and state as of t (log (e, a, tx)), one row per issue
--     with both (the inner join of q2)
-- Columns issue, title, state.
WITH p AS (
  SELECT CAST(:email AS TEXT) AS email, CAST(:t AS BIGINT) AS t
),
u AS (
  SELECT l.e
  FROM log_text l
  WHERE l.a = (SELECT a FROM attrs WHERE ident = 'user/email')
    AND l.v = (SELECT email FROM p)
    AND l.tx <= (SELECT t FROM p)
  GROUP BY l.e
  HAVING MAX(CASE WHEN l.added THEN l.tx END)
      >= COALESCE(MAX(CASE WHEN NOT l.added THEN l.tx END), 0)
),
i AS (
  SELECT l.e
  FROM log_int l
  WHERE l.a = (SELECT a FROM attrs WHERE ident = 'issue/assignee')
    AND l.v IN (SELECT e FROM u)
    AND l.tx <= (SELECT t FROM p)
  GROUP BY l.e, l.v
  HAVING MAX(CASE WHEN l.added THEN l.tx END)
      >= COALESCE(MAX(CASE WHEN NOT l.added THEN l.tx END), 0)
),
ts AS (
  SELECT l.e, l.a, l.v
  FROM log_text l
  WHERE l.e IN (SELECT e FROM i)
    AND l.a IN ((SELECT a FROM attrs WHERE ident = 'issue/title'),
                (SELECT a FROM attrs WHERE ident = 'issue/state'))
    AND l.tx <= (SELECT t FROM p)
  GROUP BY l.e, l.a, l.v
  HAVING MAX(CASE WHEN l.added THEN l.tx END)
      >= COALESCE(MAX(CASE WHEN NOT l.added THEN l.tx END), 0)
)
SELECT e AS issue,
       MAX(CASE WHEN a = (SELECT a FROM attrs WHERE ident = 'issue/title')
                THEN v END) AS title,
       MAX(CASE WHEN a = (SELECT a FROM attrs WHERE ident = 'issue/state')
                THEN v END) AS state
FROM ts
GROUP BY e
HAVING COUNT(DISTINCT a) = 2
ORDER BY issue
