-- write_state, one write of the dataset's write "state_change": entity :e
-- gets the keyword :v for attribute :a in transaction :tx. One transaction
-- (the engine runs BEGIN and COMMIT around these statements): the log gets
-- the retract of the current value and the assert of the new one, and the
-- current-state table follows, so cur_text stays the log's current state.
INSERT INTO log_text (e, a, v, tx, added)
SELECT e, a, v, CAST(:tx AS BIGINT), FALSE
FROM cur_text
WHERE e = CAST(:e AS BIGINT) AND a = CAST(:a AS INTEGER);

INSERT INTO log_text (e, a, v, tx, added)
VALUES (CAST(:e AS BIGINT), CAST(:a AS INTEGER), CAST(:v AS TEXT), CAST(:tx AS BIGINT), TRUE);

UPDATE cur_text
SET v = CAST(:v AS TEXT), tx = CAST(:tx AS BIGINT)
WHERE e = CAST(:e AS BIGINT) AND a = CAST(:a AS INTEGER);
