#!/usr/bin/env bash
# Writes migrations/schema.sql again: migrates a fresh database on the local
# PostgreSQL (`make stack`), dumps its schema with pg_dump and leaves out
# what varies between runs. The dump and its normalisation live in
# migrations/schema_test.go, the test that fails when schema.sql and the
# migrations disagree; this runs that test in its writing mode. Run it after
# adding a migration, and commit schema.sql beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -run '^TestSchemaSQLMatchesMigrations$' ./migrations -args -update
git --no-pager diff --stat -- migrations/schema.sql 2>/dev/null || true
