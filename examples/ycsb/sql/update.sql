-- update, one write of the dataset's write "update": field :a of record
-- :e gets :v in transaction :tx (one field, writeallfields = false). The
-- log gets the retract of the current value and the assert of the new
-- one, and the current state follows. Every statement skips a record
-- whose field a later write (a greater tx) already set: with several
-- writers the store ends as if the writes committed in tx order, which
-- is what the truth after the writes assumes.
INSERT INTO log_text (e, a, v, tx, added)
SELECT e, a, v, CAST(:tx AS BIGINT), FALSE
FROM cur_text
WHERE e = CAST(:e AS BIGINT) AND a = CAST(:a AS INTEGER) AND tx < CAST(:tx AS BIGINT);

INSERT INTO log_text (e, a, v, tx, added)
SELECT CAST(:e AS BIGINT), CAST(:a AS INTEGER), CAST(:v AS TEXT), CAST(:tx AS BIGINT), TRUE
WHERE NOT EXISTS (
  SELECT 1 FROM cur_text
  WHERE e = CAST(:e AS BIGINT) AND a = CAST(:a AS INTEGER) AND tx > CAST(:tx AS BIGINT)
);

UPDATE cur_text
SET v = CAST(:v AS TEXT), tx = CAST(:tx AS BIGINT)
WHERE e = CAST(:e AS BIGINT) AND a = CAST(:a AS INTEGER) AND tx < CAST(:tx AS BIGINT);
