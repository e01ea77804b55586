-- A balance (:attr, account/balance or teller/balance) of entity :e.
SELECT abalance AS balance FROM pgbench_accounts
WHERE CAST(:attr AS TEXT) = 'account/balance' AND aid = CAST(CAST(:e AS BIGINT) % 1000000000000 + 1 AS INTEGER)
UNION ALL
SELECT tbalance FROM pgbench_tellers
WHERE CAST(:attr AS TEXT) = 'teller/balance' AND tid = CAST(CAST(:e AS BIGINT) % 1000000000000 + 1 AS INTEGER)
