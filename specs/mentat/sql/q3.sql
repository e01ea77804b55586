-- q3, aggregate. Number of issues per current issue/state.
-- Columns state, n.
SELECT v AS state, COUNT(*) AS n
FROM cur_text
WHERE a = (SELECT a FROM attrs WHERE ident = 'issue/state')
GROUP BY v
ORDER BY state
