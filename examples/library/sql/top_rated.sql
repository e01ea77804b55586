-- top_rated, predicate scan. The books of one genre with a rating of at
-- least :min_rating (a double, in cur_real), best first.
-- Columns book, title, rating.
SELECT g.e AS book, t.v AS title, r.v AS rating
FROM cur_text g
JOIN cur_real r
  ON r.e = g.e
 AND r.a = (SELECT a FROM attrs WHERE ident = 'book/rating')
JOIN cur_text t
  ON t.e = g.e
 AND t.a = (SELECT a FROM attrs WHERE ident = 'book/title')
WHERE g.a = (SELECT a FROM attrs WHERE ident = 'book/genre')
  AND g.v = :genre
  AND r.v >= :min_rating
ORDER BY rating DESC, book
