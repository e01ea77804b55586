#!/usr/bin/env bash
# prometheus.sh: a throwaway Prometheus server for the metrics endpoint's
# test (cmd/mentat-spec TestMetricsPrometheus) and for watching a run.
#
#   scripts/prometheus.sh install          make sure prometheus is on PATH: in CI
#                                          (CI set) Debian's package is installed
#                                          as root; elsewhere a missing one is
#                                          only reported (the test then skips)
#   scripts/prometheus.sh up DIR TARGET    start a server in DIR (created) that
#                                          scrapes http://TARGET/metrics every
#                                          0.5 s, listening on a free port of
#                                          127.0.0.1; prints its URL
#   scripts/prometheus.sh down DIR         stop it and delete DIR
#
# Environment:
#   MENTAT_SPEC_PROM_NATIVE  1 (default): --enable-feature=native-histograms
#                            where the version has it (2.40 on), so the
#                            server negotiates protobuf and keeps native
#                            histograms; 0: text scrapes, classic buckets
#   MENTAT_SPEC_PROM_PORT    port to listen on instead of a free one
#
# TARGET must be on this machine (127.0.0.1 or [::1]): the server sends no
# traffic elsewhere. It keeps its data in DIR/data for an hour at most.
set -euo pipefail

die() {
	echo "prometheus.sh: $*" >&2
	exit 1
}

install() {
	if command -v prometheus >/dev/null 2>&1; then
		return 0
	fi
	if [ -z "${CI:-}" ]; then
		echo "prometheus.sh: no prometheus on PATH: the metrics endpoint's Prometheus test will skip (install it: apt-get install prometheus)" >&2
		return 0
	fi
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		die "CI needs prometheus for the metrics endpoint's test: run as root on Debian, or install it first"
	fi
	echo "prometheus.sh: installing prometheus (apt-get)" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# The package's service is not started: tests start their own server.
	apt-get install -y -qq --no-install-recommends prometheus >/dev/null
	command -v prometheus >/dev/null
}

# listening reports whether something accepts connections on 127.0.0.1:$1.
listening() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

free_port() {
	local p i
	for i in $(seq 1 50); do
		p=$((20000 + RANDOM % 20000))
		if ! listening "$p"; then
			echo "$p"
			return
		fi
	done
	die "no free port found"
}

# native_flag prints the feature flag when this prometheus has native
# histograms (2.40 and later).
native_flag() {
	[ "${MENTAT_SPEC_PROM_NATIVE:-1}" = 1 ] || return 0
	local v major minor
	v=$(prometheus --version 2>&1 | sed -n 's/^prometheus, version \([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p' | head -1)
	read -r major minor <<<"$v"
	if [ -n "$major" ] && { [ "$major" -gt 2 ] || { [ "$major" -eq 2 ] && [ "$minor" -ge 40 ]; }; }; then
		echo "--enable-feature=native-histograms"
	fi
}

up() {
	local dir=$1 target=$2 port host
	command -v prometheus >/dev/null 2>&1 || die "no prometheus on PATH (scripts/prometheus.sh install)"
	host=${target%:*}
	case $host in
	127.* | localhost | "[::1]") ;;
	*) die "target $target is not on this machine (127.0.0.1 or [::1])" ;;
	esac
	mkdir -p "$dir/data"
	port=${MENTAT_SPEC_PROM_PORT:-$(free_port)}
	cat >"$dir/prometheus.yml" <<YAML
global:
  scrape_interval: 500ms
  scrape_timeout: 500ms
  evaluation_interval: 10s
scrape_configs:
  - job_name: mentat-spec
    static_configs:
      - targets: ['$target']
YAML
	# shellcheck disable=SC2046 # the flag is one word or none
	prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
		--storage.tsdb.retention.time=1h --web.listen-address="127.0.0.1:$port" \
		--log.level=warn $(native_flag) >"$dir/prometheus.log" 2>&1 &
	echo $! >"$dir/pid"
	echo "$port" >"$dir/port"
	for _ in $(seq 1 100); do
		if listening "$port"; then
			echo "http://127.0.0.1:$port"
			return 0
		fi
		if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			cat "$dir/prometheus.log" >&2
			die "prometheus exited at start"
		fi
		sleep 0.1
	done
	down "$dir"
	die "prometheus did not listen on 127.0.0.1:$port within 10 s"
}

down() {
	local dir=$1 pid
	[ -f "$dir/prometheus.yml" ] || die "$dir holds no server of this script"
	if [ -f "$dir/pid" ]; then
		pid=$(cat "$dir/pid")
		if kill "$pid" 2>/dev/null; then
			for _ in $(seq 1 50); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			kill -9 "$pid" 2>/dev/null || true
		fi
	fi
	rm -rf "$dir"
}

case ${1:-} in
install) install ;;
up)
	[ $# -eq 3 ] || die "usage: prometheus.sh up DIR TARGET"
	up "$2" "$3"
	;;
down)
	[ $# -eq 2 ] || die "usage: prometheus.sh down DIR"
	down "$2"
	;;
*) die "usage: prometheus.sh install | up DIR TARGET | down DIR" ;;
esac
