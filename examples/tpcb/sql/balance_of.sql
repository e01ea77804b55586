-- A balance attribute (:attr) of entity :e. Column balance.
SELECT c.v AS balance
FROM cur_int c
JOIN attrs x ON x.a = c.a
WHERE c.e = CAST(:e AS BIGINT) AND x.ident = :attr
