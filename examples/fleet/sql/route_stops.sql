-- The stops of a route (inverse of stop/route), in order.
-- Columns stop, seq, parcels.
SELECT r.e AS stop, s.v AS seq, p.v AS parcels
FROM cur_int r
JOIN cur_int s ON s.e = r.e AND s.a = (SELECT a FROM attrs WHERE ident = 'stop/seq')
JOIN cur_int p ON p.e = r.e AND p.a = (SELECT a FROM attrs WHERE ident = 'stop/parcels')
WHERE r.a = (SELECT a FROM attrs WHERE ident = 'stop/route')
  AND r.v = :route
ORDER BY s.v
