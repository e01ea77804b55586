-- member_by_card, point lookup. The member holding a unique member/card,
-- and its name: one AVET probe (a, v) and one EAVT probe (e, a).
-- Columns member, name.
SELECT c.e AS member, n.v AS name
FROM cur_text c
JOIN cur_text n
  ON n.e = c.e
 AND n.a = (SELECT a FROM attrs WHERE ident = 'member/name')
WHERE c.a = (SELECT a FROM attrs WHERE ident = 'member/card')
  AND c.v = :card
