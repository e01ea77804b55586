# The progress test's changes to apply.hcl: each point a little over two
# seconds, at 1 and 2 clients, so that -progress-s 1 prints interval lines
# during it.
sampling {
  min_s = 2.2
  max_s = 2.2
}

scenario "lookup" {
  clients = [1, 2]
}
