-- AVET, the value indexes (default text, used by SQLite and PostgreSQL). Optional.
-- Without them every query still answers correctly, and each lookup by value
-- scans the whole attribute through AEVT (seed finding 1, q1 degrading
-- linearly with scale; q2, input_bindings and as_of inherit the cost).
-- cur_text (a, v, e)   lookups by unique or indexed text values
--                      (user/email in q1, q2, input_bindings).
-- cur_int  (a, v, e)   reverse ref lookups (issues whose issue/assignee
--                      is a user, q2).
-- log_text, log_int (a, v, tx)   the same two lookups as of a tx (as_of).

CREATE INDEX IF NOT EXISTS cur_text_avet ON cur_text (a, v, e);
CREATE INDEX IF NOT EXISTS cur_int_avet  ON cur_int  (a, v, e);
CREATE INDEX IF NOT EXISTS log_text_avt  ON log_text (a, v, tx);
CREATE INDEX IF NOT EXISTS log_int_avt   ON log_int  (a, v, tx);
