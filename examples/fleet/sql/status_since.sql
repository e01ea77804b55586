-- Routes whose status was asserted in a transaction after :t.
-- Columns route.
SELECT DISTINCT e AS route
FROM log_text
WHERE a = (SELECT a FROM attrs WHERE ident = 'route/status')
  AND tx > :t
  AND added
