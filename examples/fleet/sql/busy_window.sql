-- Routes starting in [:from, :to] (epoch ms) that are completed or run
-- by a van of capacity >= :big. Columns route.
SELECT s.e AS route
FROM cur_int s
JOIN cur_text st ON st.e = s.e AND st.a = (SELECT a FROM attrs WHERE ident = 'route/status')
JOIN cur_int van ON van.e = s.e AND van.a = (SELECT a FROM attrs WHERE ident = 'route/van')
JOIN cur_int cap ON cap.e = van.v AND cap.a = (SELECT a FROM attrs WHERE ident = 'van/capacity')
WHERE s.a = (SELECT a FROM attrs WHERE ident = 'route/starts')
  AND s.v BETWEEN :from AND :to
  AND (st.v = 'completed' OR cap.v >= :big)
