#!/usr/bin/env bash
# `make bench`: the load-test suite's standard set (< 10 minutes on 2 cores)
# against a guidepost with its own database, Redis DB and bucket, so a run
# never mixes with `make run`'s demo data. Results: rows appended to
# BENCHMARKS.md, the raw run in BENCHMARKS.json, HTML reports in
# loadtest-out/.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCH_DB=${BENCH_DB:-guidepost_bench}
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/${BENCH_DB}?sslmode=disable"
export REDIS_URL=${BENCH_REDIS_URL:-redis://127.0.0.1:6379/10}
export S3_BUCKET=${BENCH_S3_BUCKET:-guidepost-bench}
export LOG_LEVEL=${LOG_LEVEL:-warn}
# A local run: the server may use the built-in development JWT secret.
export GUIDEPOST_ENV=${GUIDEPOST_ENV:-development}
# The generator is one address standing for thousands of phones: lift the
# per-address limits (and the per-account rates its busiest users exceed)
# so the figures measure the server, not its abuse limits (see abuse.sh).
export RATE_GUEST_PER_IP=${RATE_GUEST_PER_IP:-1000000/1h}
export RATE_SIGNUP_PER_IP=${RATE_SIGNUP_PER_IP:-1000000/1h}
export RATE_UPLOADS_PER_USER=${RATE_UPLOADS_PER_USER:-off}
export RATE_GUIDE_WRITES_PER_USER=${RATE_GUIDE_WRITES_PER_USER:-off}
export RATE_LIKES_PER_USER=${RATE_LIKES_PER_USER:-off}
export UPLOAD_MAX_PER_IP=${UPLOAD_MAX_PER_IP:-100000}

# A fresh database each run: figures must not depend on a previous run's rows.
psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS ${BENCH_DB} WITH (FORCE)" \
  -c "CREATE DATABASE ${BENCH_DB}"
redis-cli -u "$REDIS_URL" FLUSHDB >/dev/null
bash scripts/stack.sh >/dev/null   # creates $S3_BUCKET
bin/guidepost migrate

exec go run ./scripts/loadtest bench -server-bin bin/guidepost "$@"
