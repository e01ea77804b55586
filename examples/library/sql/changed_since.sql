-- changed_since. The distinct loans with a loan/returned assert in a tx
-- after :t (the history's returns, and any loan created after t).
-- Columns loan. Unordered.
SELECT DISTINCT e AS loan
FROM log_int
WHERE a = (SELECT a FROM attrs WHERE ident = 'loan/returned')
  AND tx > :t
  AND added
