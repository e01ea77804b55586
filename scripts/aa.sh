#!/usr/bin/env bash
# aa.sh [aa [PAIRS] | spread [PAIRS] | ab | paired | history [RUNS]]: calibrates `mentat-spec compare` on the
# quickstart (SQLite, scale xs) with 5 reps per point (scripts/aa/reps5_override.hcl).
#
#   aa  (default; `make aa`) runs AA_CALIBRATE (default 4) calibration runs,
#       then PAIRS (default 5) pairs of back-to-back runs of the unchanged
#       quickstart, and compares each pair with the run-to-run variation
#       estimated from the calibration runs (compare -calibrate): every
#       compare must exit 0 with no regression. Each pair is compared
#       without the calibration too, which shows how often the assumption
#       of no run-level effect fails here (not a gate). Then one pair with reps = 1
#       (scripts/aa/reps1_override.hcl): compare must say it cannot decide and
#       exit 0. Prints each pair's load average and the false-alarm rate
#       (metrics flagged / metrics compared), and the seed suite's threshold rule
#       on the same pairs for comparison.
#   spread [PAIRS]
#       the same A/A, but each side's 5 reps come from 5 runs with reps = 1
#       (raw.csv rows merged as reps 1..5): the reps of a point spread over
#       a minute. Shows how much of the A/A noise is slow drift of the
#       machine; the runner's interleaved order (the default) spreads reps
#       within one run.
#   ab  runs the quickstart with -var avet=false against a normal run and
#       checks that compare refuses (exit 6, avet listed), that with -force
#       it flags point_lookup as a regression (exit 5), and that the
#       reverse direction reports an improvement (exit 0).
#   paired
#       the same A/B in one run: the quickstart's SQLite store and one
#       without the AVET indexes (scripts/aa/noavet_variant.hcl) as two
#       backends, their reps alternating point by point (order = "paired");
#       `compare RUN -variants sqlite,sqlite_noavet` must flag point_lookup
#       (exit 5) and list the variants' after_load as what they change.
#   history [RUNS]
#       RUNS (default: PAIRS' default, 5; the release history's check uses
#       20) runs added to a history one by one, `history check` quiet
#       (exit 0) on each; then 3 runs with -var avet=false: the first is a
#       regression change point (exit 5) naming point_lookup and avet, the
#       next two are not new ones (exit 0).
#
# AA_NOISE=N runs N busy loops beside the runs (a shared CI host), killed
# by their pids when the script ends: compare must then be quiet or say it
# cannot decide, with the machine's noise as its reason.
# AA_OVERRIDE names one more override file for every run (e.g.
# scripts/aa/sequential_override.hcl: the seed suite's order of reps). Everything goes to a fresh temporary
# directory (AA_DIR to choose it), kept for reading afterwards. Exits 1
# when an expectation is not met.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
mode=${1:-aa}
pairs=${2:-5}
work=${AA_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mentat-spec-aa.XXXXXX")}
mkdir -p "$work"
echo "aa.sh: working in $work" >&2
extra=()
if [[ -n ${AA_OVERRIDE:-} ]]; then
	extra=("$(cd "$(dirname "$AA_OVERRIDE")" && pwd)/$(basename "$AA_OVERRIDE")")
fi

bin=$work/mentat-spec
(cd "$repo" && go build -o "$bin" ./cmd/mentat-spec)

busy=()
stop_busy() { for p in ${busy[@]+"${busy[@]}"}; do kill "$p" 2>/dev/null || true; done; }
trap stop_busy EXIT
for _ in $(seq 1 "${AA_NOISE:-0}"); do
	sh -c 'while :; do :; done' &
	busy+=("$!")
done

spec=$repo/examples/quickstart.hcl
reps=$repo/scripts/aa/reps5_override.hcl

loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }

# run NAME DATA [ARGS...]: one quickstart run into $work/NAME.
run() {
	local name=$1 data=$2
	shift 2
	"$bin" apply "$spec" "$reps" ${extra[@]+"${extra[@]}"} -data "$work/$data" -o "$work/$name" -q "$@" >"$work/$name.log" 2>&1 || {
		echo "aa.sh: run $name failed, see $work/$name.log" >&2
		exit 1
	}
}

# cmp OLD NEW [FLAGS...]: compare, output to $work/cmp-OLD-NEW.txt; sets rc.
cmp() {
	local out="$work/cmp-$1-$2${3:+$3}.txt"
	set +e
	"$bin" compare "$work/$1" "$work/$2" "${@:3}" >"$out" 2>&1
	rc=$?
	set -e
	last=$out
}

# merge NAME: builds $work/NAME from runs NAME.1..NAME.5 (reps = 1 each).
merge() {
	local name=$1 i
	mkdir -p "$work/$name"
	cp "$work/$name.1/env.txt" "$work/$name.1/timings.csv" "$work/$name/"
	head -n 1 "$work/$name.1/raw.csv" >"$work/$name/raw.csv"
	for i in 1 2 3 4 5; do
		# rep is the 7th column of raw.csv.
		tail -n +2 "$work/$name.$i/raw.csv" | awk -F, -v OFS=, -v r="$i" '{ $7 = r; print }' >>"$work/$name/raw.csv"
	done
}

case $mode in
spread)
	reps=$repo/scripts/aa/reps1_override.hcl
	run load data -phase load
	alarms=0
	metrics=0
	regressions=0
	for i in $(seq 1 "$pairs"); do
		for side in a b; do
			for r in 1 2 3 4 5; do
				run "s$side$i.$r" data
			done
			merge "s$side$i"
		done
		cmp "sa$i" "sb$i"
		n=$(grep -c 'REGRESSION' "$last" || true)
		m=$(sed -n 's/^\([0-9]*\) metrics:.*/\1/p' "$last")
		metrics=$((metrics + m))
		regressions=$((regressions + n))
		[[ $rc == 0 ]] || alarms=$((alarms + 1))
		echo "pair $i: exit $rc, $n regression lines of $m metrics; load average $(loadavg)"
	done
	echo "A/A with spread reps: $alarms of $pairs compares exited non-zero; $regressions of $metrics metrics flagged as regressions"
	[[ $alarms == 0 ]]
	;;
aa)
	# Load once so that every measured run reuses the same store.
	run load data -phase load
	alarms=0
	metrics=0
	regressions=0
	improvements=0
	talarms=0
	tregressions=0
	ualarms=0
	uregressions=0
	# Calibration: A/A runs before the pairs, never the runs judged.
	calib=()
	for c in $(seq 1 "${AA_CALIBRATE:-4}"); do
		run "c$c" data
		calib+=(-calibrate "$work/c$c")
	done
	echo "calibration: ${AA_CALIBRATE:-4} runs; load average $(loadavg)"
	for i in $(seq 1 "$pairs"); do
		before=$(loadavg)
		run "a$i" data
		run "b$i" data
		# Without the calibration: how often one run per side with no
		# run-level effect assumed is wrong here.
		cmp "a$i" "b$i"
		un=$(sed -n 's/^[0-9]* metrics: \([0-9]*\) regressions.*/\1/p' "$last")
		[[ $rc == 0 ]] || ualarms=$((ualarms + 1))
		uregressions=$((uregressions + un))
		urc=$rc
		cmp "a$i" "b$i" "${calib[@]}"
		n=$(sed -n 's/^[0-9]* metrics: \([0-9]*\) regressions.*/\1/p' "$last")
		m=$(sed -n 's/^\([0-9]*\) metrics:.*/\1/p' "$last")
		im=$(sed -n 's/^[0-9]* metrics: [0-9]* regressions, \([0-9]*\) improvements.*/\1/p' "$last")
		metrics=$((metrics + m))
		regressions=$((regressions + n))
		improvements=$((improvements + im))
		[[ $rc == 0 ]] || alarms=$((alarms + 1))
		summary="exit $rc, $n of $m metrics flagged as regressions and $im as improvements ($(grep -c 'no significant change$' "$last" || true) no significant change, $(grep -c 'within threshold$' "$last" || true) within threshold, $(grep -c 'cannot decide (noise):' "$last" || true) cannot decide for noise); noise: $(sed -n 's/^machine noise OLD: other processes \([0-9.]*%\).*/OLD \1/p' "$last") $(sed -n 's/^machine noise NEW: other processes \([0-9.]*%\).*/NEW \1/p' "$last")"
		# The seed suite's rule on the same pair, for comparison.
		cmp "a$i" "b$i" -method threshold
		tn=$(grep -c 'REGRESSION' "$last" || true)
		[[ $rc == 0 ]] || talarms=$((talarms + 1))
		tregressions=$((tregressions + tn))
		echo "pair $i: $summary; uncalibrated: exit $urc, $un regressions; threshold method: exit $rc, $tn regressions; load average $before before, $(loadavg) after"
	done
	pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", b ? 100 * a / b : 0 }'; }
	echo "A/A: $alarms of $pairs compares exited non-zero; false-alarm rate: $regressions of $metrics metrics flagged as regressions ($(pct "$regressions" "$metrics")), $((regressions + improvements)) in either direction ($(pct $((regressions + improvements)) "$metrics"))"
	echo "A/A, uncalibrated (one run per side, no run-level effect assumed): $ualarms of $pairs compares exited non-zero; $uregressions regressions"
	echo "A/A, threshold method: $talarms of $pairs compares exited non-zero; $tregressions regressions"
	# reps = 1: nothing to decide with, and compare must say so.
	reps=$repo/scripts/aa/reps1_override.hcl
	run one1 data
	run one2 data
	cmp one1 one2
	undecided=0
	if [[ $rc == 0 ]] && grep -q '^cannot decide [0-9]* metrics: too few reps' "$last"; then
		echo "reps = 1: exit 0, $(grep '^cannot decide' "$last")"
	else
		echo "reps = 1: exit $rc, want 0 with \"cannot decide\" ($last)"
		undecided=1
	fi
	[[ $alarms == 0 && $undecided == 0 ]]
	;;
ab)
	run A data
	run B data-noavet -var avet=false
	fail=0
	cmp A B
	if [[ $rc == 6 ]] && grep -q '^  var.avet ' "$last"; then
		echo "A -> B without -force: refused (exit 6), avet listed"
	else
		echo "A -> B without -force: exit $rc, want 6 with var.avet listed ($last)"
		fail=1
	fi
	cmp A B -force
	if [[ $rc == 5 ]] && grep -A3 '^point_lookup sqlite' "$last" | grep -q 'REGRESSION$'; then
		echo "A -> B -force: exit 5, point_lookup flagged: $(grep -A3 '^point_lookup sqlite' "$last" | grep 'REGRESSION$' | head -1 | tr -s ' ')"
	else
		echo "A -> B -force: exit $rc, want 5 with a point_lookup regression ($last)"
		fail=1
	fi
	cmp B A -force
	if [[ $rc == 0 ]] && grep -A3 '^point_lookup sqlite' "$last" | grep -q 'improvement$'; then
		echo "B -> A -force: exit 0, point_lookup improved: $(grep -A3 '^point_lookup sqlite' "$last" | grep 'improvement$' | head -1 | tr -s ' ')"
	else
		echo "B -> A -force: exit $rc, want 0 with a point_lookup improvement ($last)"
		fail=1
	fi
	exit $fail
	;;
paired)
	extra+=("$repo/scripts/aa/noavet_variant.hcl" "$repo/scripts/aa/paired_override.hcl")
	run P data -var 'backends=["sqlite","sqlite_noavet"]'
	last="$work/cmp-P-variants.txt"
	set +e
	"$bin" compare "$work/P" -variants sqlite,sqlite_noavet >"$last" 2>&1
	rc=$?
	set -e
	if [[ $rc == 5 ]] && grep -A3 '^point_lookup sqlite' "$last" | grep -q 'REGRESSION$'; then
		echo "paired, sqlite -> sqlite_noavet: exit 5, point_lookup flagged: $(grep -A3 '^point_lookup sqlite' "$last" | grep 'REGRESSION$' | head -1 | tr -s ' '); load average $(loadavg)"
	else
		echo "paired, sqlite -> sqlite_noavet: exit $rc, want 5 with a point_lookup regression ($last)"
		exit 1
	fi
	;;
history)
	# RUNS A/A runs added to a history one by one, each checked, then 3
	# runs without the AVET indexes: only the first of those may be a
	# regression change point, and it must name point_lookup and avet.
	# AA_HISTORY_RUNS lists results directories of this spec (reps 5) to
	# use as the A/A runs instead of running them, oldest first.
	db=$work/history.db
	hfail=0
	hadd() { "$bin" history -db "$db" add "$work/$1" >"$work/history-add-$1.txt" 2>&1 || { echo "aa.sh: history add $1 failed" >&2; exit 1; }; }
	hcheck() { # NAME WANT
		set +e
		"$bin" history -db "$db" check "$work/$1" >"$work/history-check-$1.txt" 2>&1
		rc=$?
		set -e
		if [[ $rc != "$2" ]]; then
			echo "history check $1: exit $rc, want $2 ($work/history-check-$1.txt)"
			hfail=1
		fi
	}
	aaruns=()
	if [[ -n ${AA_HISTORY_RUNS:-} ]]; then
		for d in $AA_HISTORY_RUNS; do
			n=aa-$(basename "$d")
			cp -r "$d" "$work/$n"
			aaruns+=("$n")
		done
	else
		run load data -phase load
		for i in $(seq 1 "$pairs"); do
			run "h$i" data
			aaruns+=("h$i")
		done
	fi
	for n in "${aaruns[@]}"; do hadd "$n" && hcheck "$n" 0; done
	echo "history: ${#aaruns[@]} A/A runs added one by one, checks that were not quiet: $hfail (1: some); load average $(loadavg)"
	for i in 1 2 3; do
		run "noavet$i" data-noavet -var avet=false
		hadd "noavet$i"
		set +e
		"$bin" history -db "$db" check "$work/noavet1" >/dev/null 2>&1
		echo "history check noavet1 with $i run(s) without AVET added: exit $?"
		set -e
	done
	# With all three in: the change starts at the first, the others are
	# not new change points.
	hcheck noavet1 5
	hcheck noavet2 0
	hcheck noavet3 0
	if grep -q point_lookup "$work/history-check-noavet1.txt" && grep -q avet "$work/history-check-noavet1.txt"; then
		echo "history check noavet1: exit 5, $(grep -m1 point_lookup "$work/history-check-noavet1.txt" | tr -s ' ')"
	else
		echo "history check noavet1: does not name point_lookup and avet ($work/history-check-noavet1.txt)"
		hfail=1
	fi
	"$bin" history -db "$db" report -markdown >"$work/history-report.md" 2>&1 || hfail=1
	echo "history report: $(grep -c . "$work/history-report.md") lines, $work/history-report.md"
	exit $hfail
	;;
*)
	echo "usage: $0 [aa [PAIRS] | spread [PAIRS] | ab | paired | history [RUNS]]" >&2
	exit 2
	;;
esac
