-- q1, point lookup. The user with a unique user/email, and its name.
-- Columns e, name.
SELECT u.e AS e, n.v AS name
FROM cur_text u
JOIN cur_text n
  ON n.e = u.e
 AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email')
  AND u.v = :email
