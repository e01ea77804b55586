# Added to apply.hcl by the metrics endpoint's test (TestMetricsPrometheus),
# with metrics_override.hcl: a sustained point whose windows, each with its
# histogram, are watched as they come.
scenario "soak" {
  kind       = "sustained"
  duration_s = 1.5
  window_s   = 0.5
  clients    = 1
  read {
    query = query.name
  }
}
