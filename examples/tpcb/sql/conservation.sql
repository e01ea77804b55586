-- pgbench's consistency: every committed delta went to an account, a
-- teller, a branch and the history, so their sums are equal whatever
-- the interleaving. Each column is 0 when the invariant holds.
SELECT t.accounts - t.branches AS accounts_minus_branches,
       t.tellers - t.branches AS tellers_minus_branches,
       t.history_delta - t.branches AS history_minus_branches
FROM (
  SELECT
    (SELECT COALESCE(SUM(c.v), 0) FROM cur_int c JOIN attrs x ON x.a = c.a WHERE x.ident = 'account/balance') AS accounts,
    (SELECT COALESCE(SUM(c.v), 0) FROM cur_int c JOIN attrs x ON x.a = c.a WHERE x.ident = 'teller/balance') AS tellers,
    (SELECT COALESCE(SUM(c.v), 0) FROM cur_int c JOIN attrs x ON x.a = c.a WHERE x.ident = 'branch/balance') AS branches,
    (SELECT COALESCE(SUM(c.v), 0) FROM cur_int c JOIN attrs x ON x.a = c.a WHERE x.ident = 'history/delta') AS history_delta
) t
