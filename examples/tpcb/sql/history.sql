-- pgbench: INSERT INTO pgbench_history (tid, bid, aid, delta, mtime).
-- History entity :history_e with the transaction's account, teller,
-- branch and delta, asserted in :tx, in the log and the current state.
INSERT INTO log_int (e, a, v, tx, added)
SELECT CAST(:history_e AS BIGINT), x.a, d.v, CAST(:tx AS BIGINT), TRUE
FROM (
  SELECT 'history/account' AS ident, CAST(:account_e AS BIGINT) AS v
  UNION ALL SELECT 'history/teller', CAST(:teller_e AS BIGINT)
  UNION ALL SELECT 'history/branch', CAST(:branch_e AS BIGINT)
  UNION ALL SELECT 'history/delta', CAST(:delta AS BIGINT)
) d
JOIN attrs x ON x.ident = d.ident;

INSERT INTO cur_int (e, a, v, tx)
SELECT CAST(:history_e AS BIGINT), x.a, d.v, CAST(:tx AS BIGINT)
FROM (
  SELECT 'history/account' AS ident, CAST(:account_e AS BIGINT) AS v
  UNION ALL SELECT 'history/teller', CAST(:teller_e AS BIGINT)
  UNION ALL SELECT 'history/branch', CAST(:branch_e AS BIGINT)
  UNION ALL SELECT 'history/delta', CAST(:delta AS BIGINT)
) d
JOIN attrs x ON x.ident = d.ident;
