#!/usr/bin/env bash
# browser.sh makes sure a Chromium is on PATH for the browser tests
# (engine/browsertest, which report.html's TestHTMLInBrowser and
# trends.html's TestTrendsInBrowser use). In CI (CI set) a missing
# browser is installed from Debian's packages as root, so that test never
# skips there; elsewhere a missing browser only skips it.
set -euo pipefail
for b in chromium chromium-browser google-chrome google-chrome-stable; do
	if command -v "$b" >/dev/null 2>&1; then
		exit 0
	fi
done
if [ -z "${CI:-}" ]; then
	echo "browser.sh: no chromium on PATH: the report's browser test will skip (install it: apt-get install chromium)" >&2
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "browser.sh: CI needs chromium for the report's browser test: run as root on Debian, or install it first" >&2
	exit 1
fi
echo "browser.sh: installing chromium (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null
