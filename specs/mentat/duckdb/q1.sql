-- q1, DuckDB. As sql/q1.sql, with the email lookup in a MATERIALIZED CTE.
-- A scan with a filter on a and on v never uses the ART index on v.
-- Columns e, name.
WITH u AS MATERIALIZED (
  SELECT e, a FROM cur_text WHERE v = :email
)
SELECT u.e AS e, n.v AS name
FROM u
JOIN cur_text n
  ON n.e = u.e
 AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email')
