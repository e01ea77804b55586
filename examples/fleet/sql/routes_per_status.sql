-- Routes per current status. Columns status, n.
SELECT v AS status, COUNT(*) AS n
FROM cur_text
WHERE a = (SELECT a FROM attrs WHERE ident = 'route/status')
GROUP BY v
