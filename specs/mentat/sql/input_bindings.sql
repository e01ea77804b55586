-- input_bindings (default text, SQLite's json_each; PostgreSQL and DuckDB
-- override it). The names for a collection of emails, bound as
-- one JSON array of strings. Emails without a user give no row; repeated
-- emails give one row (IN, a set). With AVET each email is one index
-- probe; without it the user/email attribute is scanned once.
-- Columns email, name.
SELECT u.v AS email, n.v AS name
FROM cur_text u
JOIN cur_text n
  ON n.e = u.e
 AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email')
  AND u.v IN (SELECT value FROM json_each(:emails))
ORDER BY email
