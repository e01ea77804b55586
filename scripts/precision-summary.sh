#!/usr/bin/env bash
# precision-summary.sh RESULTS_DIR: a markdown summary of a run's
# precision.csv (how precisely each rep knew its p50 when it stopped, and
# why it stopped), one line per point, for BENCHMARKS.md.
#
#   scripts/precision-summary.sh results/scale-20261130T170000Z >>notes.md
#
# Columns: the point; its reps; the calls per rep (smallest and largest);
# the widest 95% interval of p50 over its reps, as +- percent of p50 (inf:
# too few calls to bracket it); how its reps stopped (precision, max,
# min = the fixed method, interrupted). Then one line over all points.
set -euo pipefail
dir=${1:?usage: $0 RESULTS_DIR}
csv=$dir/precision.csv
[[ -f $csv ]] || { echo "$0: $csv not found" >&2; exit 2; }
want="scenario,backend,scale,clients,op,rep,n,p50_ms,p50_rel_ci,p99_ms,p99_rel_ci,stopped_by"
[[ $(head -n 1 "$csv") == "$want"* ]] || { echo "$0: $csv: unexpected header" >&2; exit 2; }
tail -n +2 "$csv" | awk -F, '
function pct(x) { return x == "" ? "inf" : sprintf("%.1f%%", 100 * x) }
{
	key = $3 SUBSEP $2 SUBSEP $1 SUBSEP $4 SUBSEP $5
	if (!(key in reps)) { order[++npoints] = key; nmin[key] = $7; nmax[key] = $7; worst[key] = $9 }
	reps[key]++
	if ($7 + 0 < nmin[key] + 0) nmin[key] = $7
	if ($7 + 0 > nmax[key] + 0) nmax[key] = $7
	# An empty interval is unbounded: the widest there is.
	if (worst[key] != "" && ($9 == "" || $9 + 0 > worst[key] + 0)) worst[key] = $9
	stop[key, $12]++
	total[$12]++
	all++
	if ($9 != "" && $9 + 0 <= 0.05) within5++
}
END {
	print "| scale | backend | scenario | clients | op | reps | calls per rep | p50 known within (widest rep) | stopped by |"
	print "| --- | --- | --- | ---: | --- | ---: | ---: | ---: | --- |"
	split("precision max min interrupted", kinds, " ")
	for (i = 1; i <= npoints; i++) {
		k = order[i]
		split(k, f, SUBSEP)
		how = ""
		for (j = 1; j <= 4; j++) if (stop[k, kinds[j]]) how = how (how == "" ? "" : ", ") kinds[j] " " stop[k, kinds[j]]
		range_ = nmin[k] == nmax[k] ? nmin[k] : nmin[k] "-" nmax[k]
		printf "| %s | %s | %s | %s | %s | %d | %s | +-%s | %s |\n", f[1], f[2], f[3], f[4], f[5], reps[k], range_, pct(worst[k]), how
	}
	how = ""
	for (j = 1; j <= 4; j++) if (total[kinds[j]]) how = how (how == "" ? "" : ", ") total[kinds[j]] " by " kinds[j]
	printf "\n%d points, %d reps: %s; %d reps (%.0f%%) knew p50 within +-5%%.\n", npoints, all, how, within5, all ? 100 * within5 / all : 0
}'
