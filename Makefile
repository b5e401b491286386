# The README's two commands are `make run` and `make test`; both bring up
# the local stack first (scripts/stack.sh installs what is missing).
SHELL := /bin/bash
GO ?= go
BIN := bin/guidepost

.PHONY: stack stack-stop build tools run test test-short lint-openapi check-tree bench scale testdata migrate seed chaos scaleout map-screenshot vendor-map schema

stack:
	@bash scripts/stack.sh

stack-stop:
	@bash scripts/stack-stop.sh

build:
	$(GO) build -o $(BIN) ./cmd/guidepost

# The measuring instruments: tools/ is a Go module of its own (so the
# service's go.mod lists only what the service uses); each program lands in
# bin/ and runs from the repository's root.
tools:
	cd tools && $(GO) build -o ../bin/ ./...

# The service with demo data: migrations, a few hundred guides around Seoul,
# Busan and Jeju (some with generated photos), then API + worker in one
# process.
run: export GUIDEPOST_ENV ?= development
run: stack build
	@$(BIN) migrate
	@$(BIN) seed --demo
	@echo
	@echo "guidepost is starting on http://127.0.0.1:8080  (Ctrl-C stops it)"
	@echo "  try: curl -s 'http://127.0.0.1:8080/v1/guides/nearby?lat=37.5665&lng=126.9780&radius_m=2000&limit=5'"
	@echo
	@exec $(BIN) dev

# Every test, against the real PostgreSQL+PostGIS, Redis and S3 server,
# after the API document passes the linter and git is found to track no
# build output. The tools module's tests run in the same target.
test: check-tree stack lint-openapi
	$(GO) test -race -count=1 -timeout 30m ./...
	$(GO) test -count=1 -run 'AVIF|SSIM' ./media/photo # AVIF and 12 MP: too slow under -race
	cd tools && $(GO) test -race -count=1 -timeout 30m ./...

# No executable binary tracked, nothing over 1 MiB outside testdata/ and
# the vendored map files.
check-tree:
	@bash scripts/check-tree.sh

# api/openapi.yaml against Redocly's recommended rules (installs the pinned
# CLI into the tool cache on first use; needs node and npm).
lint-openapi:
	@bash scripts/lint-openapi.sh

# The map page's browser test, keeping its screenshot as docs/map.png.
map-screenshot: stack
	GUIDEPOST_MAP_SCREENSHOT=docs/map.png $(GO) test -count=1 -run TestMapPage ./e2e

# Fetch the map page's third-party files again from npm at their pinned
# versions (scripts/vendor-map.sh --check only compares).
vendor-map:
	bash scripts/vendor-map.sh

test-short:
	$(GO) test -short -count=1 ./...
	cd tools && $(GO) test -short -count=1 ./...

testdata:
	bash scripts/gen-testdata.sh

# migrations/schema.sql again, from a freshly migrated database (after
# adding a migration; a test fails until it is current).
schema: stack
	bash scripts/schema.sh

bench: stack build
	bash scripts/bench.sh

# Issue 24's scale table: the same measurements on databases seeded
# beforehand with 100 k, 1 M and 10 M guides (SCALE_DBS, SCALE_SEED_TIMES:
# see scripts/scale.sh). `make bench`'s report charts its rows.
scale: build
	bash scripts/scale.sh

# Failover drills under load: two API processes and two workers against a
# private PostgreSQL, Redis under Sentinel and S3 server (spare ports; the
# shared ones are never touched). Prints the table BENCHMARKS.md holds.
chaos: stack tools
	bin/chaos

# Photos/s on a fixed backlog with 1, 2 and 3 worker processes.
scaleout: stack tools
	bin/chaos -scaleout
