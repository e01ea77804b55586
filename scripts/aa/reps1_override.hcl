# One rep per point (scripts/aa.sh): compare must say it cannot decide.
sampling {
  reps  = 1
  min_s = 0.5
  max_s = 1
}
