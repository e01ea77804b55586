# The seed suite's order of reps, each point's back to back (scripts/aa.sh with
# AA_OVERRIDE=scripts/aa/sequential_override.hcl): to compare the A/A
# false-alarm rate with the default interleaved order.
sampling {
  order = "sequential"
}
