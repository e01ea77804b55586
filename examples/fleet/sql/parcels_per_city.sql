-- Parcels per depot city: stop -> route -> van -> depot, three ref hops.
-- Columns city, parcels.
SELECT city.v AS city, SUM(p.v) AS parcels
FROM cur_int p
JOIN cur_int r    ON r.e = p.e AND r.a = (SELECT a FROM attrs WHERE ident = 'stop/route')
JOIN cur_int van  ON van.e = r.v AND van.a = (SELECT a FROM attrs WHERE ident = 'route/van')
JOIN cur_int dep  ON dep.e = van.v AND dep.a = (SELECT a FROM attrs WHERE ident = 'van/depot')
JOIN cur_text city ON city.e = dep.v AND city.a = (SELECT a FROM attrs WHERE ident = 'depot/city')
WHERE p.a = (SELECT a FROM attrs WHERE ident = 'stop/parcels')
GROUP BY city.v
