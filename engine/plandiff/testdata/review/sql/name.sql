-- The name of the user with an email.
SELECT n.v AS name
FROM log_text u
JOIN log_text n ON n.e = u.e AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email')
  AND u.v = :email
