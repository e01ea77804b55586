-- A route by its unique code: status, day of its van, planned end,
-- last update and the van's plate. Columns route, status, day,
-- planned_end, updated, plate.
SELECT c.e AS route, st.v AS status, d.v AS day, pe.v AS planned_end, up.v AS updated, pl.v AS plate
FROM cur_text c
JOIN cur_text st ON st.e = c.e AND st.a = (SELECT a FROM attrs WHERE ident = 'route/status')
JOIN cur_int d   ON d.e = c.e  AND d.a  = (SELECT a FROM attrs WHERE ident = 'route/day')
JOIN cur_int pe  ON pe.e = c.e AND pe.a = (SELECT a FROM attrs WHERE ident = 'route/planned_end')
JOIN cur_int up  ON up.e = c.e AND up.a = (SELECT a FROM attrs WHERE ident = 'route/updated')
JOIN cur_int van ON van.e = c.e AND van.a = (SELECT a FROM attrs WHERE ident = 'route/van')
JOIN cur_text pl ON pl.e = van.v AND pl.a = (SELECT a FROM attrs WHERE ident = 'van/plate')
WHERE c.a = (SELECT a FROM attrs WHERE ident = 'route/code')
  AND c.v = :code
