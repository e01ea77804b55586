# Added to apply.hcl by the metrics endpoint's test (TestMetricsPrometheus),
# with metrics.hcl: the lookup at 1 and 2 clients, about a second a point
# with one rep (so a point's calls are its timings.csv count).
sampling {
  min_s = 1
  min_n = 30
  max_s = 1.5
}

scenario "lookup" {
  clients = [1, 2]
}
