-- A write split in two transactions for tests: the log first, the current
-- state later. Between the two commits a reader can see a state that never
-- existed (the log says the new value, cur_text the old one).
INSERT INTO log_text (e, a, v, tx, added)
SELECT e, a, v, CAST(:tx AS BIGINT), FALSE
FROM cur_text
WHERE e = CAST(:e AS BIGINT) AND a = CAST(:a AS INTEGER);

INSERT INTO log_text (e, a, v, tx, added)
VALUES (CAST(:e AS BIGINT), CAST(:a AS INTEGER), CAST(:v AS TEXT), CAST(:tx AS BIGINT), TRUE);

COMMIT;
BEGIN;

UPDATE cur_text
SET v = CAST(:v AS TEXT), tx = CAST(:tx AS BIGINT)
WHERE e = CAST(:e AS BIGINT) AND a = CAST(:a AS INTEGER);
