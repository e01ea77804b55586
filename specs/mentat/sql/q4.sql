-- q4, predicate scan. Issues currently open with issue/priority >= 4.
-- Written as a set intersection (the Datalog answer is a set). SQLite
-- merges two e-ordered covering index scans (AVET for open, AEVT for
-- priority) instead of probing once per open issue, about 30% less CPU
-- than the join; DuckDB runs both forms alike; PostgreSQL overrides it
-- with the join.
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
