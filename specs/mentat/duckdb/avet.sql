-- AVET, DuckDB. ART indexes on v alone. DuckDB uses an ART index only for
-- a scan that filters the indexed column alone (v = constant, or an IN
-- filter a join hands down), never a composite (a, v) one; the queries
-- (duckdb/q1, q2, as_of, input_bindings) look values up in MATERIALIZED
-- CTEs for that reason and filter the attribute afterwards.
-- cur_text (v)   lookups by email (q1, q2, input_bindings)
-- cur_int (v)    issues referring to a user (q2)
-- log_text (v), log_int (v)   the same two lookups as of a tx (as_of)
CREATE INDEX IF NOT EXISTS cur_text_avet ON cur_text (v);
CREATE INDEX IF NOT EXISTS cur_int_avet  ON cur_int  (v);
CREATE INDEX IF NOT EXISTS log_text_avt  ON log_text (v);
CREATE INDEX IF NOT EXISTS log_int_avt   ON log_int  (v);
CHECKPOINT;
