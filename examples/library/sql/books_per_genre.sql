-- books_per_genre, aggregate. Number of books per book/genre: a scan of
-- one attribute through AEVT.
-- Columns genre, n.
SELECT v AS genre, COUNT(*) AS n
FROM cur_text
WHERE a = (SELECT a FROM attrs WHERE ident = 'book/genre')
GROUP BY v
ORDER BY genre
