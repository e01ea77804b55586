-- read, DuckDB: as sql/read.sql, shaped for DuckDB's planner, which uses
-- an ART index only for a scan filtering the indexed column alone (see
-- specs/mentat/duckdb/q1.sql): the key by its value (ART on v), then the
-- record's fields by entity (ART on e). Columns field, value.
WITH k AS MATERIALIZED (
  SELECT e, a FROM cur_text WHERE v = :key
),
f AS MATERIALIZED (
  SELECT e, a, v FROM cur_text
  WHERE e IN (SELECT e FROM k WHERE a = (SELECT a FROM attrs WHERE ident = 'ycsb/key'))
)
SELECT x.ident AS field, f.v AS value
FROM f
JOIN attrs x ON x.a = f.a
