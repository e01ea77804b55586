-- q2, DuckDB. As sql/q2.sql, with the email lookup in a MATERIALIZED CTE
-- (see q1.sql). The issues referencing the user are a scan of the
-- issue/assignee rows of cur_int (zone maps on a) with the user's e as a
-- join filter.
-- Columns issue, title, state.
WITH u AS MATERIALIZED (
  SELECT e, a FROM cur_text WHERE v = :email
)
SELECT i.e AS issue, t.v AS title, s.v AS state
FROM u
JOIN cur_int i
  ON i.v = u.e
 AND i.a = (SELECT a FROM attrs WHERE ident = 'issue/assignee')
JOIN cur_text t
  ON t.e = i.e
 AND t.a = (SELECT a FROM attrs WHERE ident = 'issue/title')
JOIN cur_text s
  ON s.e = i.e
 AND s.a = (SELECT a FROM attrs WHERE ident = 'issue/state')
WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email')
ORDER BY issue
