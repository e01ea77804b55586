-- The savings and checking of step STEP's customer, read inside the
-- transaction. Columns savings, checking.
SELECT s.v AS savings, c.v AS checking
FROM cur_int s
JOIN cur_int c ON c.e = s.e
WHERE s.e = CAST(:STEP_e AS BIGINT)
  AND s.a = (SELECT a FROM attrs WHERE ident = 'savings/balance')
  AND c.a = (SELECT a FROM attrs WHERE ident = 'checking/balance')
