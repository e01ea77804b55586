-- Log indexes for the library's history queries, run after the shared
-- post_load.sql and avet.sql. Those index log_text by (e, a, tx) and
-- (a, tx) for the quickstart's text history, and both logs by (a, v, tx);
-- the library's history is in log_int (loan/returned, a boolean):
-- log_int (e, a, tx)   loans_as_of reads each loan's book and returned
--                      history by entity
-- log_int (a, tx)      changed_since reads loan/returned datoms after a tx
-- ANALYZE log_int gives SQLite statistics for the new indexes (and
-- PostgreSQL fresh ones for the table). DuckDB needs neither: its log is
-- appended in tx order, and zone maps serve both reads.
CREATE INDEX IF NOT EXISTS log_int_eat ON log_int (e, a, tx);
CREATE INDEX IF NOT EXISTS log_int_at  ON log_int (a, tx);
ANALYZE log_int;
