-- A wrong write for tests: the log gets the change, the current-state
-- table does not (the UPDATE of cur_text is missing).
INSERT INTO log_text (e, a, v, tx, added)
SELECT e, a, v, CAST(:tx AS BIGINT), FALSE
FROM cur_text
WHERE e = CAST(:e AS BIGINT) AND a = CAST(:a AS INTEGER);

INSERT INTO log_text (e, a, v, tx, added)
VALUES (CAST(:e AS BIGINT), CAST(:a AS INTEGER), CAST(:v AS TEXT), CAST(:tx AS BIGINT), TRUE);
