#!/usr/bin/env bash
# sqlite-pcre.sh makes sure Debian's sqlite3-pcre (/usr/lib/sqlite3/pcre.so,
# a third-party SQLite extension) is installed for the extension tests
# (drivers/sqlite TestExtensions*, cmd/mentat-spec TestApplySQLiteExtension).
# In CI (CI set) a missing one is installed from Debian's packages as
# root, so those tests never skip there; elsewhere a missing one only
# skips them.
set -euo pipefail
lib=/usr/lib/sqlite3/pcre.so
if [ -f "$lib" ]; then
	exit 0
fi
if [ -z "${CI:-}" ]; then
	echo "sqlite-pcre.sh: no $lib: the SQLite extension tests will skip (install it: apt-get install sqlite3-pcre)" >&2
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "sqlite-pcre.sh: CI needs $lib for the SQLite extension tests: run as root on Debian, or install sqlite3-pcre first" >&2
	exit 1
fi
echo "sqlite-pcre.sh: installing sqlite3-pcre (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq sqlite3-pcre >/dev/null
test -f "$lib"
