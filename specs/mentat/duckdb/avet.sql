-- AVET, DuckDB. ART indexes on v alone - DuckDB's planner uses an ART
-- index only for a constant filter on its single column (v = constant,
-- v IN list), never a composite (a, v) one and never for a join. The
-- queries that use them (duckdb/q1, q2, as_of, input_bindings) look the
-- value up in a MATERIALIZED CTE so that the attribute filter is applied
-- after the lookup instead of disabling it.
-- Only text values - the ref lookups (q2's issues of a user, as_of's
-- assignee) join on a value known only at run time, which an ART index
-- cannot serve in DuckDB, so an index on cur_int/log_int (v) would cost
-- load time for nothing.
CREATE INDEX IF NOT EXISTS cur_text_avet ON cur_text (v);
CREATE INDEX IF NOT EXISTS log_text_avt  ON log_text (v);
CHECKPOINT;
