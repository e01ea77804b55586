#!/usr/bin/env bash
# scale-costs.sh RESULTS_DIR [TARGET_DATOMS]: what each datom costs at
# every scale a run measured, and what that makes of a larger scale, as
# markdown for BENCHMARKS.md.
#
#   scripts/scale-costs.sh docs/runs/2026-12-02-l/results 303000000
#
# From loads.csv: per backend and scale, the load's ns per datom, the
# after-load SQL (post_load_s + analyze_s + vacuum_s) and its share of the
# whole load, and the store's bytes per datom. From timings.csv: each
# scenario's p50 at its first point (op read, write or total) per scale,
# and its growth between the two largest scales as an exponent of the
# datoms (p50 ~ datoms^k: 0 flat, 1 linear). With TARGET_DATOMS, both
# extrapolated from the largest scale measured: the load and the store per
# datom as there, each p50 by its exponent. An extrapolation, not a
# measurement: a plan that changes (a hash join spilling, an index that
# stops fitting) breaks it, and the tables say from which scales it came.
set -euo pipefail
dir=${1:?usage: $0 RESULTS_DIR [TARGET_DATOMS]}
target=${2:-0}
loads=$dir/loads.csv
timings=$dir/timings.csv
for f in "$loads" "$timings"; do
	[[ -f $f ]] || { echo "$0: $f not found" >&2; exit 2; }
done
[[ $(head -n 1 "$loads") == backend,scale,n_datoms,wall_s,datoms_per_s,post_load_s,analyze_s,vacuum_s,size_bytes,jobs,ceiling ]] ||
	{ echo "$0: $loads: unexpected header" >&2; exit 2; }
[[ $(head -n 1 "$timings") == scenario,backend,scale,n_datoms,clients,op,count,p50_ms,p95_ms,p99_ms,max_ms,throughput_ops_s,errors,reps ]] ||
	{ echo "$0: $timings: unexpected header" >&2; exit 2; }

# Loads: the last row of each (backend, scale), ceilings left out.
tail -n +2 "$loads" | awk -F, -v target="$target" '
function human(b) { return b >= 2^30 ? sprintf("%.1f GiB", b / 2^30) : sprintf("%.0f MiB", b / 2^20) }
function hms(s) { return s >= 3600 ? sprintf("%dh%02dm", s / 3600, (s % 3600) / 60) : sprintf("%dm%02ds", s / 60, s % 60) }
$11 != "1" {
	k = $1 SUBSEP $2
	if (!(k in wall)) { order[++n] = k }
	wall[k] = $4; after[k] = $6 + $7 + $8; datoms[k] = $3; size[k] = $9
	if (!($1 in biggest) || $3 + 0 > datoms[$1 SUBSEP biggest[$1]] + 0) { biggest[$1] = $2 }
	if (!($1 in seen)) { seen[$1] = 1; backends[++nb] = $1 }
}
END {
	print "| backend | scale | datoms | load | ns per datom | after-load SQL | its share | bytes per datom | store |"
	print "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, f, SUBSEP)
		total = wall[k] + after[k]
		printf "| %s | %s | %d | %.1f s | %.0f | %.1f s | %.0f%% | %s | %s |\n", f[1], f[2], datoms[k], total,
			1e9 * total / datoms[k], after[k], (total > 0 ? 100 * after[k] / total : 0),
			(size[k] == "" ? "" : sprintf("%.0f", size[k] / datoms[k])), (size[k] == "" ? "" : human(size[k]))
	}
	if (target > 0) {
		printf "\nAt %d datoms, per datom as at each backend'\''s largest scale measured:\n\n", target
		print "| backend | from | load and after-load SQL | store |"
		print "| --- | --- | ---: | ---: |"
		for (i = 1; i <= nb; i++) {
			b = backends[i]; k = b SUBSEP biggest[b]
			t = (wall[k] + after[k]) / datoms[k] * target
			s = (size[k] == "" ? 0 : size[k] / datoms[k] * target)
			sum += s
			printf "| %s | %s | %s | %s |\n", b, biggest[b], hms(t), (s > 0 ? human(s) : "")
		}
		printf "\nStores at %d datoms: %s in all.\n", target, human(sum)
	}
}'
echo
# p50 growth: each scenario's first point (clients ascending) and op.
tail -n +2 "$timings" | awk -F, -v target="$target" '
$6 != "ceiling" && $6 !~ /^(open|cold_|warm_)/ {
	k = $2 SUBSEP $1 SUBSEP $6
	if (!(k in first) || $5 + 0 < first[k] + 0) { first[k] = $5 }
	row[k, $5, $3] = $8; nd[$3] = $4
	if (!(k in seenk)) { seenk[k] = 1; keys[++n] = k }
	if (!($3 in seens)) { seens[$3] = 1; scales[++ns] = $3 }
}
END {
	# scales in the order of their datoms
	for (i = 1; i <= ns; i++) for (j = i + 1; j <= ns; j++) if (nd[scales[j]] + 0 < nd[scales[i]] + 0) { t = scales[i]; scales[i] = scales[j]; scales[j] = t }
	head = "| backend | scenario | op | clients |"; rule = "| --- | --- | --- | ---: |"
	for (i = 1; i <= ns; i++) { head = head " p50 " scales[i] " ms |"; rule = rule " ---: |" }
	head = head " growth k |"; rule = rule " ---: |"
	if (target > 0) { head = head " p50 at " target " datoms ms |"; rule = rule " ---: |" }
	print "0\t" head; print "1\t" rule
	for (i = 1; i <= n; i++) {
		k = keys[i]; split(k, f, SUBSEP); c = first[k]
		line = "| " f[1] " | " f[2] " | " f[3] " | " c " |"
		hi = ""; lo = ""
		for (j = 1; j <= ns; j++) {
			v = row[k, c, scales[j]]
			line = line " " (v == "" ? "" : sprintf("%.3f", v)) " |"
			if (v != "" && v > 0) { lo = hi; hi = j }
		}
		kexp = ""
		if (lo != "" && hi != "") {
			kexp = log(row[k, c, scales[hi]] / row[k, c, scales[lo]]) / log(nd[scales[hi]] / nd[scales[lo]])
		}
		line = line " " (kexp == "" ? "" : sprintf("%.2f", kexp)) " |"
		if (target > 0) {
			x = (kexp == "" ? "" : row[k, c, scales[hi]] * (target / nd[scales[hi]]) ^ kexp)
			line = line " " (x == "" ? "" : sprintf("%.3f", x)) " |"
		}
		print "2\t" line
	}
}' | sort -t$'\t' -k1,1n -k2,2 | cut -f2-
