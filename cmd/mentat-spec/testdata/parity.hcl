# Added to specs/full.hcl by BenchmarkClientModels: one query (q1, a
# unique-attribute lookup) at each client count, so that the goroutine and
# process client models are compared on calls of one kind rather than on
# the median of a mix.
scenario "parity_q1" {
  description = "q1 alone at every client count"
  clients     = var.clients
  read {
    query = query.q1
  }
}
