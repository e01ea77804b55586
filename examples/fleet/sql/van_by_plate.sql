-- A van by its unique plate, with its depot's code (van -> depot ref).
-- Columns van, depot_code, capacity.
SELECT p.e AS van, dc.v AS depot_code, c.v AS capacity
FROM cur_text p
JOIN cur_int d  ON d.e = p.e AND d.a = (SELECT a FROM attrs WHERE ident = 'van/depot')
JOIN cur_text dc ON dc.e = d.v AND dc.a = (SELECT a FROM attrs WHERE ident = 'depot/code')
JOIN cur_int c  ON c.e = p.e AND c.a = (SELECT a FROM attrs WHERE ident = 'van/capacity')
WHERE p.a = (SELECT a FROM attrs WHERE ident = 'van/plate')
  AND p.v = :plate
