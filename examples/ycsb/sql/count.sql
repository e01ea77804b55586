-- count, for the checks: how many records there are (keys) and how many
-- fields they hold. Columns records, fields.
SELECT
  (SELECT COUNT(*) FROM cur_text WHERE a = (SELECT a FROM attrs WHERE ident = 'ycsb/key')) AS records,
  (SELECT COUNT(*) FROM cur_text WHERE a IN (SELECT a FROM attrs WHERE ident LIKE 'ycsb/field%')) AS fields
