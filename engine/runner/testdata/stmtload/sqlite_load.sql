-- One batch of JSON tx-data into the engine's tables, the closest SQLite
-- comes to a transact function: one INSERT per table reading the batch
-- with json_each, all four in one transaction (the engine's BEGIN and
-- COMMIT around a statement of several). The schema batch's elements are
-- objects, a datom batch's arrays ["db/add", e, "ident", v, tx].
INSERT INTO attrs (a, ident, entity, value_type, cardinality, is_unique, is_index)
SELECT json_extract(j.value, '$."db/id"'), json_extract(j.value, '$."db/ident"'), json_extract(j.value, '$.entity'),
       substr(json_extract(j.value, '$."db/valueType"'), 9), substr(json_extract(j.value, '$."db/cardinality"'), 16),
       json_extract(j.value, '$."db/unique"') IS NOT NULL, json_extract(j.value, '$."db/index"')
FROM json_each(:tx) AS j
WHERE j.type = 'object';

INSERT INTO log_text (e, a, v, tx, added)
SELECT json_extract(j.value, '$[1]'), attr.a, json_extract(j.value, '$[3]'), json_extract(j.value, '$[4]'),
       json_extract(j.value, '$[0]') = 'db/add'
FROM json_each(:tx) AS j
JOIN attrs AS attr ON attr.ident = json_extract(j.value, '$[2]')
WHERE j.type = 'array' AND attr.value_type IN ('string', 'keyword');

INSERT INTO log_int (e, a, v, tx, added)
SELECT json_extract(j.value, '$[1]'), attr.a, json_extract(j.value, '$[3]'), json_extract(j.value, '$[4]'),
       json_extract(j.value, '$[0]') = 'db/add'
FROM json_each(:tx) AS j
JOIN attrs AS attr ON attr.ident = json_extract(j.value, '$[2]')
WHERE j.type = 'array' AND attr.value_type IN ('long', 'ref', 'instant', 'boolean');

INSERT INTO log_real (e, a, v, tx, added)
SELECT json_extract(j.value, '$[1]'), attr.a, json_extract(j.value, '$[3]'), json_extract(j.value, '$[4]'),
       json_extract(j.value, '$[0]') = 'db/add'
FROM json_each(:tx) AS j
JOIN attrs AS attr ON attr.ident = json_extract(j.value, '$[2]')
WHERE j.type = 'array' AND attr.value_type = 'double';
