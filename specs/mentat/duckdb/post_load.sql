-- post_load, DuckDB. Current state from the log as in sql/post_load.sql,
-- designed for what DuckDB's planner does.
-- * cur_* are written in (a, e, v) order, so each row group's min/max
--   (zone maps) of a and e prune scans to one attribute and an entity
--   range. That is AEVT, and it serves q2's title/state lookups, q3, q4
--   and the lookups of q1.
-- * EAVT is an ART index on e alone. DuckDB uses an ART index only for a
--   constant filter on its single column (pull's e = constant), never for
--   a join and never a composite one.
-- * No log indexes. The log is appended in tx order, so its zone maps
--   already serve since (tx > t) and as_of (tx <= t). The log's value
--   index for as_of's email lookup is in avet.sql.

DELETE FROM cur_text;
DELETE FROM cur_int;
DELETE FROM cur_real;

INSERT INTO cur_text (e, a, v, tx)
SELECT e, a, v, MAX(CASE WHEN added THEN tx END)
FROM log_text
GROUP BY e, a, v
HAVING MAX(CASE WHEN added THEN tx END)
    >= COALESCE(MAX(CASE WHEN NOT added THEN tx END), 0)
ORDER BY a, e, v;

INSERT INTO cur_int (e, a, v, tx)
SELECT e, a, v, MAX(CASE WHEN added THEN tx END)
FROM log_int
GROUP BY e, a, v
HAVING MAX(CASE WHEN added THEN tx END)
    >= COALESCE(MAX(CASE WHEN NOT added THEN tx END), 0)
ORDER BY a, e, v;

INSERT INTO cur_real (e, a, v, tx)
SELECT e, a, v, MAX(CASE WHEN added THEN tx END)
FROM log_real
GROUP BY e, a, v
HAVING MAX(CASE WHEN added THEN tx END)
    >= COALESCE(MAX(CASE WHEN NOT added THEN tx END), 0)
ORDER BY a, e, v;

CREATE INDEX IF NOT EXISTS cur_text_e ON cur_text (e);
CREATE INDEX IF NOT EXISTS cur_int_e  ON cur_int  (e);
CREATE INDEX IF NOT EXISTS cur_real_e ON cur_real (e);

CHECKPOINT;
