-- member_loans, ref traversal. card -> member -> the loans whose
-- loan/member is that member (a reverse ref lookup through AVET on
-- cur_int), with each loan's book (a ref: the book's entity id), returned
-- (boolean, 0/1) and due (instant, epoch ms).
-- Columns loan, book, returned, due.
SELECT l.e AS loan, b.v AS book, r.v AS returned, d.v AS due
FROM cur_text c
JOIN cur_int l
  ON l.v = c.e
 AND l.a = (SELECT a FROM attrs WHERE ident = 'loan/member')
JOIN cur_int b
  ON b.e = l.e
 AND b.a = (SELECT a FROM attrs WHERE ident = 'loan/book')
JOIN cur_int r
  ON r.e = l.e
 AND r.a = (SELECT a FROM attrs WHERE ident = 'loan/returned')
JOIN cur_int d
  ON d.e = l.e
 AND d.a = (SELECT a FROM attrs WHERE ident = 'loan/due')
WHERE c.a = (SELECT a FROM attrs WHERE ident = 'member/card')
  AND c.v = :card
ORDER BY loan
