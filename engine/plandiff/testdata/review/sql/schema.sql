CREATE TABLE attrs (a INTEGER PRIMARY KEY, ident TEXT, entity TEXT, value_type TEXT, cardinality TEXT, is_unique BOOLEAN, is_index BOOLEAN);
CREATE TABLE log_text (e BIGINT, a INTEGER, v TEXT, tx BIGINT, added BOOLEAN);
CREATE TABLE log_int (e BIGINT, a INTEGER, v BIGINT, tx BIGINT, added BOOLEAN);
CREATE TABLE log_real (e BIGINT, a INTEGER, v DOUBLE PRECISION, tx BIGINT, added BOOLEAN);
