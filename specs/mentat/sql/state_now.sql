-- state_now, the issue/state of entity :e read from both places a write
-- changes, in one statement (one snapshot): the current-state table and
-- the log's latest assert. Column v, one row per place; in any state that
-- existed the rows agree.
SELECT v
FROM cur_text
WHERE e = CAST(:e AS BIGINT)
  AND a = (SELECT a FROM attrs WHERE ident = 'issue/state')
UNION ALL
SELECT v
FROM (
  SELECT v
  FROM log_text
  WHERE e = CAST(:e AS BIGINT)
    AND a = (SELECT a FROM attrs WHERE ident = 'issue/state')
    AND added
  ORDER BY tx DESC
  LIMIT 1
) latest
