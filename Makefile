# mentat-spec: build, test and benchmark.
#
#   make install   go install the mentat-spec command (into $(go env GOPATH)/bin)
#   make test      vet, format check and every test, PostgreSQL included: a
#                  throwaway cluster is started (scripts/pg.sh) when
#                  MENTAT_SPEC_PG_DSN is unset, and stopped afterwards; in CI
#                  (CI set) Debian's chromium is installed when missing, for
#                  the report's browser test (scripts/browser.sh), and
#                  Debian's prometheus for the metrics endpoint's test
#                  (scripts/prometheus.sh), and Debian's sqlite3-pcre for
#                  the SQLite extension tests (scripts/sqlite-pcre.sh)
#   make bench     the Go benchmarks (figures go to BENCHMARKS.md)
#   make spec-review  fmt -check, validate and plan -diff of the specs
#                  against BASE (default HEAD~1), as a pull request runs it
#   make fuzz      the fuzz targets, FUZZTIME (2m) each; make test runs them 5 s each
#   make aa        the release gate's A/A check (a few minutes): AA_PAIRS (5)
#                  pairs of back-to-back quickstart runs on SQLite with
#                  reps = 5, compared pairwise, every compare must exit 0;
#                  with reps = 1 compare must say it cannot decide
#   make ab        compare flags avet=false against a normal run (two runs)
#   make ab-paired the same A/B in one run, the two stores' reps paired

GO       ?= go
BIN      := bin/mentat-spec
PKGS     := ./...
VERSION  ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)

.PHONY: all build install test unit bench vet fmt-check browser prometheus sqlite-pcre quickstart pg-up pg-down clean bench-native spec-review fuzz fuzz-short aa ab ab-paired

all: build

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/mentat-spec

install:
	$(GO) install -ldflags "-X main.version=$(VERSION)" ./cmd/mentat-spec

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# unit runs the tests against whatever MENTAT_SPEC_PG_DSN points at.
unit:
	$(GO) test -count=1 -timeout 30m $(PKGS)

# browser makes sure the report's browser test can run (installs chromium
# in CI when it is missing).
browser:
	@scripts/browser.sh

# prometheus makes sure the metrics endpoint's test can run against a real
# server (installs Debian's prometheus in CI when it is missing).
prometheus:
	@scripts/prometheus.sh install

# sqlite-pcre makes sure the SQLite extension tests can load a real
# third-party extension (installs Debian's sqlite3-pcre in CI when it is
# missing).
sqlite-pcre:
	@scripts/sqlite-pcre.sh

test: vet fmt-check browser prometheus sqlite-pcre fuzz-short
	scripts/with-pg.sh $(MAKE) --no-print-directory unit
	@if git rev-parse --verify --quiet 'HEAD~1^{commit}' >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory spec-review BASE=HEAD~1; \
	else echo "spec-review: this clone has no previous commit to compare with: skipped"; fi

# The fuzz targets (spec loader in HCL and JSON, dataset compiler, SQL
# statement splitter, EDN reader, adapter reply reader), seeded from examples/ and specs/: briefly in make
# test, longer with make fuzz (FUZZTIME per target: a duration, or Nx
# executions).
FUZZ_TARGETS := ./engine/config:FuzzLoadHCL ./engine/config:FuzzLoadJSON ./engine/config:FuzzDatasetCompile ./engine/sqltext:FuzzStatements ./engine/edn:FuzzDecode ./drivers/adapter/protocol:FuzzReadReply
FUZZTIME ?= 2m

# fuzz-short counts executions rather than seconds: with a duration, Go
# 1.26's fuzz coordinator can report its own stop at the deadline as
# "context deadline exceeded", a failure without an input (upstream
# issue 75804, fixed in Go 1.27).
fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=2000x

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

bench:
	scripts/with-pg.sh $(GO) test -run '^$$' -bench . -benchmem -timeout 30m $(PKGS)

BASE ?= HEAD~1

spec-review: build
	MENTAT_SPEC=$(BIN) scripts/spec-review.sh $(BASE)

quickstart: build
	$(BIN) apply examples/quickstart.hcl

pg-up:
	@scripts/pg.sh up

pg-down:
	@scripts/pg.sh down

clean:
	rm -rf bin

# aa is the compare gate's A/A calibration and ab its A/B check
# (scripts/aa.sh): each prints its figures with the load average.
AA_PAIRS ?= 5

aa:
	scripts/aa.sh aa $(AA_PAIRS)

ab:
	scripts/aa.sh ab

ab-paired:
	scripts/aa.sh paired

# bench-native compares the engine with each database's own fast path
# (psql \copy, DuckDB COPY, go-sqlite3 loops, pgbench) at scale s;
# BENCH_SCALE, BENCH_ROUNDS and BENCH_SECONDS tune it.
bench-native:
	scripts/bench-native.sh
