-- avet, DuckDB: records by key (an ART index on v, as the mentat
-- workload's duckdb/avet.sql has it for cur_text).
CREATE INDEX IF NOT EXISTS cur_text_avet ON cur_text (v);
CHECKPOINT;
