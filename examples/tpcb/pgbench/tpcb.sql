-- pgbench's built-in tpcb-like, statement for statement, on its tables:
-- the step's entities as pgbench's 1-based keys (entity id mod 10^12,
-- plus 1; pgbench_load maps them alike).
UPDATE pgbench_accounts SET abalance = abalance + CAST(:delta AS INTEGER) WHERE aid = CAST(CAST(:account_e AS BIGINT) % 1000000000000 + 1 AS INTEGER);
SELECT abalance FROM pgbench_accounts WHERE aid = CAST(CAST(:account_e AS BIGINT) % 1000000000000 + 1 AS INTEGER);
UPDATE pgbench_tellers SET tbalance = tbalance + CAST(:delta AS INTEGER) WHERE tid = CAST(CAST(:teller_e AS BIGINT) % 1000000000000 + 1 AS INTEGER);
UPDATE pgbench_branches SET bbalance = bbalance + CAST(:delta AS INTEGER) WHERE bid = CAST(CAST(:branch_e AS BIGINT) % 1000000000000 + 1 AS INTEGER);
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (CAST(CAST(:teller_e AS BIGINT) % 1000000000000 + 1 AS INTEGER), CAST(CAST(:branch_e AS BIGINT) % 1000000000000 + 1 AS INTEGER), CAST(CAST(:account_e AS BIGINT) % 1000000000000 + 1 AS INTEGER), CAST(:delta AS INTEGER), CURRENT_TIMESTAMP);
