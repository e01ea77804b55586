-- Stops in the north or east zone with at least :min parcels.
-- Columns stop.
SELECT z.e AS stop
FROM cur_text z
JOIN cur_int p ON p.e = z.e AND p.a = (SELECT a FROM attrs WHERE ident = 'stop/parcels')
WHERE z.a = (SELECT a FROM attrs WHERE ident = 'stop/zone')
  AND z.v IN ('north', 'east')
  AND p.v >= :min
