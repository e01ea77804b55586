-- as_of, DuckDB. As sql/as_of.sql, with one MATERIALIZED CTE per log
-- access (see q1.sql and q2.sql), so the ART indexes on log_text (v) and
-- log_int (v) (avet.sql) and on log_text (e) (post_load.sql) serve them;
-- the attribute and tx <= t filters apply afterwards.
-- h   the email's history (ART on v); u the user holding it as of t
-- r   log_int datoms referring to u (ART on v); i the issues assigned to
--     u as of t
-- d   the text history of those issues (ART on e); ts their title and
--     state as of t
-- Columns issue, title, state.
WITH p AS (
  SELECT CAST(:t AS BIGINT) AS t
),
h AS MATERIALIZED (
  SELECT e, a, tx, added FROM log_text WHERE v = :email
),
u AS MATERIALIZED (
  SELECT h.e
  FROM h
  WHERE h.a = (SELECT a FROM attrs WHERE ident = 'user/email')
    AND h.tx <= (SELECT t FROM p)
  GROUP BY h.e
  HAVING MAX(CASE WHEN h.added THEN h.tx END)
      >= COALESCE(MAX(CASE WHEN NOT h.added THEN h.tx END), 0)
),
r AS MATERIALIZED (
  SELECT e, a, v, tx, added FROM log_int WHERE v IN (SELECT e FROM u)
),
i AS MATERIALIZED (
  SELECT r.e
  FROM r
  WHERE r.a = (SELECT a FROM attrs WHERE ident = 'issue/assignee')
    AND r.tx <= (SELECT t FROM p)
  GROUP BY r.e, r.v
  HAVING MAX(CASE WHEN r.added THEN r.tx END)
      >= COALESCE(MAX(CASE WHEN NOT r.added THEN r.tx END), 0)
),
d AS MATERIALIZED (
  SELECT e, a, v, tx, added FROM log_text WHERE e IN (SELECT e FROM i)
),
ts AS (
  SELECT d.e, d.a, d.v
  FROM d
  WHERE d.a IN ((SELECT a FROM attrs WHERE ident = 'issue/title'),
                (SELECT a FROM attrs WHERE ident = 'issue/state'))
    AND d.tx <= (SELECT t FROM p)
  GROUP BY d.e, d.a, d.v
  HAVING MAX(CASE WHEN d.added THEN d.tx END)
      >= COALESCE(MAX(CASE WHEN NOT d.added THEN d.tx END), 0)
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
