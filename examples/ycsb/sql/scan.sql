-- scan, YCSB's scan: the :n records whose keys are the smallest at or
-- after :start, in key order, with every field. Columns key, field,
-- value; ordered by key, then field.
WITH keys AS (
  SELECT e, v AS key
  FROM cur_text
  WHERE a = (SELECT a FROM attrs WHERE ident = 'ycsb/key')
    AND v >= :start
  ORDER BY v
  LIMIT CAST(:n AS INTEGER)
)
SELECT k.key AS key, x.ident AS field, f.v AS value
FROM keys k
JOIN cur_text f ON f.e = k.e
JOIN attrs x ON x.a = f.a
ORDER BY k.key, x.ident
