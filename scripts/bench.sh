#!/usr/bin/env bash
# `make bench`: the load-test suite's standard set (< 10 minutes on 2 cores)
# against a guidepost with its own database, Redis DB and bucket, so a run
# never mixes with `make run`'s demo data. `guidepost serve` and `guidepost
# worker` run as two processes (the tool starts them). The cold start runs
# on a second database of 1,000,000 guides, seeded once with COPY (about a
# minute and a half) and kept between runs: set BENCH_1M_DB= (empty) to run
# it on the bench database instead. Results: rows appended to BENCHMARKS.md,
# the raw run in BENCHMARKS.json, HTML reports in loadtest-out/.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCH_DB=${BENCH_DB:-guidepost_bench}
BENCH_1M_DB=${BENCH_1M_DB-guidepost_bench_1m}
db_url() { echo "postgres://postgres@127.0.0.1:5432/$1?sslmode=disable"; }
export DATABASE_URL=$(db_url "$BENCH_DB")
# DB 13: the test packages use 1–11 (testkit), abuse.sh 12.
export REDIS_URL=${BENCH_REDIS_URL:-redis://127.0.0.1:6379/13}
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
# Between scenarios with uploads the tool deletes the photo tasks still
# queued, so each starts with an empty queue; their rows stay pending, and
# the sweeper must not queue them again while the bench runs.
export MEDIA_PENDING_AGE=${MEDIA_PENDING_AGE:-1h}

# A fresh database each run: figures must not depend on a previous run's rows.
psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS ${BENCH_DB} WITH (FORCE)" \
  -c "CREATE DATABASE ${BENCH_DB}"
redis-cli -u "$REDIS_URL" FLUSHDB >/dev/null
bash scripts/stack.sh >/dev/null   # creates $S3_BUCKET

cold=()
if [ -n "$BENCH_1M_DB" ]; then
  url=$(db_url "$BENCH_1M_DB")
  psql -q -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '${BENCH_1M_DB}'" | grep -q 1 ||
    psql -q -h 127.0.0.1 -U postgres -d postgres -c "CREATE DATABASE ${BENCH_1M_DB}"
  DATABASE_URL=$url bin/guidepost migrate
  have=$(psql -q -h 127.0.0.1 -U postgres -d "$BENCH_1M_DB" -tAc "SELECT count(*) FROM guides")
  if [ "$have" -lt 1000000 ]; then
    if [ "$have" -gt 0 ]; then # a seed cut short: start again
      psql -q -h 127.0.0.1 -U postgres -d "$BENCH_1M_DB" -c "TRUNCATE guides CASCADE"
    fi
    echo "seeding 1,000,000 guides into ${BENCH_1M_DB} (once; kept for later runs)"
    DATABASE_URL=$url bin/guidepost seed --guides 1000000
  fi
  cold=(-cold-database "$url")
fi

# The load tool lives in the tools module; it runs from here, where its
# default paths point.
(cd tools && go build -o ../bin/loadtest ./loadtest)
exec bin/loadtest bench -server-bin bin/guidepost "${cold[@]}" "$@"
