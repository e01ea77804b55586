-- q4, PostgreSQL. Issues currently open with issue/priority >= 4, as a
-- join. PostgreSQL hashes one index range and probes it with the other,
-- about 30% faster than the INTERSECT of sql/q4.sql (HashSetOp over both
-- ranges); SQLite is the other way round.
-- Columns issue. Unordered (the result is large).
SELECT s.e AS issue
FROM cur_text s
JOIN cur_int p
  ON p.e = s.e
 AND p.a = (SELECT a FROM attrs WHERE ident = 'issue/priority')
 AND p.v >= 4
WHERE s.a = (SELECT a FROM attrs WHERE ident = 'issue/state')
  AND s.v = 'open'
