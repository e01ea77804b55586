-- q1, DuckDB. As sql/q1.sql, shaped for DuckDB's planner. DuckDB uses an
-- ART index only when the scan filters on the indexed column alone (a
-- second filter, even a join filter on a, turns it into a full scan), so
-- each table access is a MATERIALIZED CTE filtering one column, and the
-- attribute filters apply afterwards.
-- u   cur_text rows with that value (ART on v, avet.sql)
-- n   the text attributes of those entities (ART on e, post_load.sql)
-- Columns e, name.
WITH u AS MATERIALIZED (
  SELECT e, a FROM cur_text WHERE v = :email
),
n AS MATERIALIZED (
  SELECT e, a, v FROM cur_text WHERE e IN (SELECT e FROM u)
)
SELECT u.e AS e, n.v AS name
FROM u
JOIN n
  ON n.e = u.e
 AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email')
