-- The sum of the account balances per branch. Columns bid, total.
SELECT b.v AS bid, SUM(bal.v) AS total
FROM cur_int bal
JOIN attrs xb ON xb.a = bal.a AND xb.ident = 'account/balance'
JOIN cur_int ab ON ab.e = bal.e
JOIN attrs xab ON xab.a = ab.a AND xab.ident = 'account/branch'
JOIN cur_text b ON b.e = ab.v
JOIN attrs xbid ON xbid.a = b.a AND xbid.ident = 'branch/bid'
GROUP BY b.v
