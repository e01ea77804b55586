-- insert, one write of the dataset's write "insert": a new record :e
-- with its key and its fieldcount fields, each a parameter named after
-- its attribute (ycsb/field0 -> :ycsb_field0), all asserted in
-- transaction :tx, in the log, and the current state follows from the
-- log's asserts of that transaction.
INSERT INTO log_text (e, a, v, tx, added)
SELECT CAST(:e AS BIGINT), x.a, d.v, CAST(:tx AS BIGINT), TRUE
FROM (
  SELECT 'ycsb/key' AS ident, CAST(:ycsb_key AS TEXT) AS v
  UNION ALL
  SELECT 'ycsb/field0', CAST(:ycsb_field0 AS TEXT)
  UNION ALL
  SELECT 'ycsb/field1', CAST(:ycsb_field1 AS TEXT)
  UNION ALL
  SELECT 'ycsb/field2', CAST(:ycsb_field2 AS TEXT)
  UNION ALL
  SELECT 'ycsb/field3', CAST(:ycsb_field3 AS TEXT)
  UNION ALL
  SELECT 'ycsb/field4', CAST(:ycsb_field4 AS TEXT)
  UNION ALL
  SELECT 'ycsb/field5', CAST(:ycsb_field5 AS TEXT)
  UNION ALL
  SELECT 'ycsb/field6', CAST(:ycsb_field6 AS TEXT)
  UNION ALL
  SELECT 'ycsb/field7', CAST(:ycsb_field7 AS TEXT)
  UNION ALL
  SELECT 'ycsb/field8', CAST(:ycsb_field8 AS TEXT)
  UNION ALL
  SELECT 'ycsb/field9', CAST(:ycsb_field9 AS TEXT)
) d
JOIN attrs x ON x.ident = d.ident;

INSERT INTO cur_text (e, a, v, tx)
SELECT e, a, v, tx
FROM log_text
WHERE e = CAST(:e AS BIGINT) AND tx = CAST(:tx AS BIGINT) AND added;
