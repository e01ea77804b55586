-- How many users have a name.
SELECT count(DISTINCT e) AS n
FROM log_text
WHERE a = (SELECT a FROM attrs WHERE ident = 'user/name')
