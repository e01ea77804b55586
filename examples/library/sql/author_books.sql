-- author_books, ref traversal. An author by its unique name -> the books
-- whose book/author is that author, with title, genre and year.
-- Columns book, title, genre, year.
SELECT b.e AS book, t.v AS title, g.v AS genre, y.v AS year
FROM cur_text au
JOIN cur_int b
  ON b.v = au.e
 AND b.a = (SELECT a FROM attrs WHERE ident = 'book/author')
JOIN cur_text t
  ON t.e = b.e
 AND t.a = (SELECT a FROM attrs WHERE ident = 'book/title')
JOIN cur_text g
  ON g.e = b.e
 AND g.a = (SELECT a FROM attrs WHERE ident = 'book/genre')
JOIN cur_int y
  ON y.e = b.e
 AND y.a = (SELECT a FROM attrs WHERE ident = 'book/year')
WHERE au.a = (SELECT a FROM attrs WHERE ident = 'author/name')
  AND au.v = :name
ORDER BY book
