-- read, YCSB's read of one record: every field of the record whose key
-- is :key (fieldcount fields, readallfields = true), and its key.
-- Columns field, value.
SELECT x.ident AS field, f.v AS value
FROM cur_text k
JOIN cur_text f ON f.e = k.e
JOIN attrs x ON x.a = f.a
WHERE k.a = (SELECT a FROM attrs WHERE ident = 'ycsb/key')
  AND k.v = :key
