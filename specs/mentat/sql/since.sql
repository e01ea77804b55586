-- since. The distinct issues with an issue/state assert in a tx after t.
-- Columns issue. Unordered.
SELECT DISTINCT e AS issue
FROM log_text
WHERE a = (SELECT a FROM attrs WHERE ident = 'issue/state')
  AND tx > :t
  AND added
