-- scan_keys, for the scan check: the keys of the :n records whose keys
-- are the smallest at or after :start, in key order. Column key.
SELECT v AS key
FROM cur_text
WHERE a = (SELECT a FROM attrs WHERE ident = 'ycsb/key')
  AND v >= :start
ORDER BY v
LIMIT CAST(:n AS INTEGER)
