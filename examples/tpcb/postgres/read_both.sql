-- As sql/read_both.sql, the two rows locked: under READ COMMITTED a
-- concurrent transaction of the same customer waits, and the amounts read
-- are the ones the deltas move.
SELECT s.v AS savings, c.v AS checking
FROM cur_int s
JOIN cur_int c ON c.e = s.e
WHERE s.e = CAST(:STEP_e AS BIGINT)
  AND s.a = (SELECT a FROM attrs WHERE ident = 'savings/balance')
  AND c.a = (SELECT a FROM attrs WHERE ident = 'checking/balance')
FOR UPDATE
