-- avet, the one value index YCSB needs (SQLite and PostgreSQL): records
-- by key, for reads and for scans in key order. The mentat workload's
-- avet.sql also indexes the log's values, which no YCSB query reads.
CREATE INDEX IF NOT EXISTS cur_text_avet ON cur_text (a, v, e);
