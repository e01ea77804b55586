-- Log indexes for the library's history queries, after the generic
-- post_load.sql and avet.sql (which index the log's text values only):
-- log_int (e, a, tx)   loans_as_of reads each loan's book and returned
--                      history by entity
-- log_int (a, tx)      changed_since reads loan/returned datoms after a tx
-- ANALYZE log_int gives SQLite statistics for the new indexes (and
-- PostgreSQL fresh ones for the table). DuckDB needs neither: its log is
-- appended in tx order, and zone maps serve both reads.
CREATE INDEX IF NOT EXISTS log_int_eat ON log_int (e, a, tx);
CREATE INDEX IF NOT EXISTS log_int_at  ON log_int (a, tx);
ANALYZE log_int;
