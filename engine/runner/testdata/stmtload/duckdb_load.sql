-- One batch of JSON tx-data into the engine's tables with DuckDB's JSON
-- functions: json_each over the batch, one INSERT per table, in one
-- transaction (the engine's BEGIN and COMMIT around them). Schema
-- elements are objects, datoms arrays ["db/add", e, "ident", v, tx].
INSERT INTO attrs (a, ident, entity, value_type, cardinality, is_unique, is_index)
SELECT CAST(j.value ->> '$."db/id"' AS INTEGER), j.value ->> '$."db/ident"', j.value ->> '$.entity',
       split_part(j.value ->> '$."db/valueType"', '/', 2), split_part(j.value ->> '$."db/cardinality"', '/', 2),
       (j.value ->> '$."db/unique"') IS NOT NULL, CAST(j.value ->> '$."db/index"' AS BOOLEAN)
FROM json_each(CAST(:tx AS JSON)) AS j
WHERE j.type = 'OBJECT';

INSERT INTO log_text (e, a, v, tx, added)
SELECT CAST(j.value ->> '$[1]' AS BIGINT), attr.a, j.value ->> '$[3]', CAST(j.value ->> '$[4]' AS BIGINT),
       (j.value ->> '$[0]') = 'db/add'
FROM json_each(CAST(:tx AS JSON)) AS j
JOIN attrs AS attr ON attr.ident = (j.value ->> '$[2]')
WHERE j.type = 'ARRAY' AND attr.value_type IN ('string', 'keyword');

INSERT INTO log_int (e, a, v, tx, added)
SELECT CAST(j.value ->> '$[1]' AS BIGINT), attr.a,
       CASE json_type(j.value, '$[3]') WHEN 'BOOLEAN' THEN CAST(CAST(j.value ->> '$[3]' AS BOOLEAN) AS BIGINT)
            ELSE CAST(j.value ->> '$[3]' AS BIGINT) END,
       CAST(j.value ->> '$[4]' AS BIGINT), (j.value ->> '$[0]') = 'db/add'
FROM json_each(CAST(:tx AS JSON)) AS j
JOIN attrs AS attr ON attr.ident = (j.value ->> '$[2]')
WHERE j.type = 'ARRAY' AND attr.value_type IN ('long', 'ref', 'instant', 'boolean');

INSERT INTO log_real (e, a, v, tx, added)
SELECT CAST(j.value ->> '$[1]' AS BIGINT), attr.a, CAST(j.value ->> '$[3]' AS DOUBLE), CAST(j.value ->> '$[4]' AS BIGINT),
       (j.value ->> '$[0]') = 'db/add'
FROM json_each(CAST(:tx AS JSON)) AS j
JOIN attrs AS attr ON attr.ident = (j.value ->> '$[2]')
WHERE j.type = 'ARRAY' AND attr.value_type = 'double';
