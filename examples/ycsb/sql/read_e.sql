-- read_e, the read of a read-modify-write: every field of entity :e, the
-- record the write that follows changes, in the same transaction.
-- Columns field, value.
SELECT x.ident AS field, f.v AS value
FROM cur_text f
JOIN attrs x ON x.a = f.a
WHERE f.e = CAST(:e AS BIGINT)
