#!/usr/bin/env bash
# plan-equality.sh OLD_BIN NEW_BIN [CASE...]
#
# Applies every example and specs/full.hcl at xs with two builds of
# mentat-spec, one after the other, and compares what the plan decides:
# checks.txt (each check's verdict and name; measured counts may differ;
# cross-backend lines are shown, not counted, see verdicts below),
# timings.csv row keys (every column before the measured ones) and
# fingerprints.json. Run from the repository root. Exits 1 when a case
# differs, 2 on a usage error.
#
# PostgreSQL cases run when MENTAT_SPEC_PG_DSN is set. Each PostgreSQL
# database gets a name of this run's own (an override file beside the
# spec), so no database another run uses is touched; the script drops
# the databases it created when it ends. cold_vs_warm never restarts the
# server (pg_server_restart = off). Sampling is short where a variable
# allows it.
#
#   scripts/plan-equality.sh /tmp/old/mentat-spec bin/mentat-spec
#   scripts/plan-equality.sh OLD NEW quickstart ycsb   # some cases only
set -u

if [ $# -lt 2 ]; then
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
shift 2
for b in "$old" "$new"; do
	[ -x "$b" ] || { echo "plan-equality: $b is not an executable" >&2; exit 2; }
done
[ -d specs/mentat ] || { echo "plan-equality: run from the repository root" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/plan-equality.XXXXXX")
tag="pe$(date +%s)_$$"
echo "plan-equality: results under $work, PostgreSQL databases ${tag}_*"

backends='["sqlite","duckdb"]'
openloop='["sqlite"]' # open-loop.hcl declares no duckdb backend
if [ -n "${MENTAT_SPEC_PG_DSN:-}" ]; then
	backends='["sqlite","duckdb","postgres"]'
	openloop='["sqlite","postgres"]'
fi

# override FILE DB: an override of the postgres backend's database.
override() {
	cat >"$1" <<EOF
backend "postgres" {
  database = "${tag}_$2_\${scale.name}"
}
EOF
}

# case NAME ARGS...: the spec paths and variables of one case.
cases=(
	"quickstart|examples/quickstart.hcl|-var backends=$backends -var reps=1"
	"open-loop|examples/open-loop.hcl|-var backends=$openloop -var duration_s=2"
	"fleet|examples/fleet|-var backends=$backends"
	"library|examples/library|-var backends=$backends"
	"tpcb|examples/tpcb|-var backends=$backends -var accounts_per_branch=1000 -var calls=200"
	"ycsb|examples/ycsb|-var backends=$backends -var calls=500 -var scan_calls=100 -var reps=1"
	"full-xs|specs/full.hcl|-var scales=[\"xs\"] -var backends=$backends -var clients=[1,4] -var min_s=0.1 -var max_s=1 -var min_n=5 -var reps=1 -var mixed_s=2 -var pg_server_restart=off -var probe_s=20"
)
if [ -n "${MENTAT_SPEC_PG_DSN:-}" ] && command -v pgbench >/dev/null; then
	cases+=("tpcb-pgbench|examples/tpcb examples/tpcb/pgbench|-var accounts_per_branch=1000 -var calls=200 -var pgbench_database=${tag}_pgbench")
fi

# keys FILE: timings.csv rows cut before the first measured column
# (count: the columns before it say which point a row is).
keys() {
	awk -F, 'NR==1 { n=NF; for (i=1;i<=NF;i++) if ($i == "count") { n=i-1; break } }
		{ s=$1; for (i=2;i<=n;i++) s=s","$i; print s }' "$1" | sort
}

# verdicts FILE: each check line's verdict and name (scenario, backends,
# scale, check), what follows the colon (the counts) dropped. Cross-backend
# lines and the total are left to cross: whether a scenario with writes
# gets a cross-backend line depends on every backend having committed the
# same writes in that run (a timed run commits as many as it has time
# for), so they differ between two runs of one build too.
verdicts() {
	grep -E '^(PASS|FAIL|SKIP|ERROR)' "$1" | grep -v '(cross-backend)' | sed 's/:.*//' | sort
}

cross() {
	grep -E '(cross-backend)' "$1" | sed 's/:.*//' | sort
}

fail=0
selected=("$@")
for c in "${cases[@]}"; do
	IFS='|' read -r name paths vars <<<"$c"
	if [ ${#selected[@]} -gt 0 ]; then
		found=0
		for s in "${selected[@]}"; do [ "$s" = "$name" ] && found=1; done
		[ $found = 1 ] || continue
	fi
	ov="$work/$name/pe_override.hcl"
	mkdir -p "$work/$name"
	override "$ov" "$(echo "$name" | tr -c 'a-z0-9\n' '_')"
	extra="$ov"
	case "$name" in tpcb-pgbench) extra="" ;; esac
	for side in old new; do
		bin=$old
		[ $side = new ] && bin=$new
		out="$work/$name/$side"
		# shellcheck disable=SC2086 # paths and vars are word lists
		"$bin" apply $paths $extra $vars -reload -q -progress-s 0 \
			-data "$out-data" -o "$out" >"$out.log" 2>&1
		echo $? >"$out.rc"
	done
	d="$work/$name"
	verdict=same
	if ! cmp -s "$d/old.rc" "$d/new.rc"; then
		echo "$name: exit $(cat "$d/old.rc") before, $(cat "$d/new.rc") now"
		verdict=differs
	fi
	for f in checks.txt timings.csv fingerprints.json; do
		if [ ! -f "$d/old/$f" ] && [ ! -f "$d/new/$f" ]; then
			continue
		fi
		if [ ! -f "$d/old/$f" ] || [ ! -f "$d/new/$f" ]; then
			echo "$name: $f written by one build only"
			verdict=differs
			continue
		fi
		case $f in
		checks.txt) a=$(verdicts "$d/old/$f"); b=$(verdicts "$d/new/$f") ;;
		timings.csv) a=$(keys "$d/old/$f"); b=$(keys "$d/new/$f") ;;
		*) a=$(cat "$d/old/$f"); b=$(cat "$d/new/$f") ;;
		esac
		if [ "$a" != "$b" ]; then
			echo "$name: $f differs:"
			diff <(echo "$a") <(echo "$b") | head -20
			verdict=differs
		fi
	done
	if [ -f "$d/old/checks.txt" ] && [ -f "$d/new/checks.txt" ] &&
		[ "$(cross "$d/old/checks.txt")" != "$(cross "$d/new/checks.txt")" ]; then
		echo "$name: note: cross-backend lines differ (they exist only where every backend committed the same writes; compare NEW with itself to see whether a run alone changes them):"
		diff <(cross "$d/old/checks.txt") <(cross "$d/new/checks.txt") | head -10
	fi
	echo "$name: $verdict (exit $(cat "$d/new.rc"); $(verdicts "$d/new/checks.txt" 2>/dev/null | wc -l) checks, $(keys "$d/new/timings.csv" 2>/dev/null | sed 1d | wc -l) timings rows)"
	[ $verdict = same ] || fail=1
done

if [ -n "${MENTAT_SPEC_PG_DSN:-}" ]; then
	for db in $(psql "$MENTAT_SPEC_PG_DSN" -Atc "SELECT datname FROM pg_database WHERE datname LIKE '${tag}\\_%'" 2>/dev/null); do
		psql "$MENTAT_SPEC_PG_DSN" -qc "DROP DATABASE \"$db\"" >/dev/null 2>&1 || echo "plan-equality: could not drop $db"
	done
fi
exit $fail
