-- pgbench's own tables as `pgbench -i` leaves them (PostgreSQL 15,
-- pgbench's initCreateTables and initCreatePKeys): the same columns,
-- types, fill factors and primary keys. history has no key, as pgbench's.
CREATE TABLE IF NOT EXISTS pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22));
CREATE TABLE IF NOT EXISTS pgbench_tellers (tid int NOT NULL PRIMARY KEY, bid int, tbalance int, filler char(84)) WITH (fillfactor = 100);
CREATE TABLE IF NOT EXISTS pgbench_accounts (aid int NOT NULL PRIMARY KEY, bid int, abalance int, filler char(84)) WITH (fillfactor = 100);
CREATE TABLE IF NOT EXISTS pgbench_branches (bid int NOT NULL PRIMARY KEY, bbalance int, filler char(88)) WITH (fillfactor = 100);
