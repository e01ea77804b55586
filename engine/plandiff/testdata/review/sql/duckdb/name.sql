-- The name of the user with an email; the email lookup first.
WITH u AS MATERIALIZED (
  SELECT e FROM log_text
  WHERE a = (SELECT a FROM attrs WHERE ident = 'user/email') AND v = :email
)
SELECT n.v AS name
FROM u
JOIN log_text n ON n.e = u.e AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
