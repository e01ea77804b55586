-- SmallBank Balance(name): a customer's savings and checking.
SELECT s.v AS savings, c.v AS checking
FROM cur_text n
JOIN cur_int s ON s.e = n.e
JOIN cur_int c ON c.e = n.e
WHERE n.a = (SELECT a FROM attrs WHERE ident = 'customer/name') AND n.v = :name
  AND s.a = (SELECT a FROM attrs WHERE ident = 'savings/balance')
  AND c.a = (SELECT a FROM attrs WHERE ident = 'checking/balance')
