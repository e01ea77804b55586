-- The sums of the balances, the history's deltas and its rows.
SELECT
  (SELECT COALESCE(SUM(c.v), 0) FROM cur_int c JOIN attrs x ON x.a = c.a WHERE x.ident = 'account/balance') AS accounts,
  (SELECT COALESCE(SUM(c.v), 0) FROM cur_int c JOIN attrs x ON x.a = c.a WHERE x.ident = 'teller/balance') AS tellers,
  (SELECT COALESCE(SUM(c.v), 0) FROM cur_int c JOIN attrs x ON x.a = c.a WHERE x.ident = 'branch/balance') AS branches,
  (SELECT COALESCE(SUM(c.v), 0) FROM cur_int c JOIN attrs x ON x.a = c.a WHERE x.ident = 'history/delta') AS history_delta,
  (SELECT COUNT(*) FROM cur_int c JOIN attrs x ON x.a = c.a WHERE x.ident = 'history/delta') AS history_rows
