-- SmallBank's sums: savings, checking and all money.
SELECT
  (SELECT SUM(c.v) FROM cur_int c JOIN attrs x ON x.a = c.a WHERE x.ident = 'savings/balance') AS savings,
  (SELECT SUM(c.v) FROM cur_int c JOIN attrs x ON x.a = c.a WHERE x.ident = 'checking/balance') AS checking,
  (SELECT SUM(c.v) FROM cur_int c JOIN attrs x ON x.a = c.a WHERE x.ident IN ('savings/balance', 'checking/balance')) AS total
