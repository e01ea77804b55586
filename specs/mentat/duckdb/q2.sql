-- q2, DuckDB. As sql/q2.sql, with one MATERIALIZED CTE per table access
-- (see q1.sql). A join hands its keys to the next scan as an IN filter
-- (up to dynamic_or_filter_threshold keys, default 50), which the ART
-- index serves; past that, or past index_scan_max_count rows (2048), the
-- scan reads the column instead.
-- u   cur_text rows with the email (ART on v)
-- r   cur_int rows referring to the user (ART on v), then i keeps the
--     issue/assignee ones
-- d   the text attributes of those issues (ART on e)
-- Columns issue, title, state.
WITH u AS MATERIALIZED (
  SELECT e, a FROM cur_text WHERE v = :email
),
r AS MATERIALIZED (
  SELECT e, a FROM cur_int
  WHERE v IN (SELECT e FROM u
              WHERE a = (SELECT a FROM attrs WHERE ident = 'user/email'))
),
i AS MATERIALIZED (
  SELECT e FROM r
  WHERE a = (SELECT a FROM attrs WHERE ident = 'issue/assignee')
),
d AS MATERIALIZED (
  SELECT e, a, v FROM cur_text WHERE e IN (SELECT e FROM i)
)
SELECT i.e AS issue, t.v AS title, s.v AS state
FROM i
JOIN d t
  ON t.e = i.e
 AND t.a = (SELECT a FROM attrs WHERE ident = 'issue/title')
JOIN d s
  ON s.e = i.e
 AND s.a = (SELECT a FROM attrs WHERE ident = 'issue/state')
ORDER BY issue
