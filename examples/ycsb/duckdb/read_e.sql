-- read_e, DuckDB: as sql/read_e.sql, the record by its entity alone so
-- that the ART index on e serves it. Columns field, value.
WITH f AS MATERIALIZED (
  SELECT a, v FROM cur_text WHERE e = CAST(:e AS BIGINT)
)
SELECT x.ident AS field, f.v AS value
FROM f
JOIN attrs x ON x.a = f.a
