-- input_bindings, DuckDB. The names for a collection of emails, bound as
-- one JSON array of strings (a VARCHAR parameter). The parameter is bound
-- before planning, so v IN (unnest of the list) becomes an IN filter that
-- the ART index on v serves; the MATERIALIZED CTE keeps the attribute
-- filter from disabling it (see q1.sql). Emails without a user give no
-- row; repeated emails give one row.
-- Columns email, name.
WITH u AS MATERIALIZED (
  SELECT e, a, v
  FROM cur_text
  WHERE v IN (SELECT unnest(CAST(CAST(:emails AS JSON) AS VARCHAR[])))
)
SELECT u.v AS email, n.v AS name
FROM u
JOIN cur_text n
  ON n.e = u.e
 AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email')
ORDER BY email
