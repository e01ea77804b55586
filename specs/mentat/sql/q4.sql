-- q4, predicate scan. Issues currently open with issue/priority >= 4.
-- Written as a set intersection (the Datalog answer is a set), which
-- SQLite evaluates as two index range scans instead of one index probe
-- per open issue.
-- Columns issue. Unordered (the result is large).
SELECT e AS issue
FROM cur_text
WHERE a = (SELECT a FROM attrs WHERE ident = 'issue/state')
  AND v = 'open'
INTERSECT
SELECT e
FROM cur_int
WHERE a = (SELECT a FROM attrs WHERE ident = 'issue/priority')
  AND v >= 4
