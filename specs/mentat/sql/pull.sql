-- pull [*]. Every current attribute of one entity, with its value as
-- text (ints, refs, instants in epoch ms and booleans 0/1 as decimal
-- integers; doubles as the dialect casts them). A cardinality-many
-- attribute gives one row per value.
-- Columns attr, value.
SELECT x.ident AS attr, d.value AS value
FROM (
  SELECT e, a, v AS value FROM cur_text
  UNION ALL
  SELECT e, a, CAST(v AS TEXT) FROM cur_int
  UNION ALL
  SELECT e, a, CAST(v AS TEXT) FROM cur_real
) d
JOIN attrs x ON x.a = d.a
WHERE d.e = :e
ORDER BY attr, value
