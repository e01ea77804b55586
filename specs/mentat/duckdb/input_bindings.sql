-- input_bindings, DuckDB. The names for a collection of emails, bound as
-- one JSON array of strings (a VARCHAR parameter), with one MATERIALIZED
-- CTE per table access (see q1.sql). The list becomes an IN filter that
-- the ART index on v serves when it has at most dynamic_or_filter_threshold
-- values (default 50); for the 100-email scenario set that DuckDB option
-- to 1000 in the backend's settings, or the lookup is a scan of cur_text.
-- Emails without a user give no row; repeated emails give one row.
-- Columns email, name.
WITH u AS MATERIALIZED (
  SELECT e, a, v
  FROM cur_text
  WHERE v IN (SELECT unnest(CAST(CAST(:emails AS JSON) AS VARCHAR[])))
),
n AS MATERIALIZED (
  SELECT e, a, v FROM cur_text WHERE e IN (SELECT e FROM u)
)
SELECT u.v AS email, n.v AS name
FROM u
JOIN n
  ON n.e = u.e
 AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email')
ORDER BY email
