-- pgbench: SELECT abalance FROM pgbench_accounts WHERE aid = :aid.
SELECT v AS abalance
FROM cur_int
WHERE e = CAST(:account_e AS BIGINT) AND a = CAST(:account_a AS INTEGER);
