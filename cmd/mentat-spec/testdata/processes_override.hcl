# Added to examples/open-loop.hcl by TestApplyOpenLoopProcesses: the
# connections serving q1's arrivals run in two worker processes, each
# calling at its share of the rate.
backend "sqlite" {
  processes = 2
}
