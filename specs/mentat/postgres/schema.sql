-- mentat datom layout, PostgreSQL. As sql/schema.sql, with COLLATE "C" on
-- the text columns - equality is unchanged, B-tree builds and comparisons
-- skip the locale (strcoll), and ORDER BY gives the byte order SQLite and
-- DuckDB give, whatever the database's default collation.
-- attrs     the attribute table, one row per attribute.
-- log_*     the transaction log, every datom ever asserted (added) or
--           retracted (NOT added), one table per storage class
--           (text = string, keyword; int = long, ref, instant in epoch ms,
--           boolean 0/1; real = double).
-- cur_*     the current state, derived from the log by post_load.sql.
-- No indexes on the datom tables, so the bulk load is not slowed by them;
-- post_load.sql and avet.sql build them.

CREATE TABLE IF NOT EXISTS attrs (
  a           INTEGER NOT NULL PRIMARY KEY,
  ident       TEXT    COLLATE "C" NOT NULL UNIQUE,
  entity      TEXT    NOT NULL,
  value_type  TEXT    NOT NULL,
  cardinality TEXT    NOT NULL,
  is_unique   BOOLEAN NOT NULL,
  is_index    BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS log_text (
  e     BIGINT  NOT NULL,
  a     INTEGER NOT NULL,
  v     TEXT    COLLATE "C" NOT NULL,
  tx    BIGINT  NOT NULL,
  added BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS log_int (
  e     BIGINT  NOT NULL,
  a     INTEGER NOT NULL,
  v     BIGINT  NOT NULL,
  tx    BIGINT  NOT NULL,
  added BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS log_real (
  e     BIGINT  NOT NULL,
  a     INTEGER NOT NULL,
  v     DOUBLE PRECISION NOT NULL,
  tx    BIGINT  NOT NULL,
  added BOOLEAN NOT NULL
);

CREATE TABLE IF NOT EXISTS cur_text (
  e  BIGINT  NOT NULL,
  a  INTEGER NOT NULL,
  v  TEXT    COLLATE "C" NOT NULL,
  tx BIGINT  NOT NULL
);

CREATE TABLE IF NOT EXISTS cur_int (
  e  BIGINT  NOT NULL,
  a  INTEGER NOT NULL,
  v  BIGINT  NOT NULL,
  tx BIGINT  NOT NULL
);

CREATE TABLE IF NOT EXISTS cur_real (
  e  BIGINT  NOT NULL,
  a  INTEGER NOT NULL,
  v  DOUBLE PRECISION NOT NULL,
  tx BIGINT  NOT NULL
);
