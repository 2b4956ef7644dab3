package duckstrata

// TPC-H queries 1 and 6 over strata/tpch's lineitem, whose decimal columns
// are BIGINT counts of cents (l_quantity 1700 is 17.00, l_discount 6 is
// 0.06). The arithmetic is the specification's scaled to integers so that
// every engine computes it exactly: in Q1, sum_disc_price is in units of
// 10^-4 and sum_charge of 10^-6; in Q6, revenue is in units of 10^-4. The
// %s is the table (a path in quotes, a table name, a read_parquet call).
const (
	TPCHQ1 = `SELECT l_returnflag, l_linestatus,
    sum(l_quantity) AS sum_qty,
    sum(l_extendedprice) AS sum_base_price,
    sum(l_extendedprice * (100 - l_discount)) AS sum_disc_price,
    sum(l_extendedprice * (100 - l_discount) * (100 + l_tax)) AS sum_charge,
    avg(l_quantity) AS avg_qty,
    avg(l_extendedprice) AS avg_price,
    avg(l_discount) AS avg_disc,
    count(*) AS count_order
FROM %s
WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL 90 DAY
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus`

	TPCHQ6 = `SELECT sum(l_extendedprice * l_discount) AS revenue
FROM %s
WHERE l_shipdate >= DATE '1994-01-01'
  AND l_shipdate < DATE '1994-01-01' + INTERVAL 1 YEAR
  AND l_discount BETWEEN 6 - 1 AND 6 + 1
  AND l_quantity < 2400`
)
