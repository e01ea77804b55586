-- update, PostgreSQL: as sql/update.sql, after locking the field's row
-- first. Under READ COMMITTED each later statement then sees a
-- concurrent writer's commit, so a write that lost to a greater tx
-- writes nothing at all, log included; under SERIALIZABLE the lock
-- conflict is a serialization failure (40001), which the engine retries.
SELECT 1
FROM cur_text
WHERE e = CAST(:e AS BIGINT) AND a = CAST(:a AS INTEGER)
FOR UPDATE;

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
