# The A/A and A/B gate's sampling (scripts/aa.sh, make aa): the quickstart
# with five reps per point, so compare can decide (it needs at least four
# on each side), and short reps so a pair of runs takes well under a
# minute. An override file: it changes only these attributes of the
# quickstart's sampling block.
sampling {
  reps  = 5
  min_s = 0.5
  max_s = 1
}
