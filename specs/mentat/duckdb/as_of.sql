-- as_of, DuckDB. As sql/as_of.sql, with the email's history read in a
-- MATERIALIZED CTE so that the ART index on log_text (v) serves it (see
-- q1.sql). The other steps scan the log with join filters; its tx order
-- lets zone maps skip row groups after t.
-- Columns issue, title, state.
WITH p AS (
  SELECT CAST(:t AS BIGINT) AS t
),
h AS MATERIALIZED (
  SELECT e, a, tx, added FROM log_text WHERE v = :email
),
u AS (
  SELECT h.e
  FROM h
  WHERE h.a = (SELECT a FROM attrs WHERE ident = 'user/email')
    AND h.tx <= (SELECT t FROM p)
  GROUP BY h.e
  HAVING MAX(CASE WHEN h.added THEN h.tx END)
      >= COALESCE(MAX(CASE WHEN NOT h.added THEN h.tx END), 0)
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
