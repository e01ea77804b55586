-- The sums of the balances, the history's deltas and its rows.
SELECT
  (SELECT COALESCE(SUM(abalance), 0) FROM pgbench_accounts) AS accounts,
  (SELECT COALESCE(SUM(tbalance), 0) FROM pgbench_tellers) AS tellers,
  (SELECT COALESCE(SUM(bbalance), 0) FROM pgbench_branches) AS branches,
  (SELECT COALESCE(SUM(delta), 0) FROM pgbench_history) AS history_delta,
  (SELECT COUNT(*) FROM pgbench_history) AS history_rows
