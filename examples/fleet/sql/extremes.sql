-- The earliest route start and the latest planned end.
-- Columns first_start, last_end.
SELECT (SELECT MIN(v) FROM cur_int WHERE a = (SELECT a FROM attrs WHERE ident = 'route/starts')) AS first_start,
       (SELECT MAX(v) FROM cur_int WHERE a = (SELECT a FROM attrs WHERE ident = 'route/planned_end')) AS last_end
