# The paired order: each point's reps alternate between the run's backends
# (scripts/aa.sh paired).
sampling {
  order = "paired"
}
