-- q2, ref traversal. email -> user -> the issues whose issue/assignee is
-- that user, with their current title and state.
-- Columns issue, title, state.
SELECT i.e AS issue, t.v AS title, s.v AS state
FROM cur_text u
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
  AND u.v = :email
ORDER BY issue
