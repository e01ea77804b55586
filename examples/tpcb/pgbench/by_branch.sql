-- The sum of the account balances per branch, keyed by the dataset's
-- branch/bid (seq("b%d") from 0: bid 1 is "b0"). Columns bid, total.
SELECT 'b' || (bid - 1) AS bid, SUM(abalance) AS total
FROM pgbench_accounts
GROUP BY bid
