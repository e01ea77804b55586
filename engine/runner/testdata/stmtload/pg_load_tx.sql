-- load_tx(tx): the store's transact function for the engine's own datom
-- tables, as a store that takes JSON tx-data would have one. The schema
-- batch (objects) fills attrs; a datom batch (arrays
-- ["db/add", e, "ident", v, tx]) goes to the log table of each
-- attribute's value type. Entity ids and ref values may be numbers or
-- tempid strings of the id's digits. Returns the rows written.
CREATE OR REPLACE FUNCTION load_tx(tx jsonb) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  IF jsonb_typeof(tx -> 0) = 'object' THEN
    INSERT INTO attrs (a, ident, entity, value_type, cardinality, is_unique, is_index)
    SELECT (x ->> 'db/id')::integer, x ->> 'db/ident', x ->> 'entity',
           split_part(x ->> 'db/valueType', '/', 2), split_part(x ->> 'db/cardinality', '/', 2),
           (x ->> 'db/unique') IS NOT NULL, (x ->> 'db/index')::boolean
    FROM jsonb_array_elements(tx) AS x;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
  END IF;
  WITH d AS (
    SELECT (x ->> 1)::bigint AS e, attr.a, attr.value_type AS vt, x -> 3 AS v, (x ->> 4)::bigint AS t,
           (x ->> 0) = 'db/add' AS added
    FROM jsonb_array_elements(tx) AS x
    JOIN attrs AS attr ON attr.ident = x ->> 2
  ), t AS (
    INSERT INTO log_text (e, a, v, tx, added)
    SELECT e, a, v #>> '{}', t, added FROM d WHERE vt IN ('string', 'keyword')
    RETURNING 1
  ), i AS (
    INSERT INTO log_int (e, a, v, tx, added)
    SELECT e, a, CASE jsonb_typeof(v) WHEN 'boolean' THEN (v::text)::boolean::integer ELSE (v #>> '{}')::bigint END, t, added
    FROM d WHERE vt IN ('long', 'ref', 'instant', 'boolean')
    RETURNING 1
  ), r AS (
    INSERT INTO log_real (e, a, v, tx, added)
    SELECT e, a, (v #>> '{}')::double precision, t, added FROM d WHERE vt = 'double'
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM t) + (SELECT count(*) FROM i) + (SELECT count(*) FROM r) INTO n;
  RETURN n;
END
$$;
