-- Step STEP adds :STEP_v to attribute :STEP_a of entity :STEP_e in
-- transaction :tx: the current state first (the row lock orders
-- concurrent writers, and under READ COMMITTED the addition applies to
-- the latest committed value), then the log's retract of the old value
-- and assert of the new one.
UPDATE cur_int
SET v = v + CAST(:STEP_v AS BIGINT), tx = CAST(:tx AS BIGINT)
WHERE e = CAST(:STEP_e AS BIGINT) AND a = CAST(:STEP_a AS INTEGER);

INSERT INTO log_int (e, a, v, tx, added)
SELECT e, a, v - CAST(:STEP_v AS BIGINT), tx, FALSE
FROM cur_int
WHERE e = CAST(:STEP_e AS BIGINT) AND a = CAST(:STEP_a AS INTEGER);

INSERT INTO log_int (e, a, v, tx, added)
SELECT e, a, v, tx, TRUE
FROM cur_int
WHERE e = CAST(:STEP_e AS BIGINT) AND a = CAST(:STEP_a AS INTEGER);
