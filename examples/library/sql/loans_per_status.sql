-- loans_per_status, aggregate. Number of loans per current loan/returned
-- (a boolean, stored 0/1 in cur_int).
-- Columns returned, n.
SELECT v AS returned, COUNT(*) AS n
FROM cur_int
WHERE a = (SELECT a FROM attrs WHERE ident = 'loan/returned')
GROUP BY v
ORDER BY returned
