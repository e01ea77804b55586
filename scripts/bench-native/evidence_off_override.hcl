# The engine's tpcb-like without its evidence (bench-native.sh, unless
# BENCH_TPCB_EVIDENCE=on): pgbench samples nothing, so neither does the
# engine. With evidence on, a wait sampler queries pg_stat_activity every
# 200 ms on a connection of its own during the point, in the engine's
# process (its client CPU) and on the server both clients share.
sampling {
  evidence = false
}
