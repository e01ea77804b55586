-- The TPC-B invariant on pgbench's tables, whoever wrote them (the
-- engine or pgbench -b tpcb-like): the sums of abalance, tbalance,
-- bbalance and the history's delta are equal. Each column is 0 when it
-- holds.
SELECT t.accounts - t.branches AS accounts_minus_branches,
       t.tellers - t.branches AS tellers_minus_branches,
       t.history_delta - t.branches AS history_minus_branches
FROM (
  SELECT
    (SELECT COALESCE(SUM(abalance), 0) FROM pgbench_accounts) AS accounts,
    (SELECT COALESCE(SUM(tbalance), 0) FROM pgbench_tellers) AS tellers,
    (SELECT COALESCE(SUM(bbalance), 0) FROM pgbench_branches) AS branches,
    (SELECT COALESCE(SUM(delta), 0) FROM pgbench_history) AS history_delta
) t
