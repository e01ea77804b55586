-- Run once after the bulk load of attrs and log_*. Default text, used by
-- SQLite and PostgreSQL (their specs run ANALYZE afterwards); DuckDB has
-- its own.
-- 1. Current state. For each (e, a, v) the log is replayed by tx, and the
--    datom is current when its latest assert is not older than its latest
--    retract (a retract and an assert of the same value in one tx leave it
--    current). The DELETEs make a re-run safe.
-- 2. EAVT (e, a, v) and AEVT (a, e, v) on cur_*; AVET is in avet.sql.
-- 3. Log indexes, only those the queries read - as_of reads the title and
--    state history of its issues through log_text (e, a, tx); since reads
--    issue/state datoms after a tx through log_text (a, tx). The log's
--    value index (a, v, tx), which as_of uses to find the user by email
--    and the issues by assignee, is AVET and lives in avet.sql.

DELETE FROM cur_text;
DELETE FROM cur_int;
DELETE FROM cur_real;

INSERT INTO cur_text (e, a, v, tx)
SELECT e, a, v, MAX(CASE WHEN added THEN tx END)
FROM log_text
GROUP BY e, a, v
HAVING MAX(CASE WHEN added THEN tx END)
    >= COALESCE(MAX(CASE WHEN NOT added THEN tx END), 0);

INSERT INTO cur_int (e, a, v, tx)
SELECT e, a, v, MAX(CASE WHEN added THEN tx END)
FROM log_int
GROUP BY e, a, v
HAVING MAX(CASE WHEN added THEN tx END)
    >= COALESCE(MAX(CASE WHEN NOT added THEN tx END), 0);

INSERT INTO cur_real (e, a, v, tx)
SELECT e, a, v, MAX(CASE WHEN added THEN tx END)
FROM log_real
GROUP BY e, a, v
HAVING MAX(CASE WHEN added THEN tx END)
    >= COALESCE(MAX(CASE WHEN NOT added THEN tx END), 0);

CREATE INDEX IF NOT EXISTS cur_text_eavt ON cur_text (e, a, v);
CREATE INDEX IF NOT EXISTS cur_int_eavt  ON cur_int  (e, a, v);
CREATE INDEX IF NOT EXISTS cur_real_eavt ON cur_real (e, a, v);

CREATE INDEX IF NOT EXISTS cur_text_aevt ON cur_text (a, e, v);
CREATE INDEX IF NOT EXISTS cur_int_aevt  ON cur_int  (a, e, v);
CREATE INDEX IF NOT EXISTS cur_real_aevt ON cur_real (a, e, v);

CREATE INDEX IF NOT EXISTS log_text_eat ON log_text (e, a, tx);
CREATE INDEX IF NOT EXISTS log_text_at  ON log_text (a, tx);
