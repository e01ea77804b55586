-- pgbench_load(tx): the dataset's JSON tx-data into pgbench's tables.
-- An entity id is (kind+1)*10^12 + id with id from 0, so pgbench's
-- 1-based key is id + 1 (branch b0 is bid 1, account 0 is aid 1); a ref
-- (the teller's and the account's branch) maps alike. An entity's
-- datoms may come in more than one batch, so each row is upserted and
-- keeps what an earlier batch wrote. The schema batch, the history (none
-- loaded) and SmallBank's customers have no pgbench table: ignored.
-- Accounts get filler '' as pgbench -i's COPY gives them (blank-padded
-- rows of pgbench's width); tellers and branches none, as its INSERTs.
-- Returns the rows written.
CREATE OR REPLACE FUNCTION pgbench_load(tx jsonb) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  n bigint := 0;
  m bigint;
BEGIN
  IF jsonb_typeof(tx -> 0) = 'object' THEN
    RETURN 0;
  END IF;
  CREATE TEMP TABLE IF NOT EXISTS pgbench_load_d (id int, ident text, v bigint) ON COMMIT DELETE ROWS;
  INSERT INTO pgbench_load_d
  SELECT ((x ->> 1)::bigint % 1000000000000 + 1)::int, x ->> 2,
         CASE WHEN x ->> 2 LIKE '%/branch' THEN (x ->> 3)::bigint % 1000000000000 + 1 ELSE (x ->> 3)::bigint END
  FROM jsonb_array_elements(tx) AS x
  WHERE x ->> 0 = 'db/add' AND x ->> 2 IN ('branch/balance', 'teller/branch', 'teller/balance', 'account/branch', 'account/balance');

  INSERT INTO pgbench_branches AS t (bid, bbalance)
  SELECT id, max(v) FROM pgbench_load_d WHERE ident = 'branch/balance' GROUP BY id
  ON CONFLICT (bid) DO UPDATE SET bbalance = excluded.bbalance;
  GET DIAGNOSTICS m = ROW_COUNT;
  n := n + m;

  INSERT INTO pgbench_tellers AS t (tid, bid, tbalance)
  SELECT id, max(v) FILTER (WHERE ident = 'teller/branch'), max(v) FILTER (WHERE ident = 'teller/balance')
  FROM pgbench_load_d WHERE ident LIKE 'teller/%' GROUP BY id
  ON CONFLICT (tid) DO UPDATE SET bid = coalesce(excluded.bid, t.bid), tbalance = coalesce(excluded.tbalance, t.tbalance);
  GET DIAGNOSTICS m = ROW_COUNT;
  n := n + m;

  INSERT INTO pgbench_accounts AS t (aid, bid, abalance, filler)
  SELECT id, max(v) FILTER (WHERE ident = 'account/branch'), max(v) FILTER (WHERE ident = 'account/balance'), ''
  FROM pgbench_load_d WHERE ident LIKE 'account/%' GROUP BY id
  ON CONFLICT (aid) DO UPDATE SET bid = coalesce(excluded.bid, t.bid), abalance = coalesce(excluded.abalance, t.abalance);
  GET DIAGNOSTICS m = ROW_COUNT;
  n := n + m;
  DELETE FROM pgbench_load_d;
  RETURN n;
END
$$;
