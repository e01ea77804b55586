-- Average van capacity per depot city. Columns city, avg_capacity.
SELECT city.v AS city, AVG(CAST(c.v AS DOUBLE PRECISION)) AS avg_capacity
FROM cur_int c
JOIN cur_int dep  ON dep.e = c.e AND dep.a = (SELECT a FROM attrs WHERE ident = 'van/depot')
JOIN cur_text city ON city.e = dep.v AND city.a = (SELECT a FROM attrs WHERE ident = 'depot/city')
WHERE c.a = (SELECT a FROM attrs WHERE ident = 'van/capacity')
GROUP BY city.v
