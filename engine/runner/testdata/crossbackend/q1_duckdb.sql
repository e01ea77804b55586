-- q1 for DuckDB, wrong on purpose: every third user's name differs.
SELECT u.e AS e, CASE WHEN u.e % 3 = 0 THEN n.v || ' (duckdb)' ELSE n.v END AS name
FROM cur_text u
JOIN cur_text n
  ON n.e = u.e
 AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email')
  AND u.v = :email
