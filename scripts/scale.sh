#!/usr/bin/env bash
# `make scale`: issue 24's point 3, the same measurements on databases of
# 100 k, 1 M and 10 M guides, seeded beforehand (`guidepost seed --guides
# N`, timed there). For each size `loadtest scale` starts `guidepost
# serve` on it and measures nearby, viewport and tile p95 warm, the API's
# resident memory, the like storm and the steps' ceiling, then nearby and
# tiles again each on a fresh process with Redis emptied. About 4 minutes a
# size with the defaults below. Then SCALE_ROUNDS rounds (3 by default,
# about 2 minutes a size each with SCALE_WARM=90s) measure the warm map
# reads again on every size in turn, the order reversed each round, with
# the cache on and with GUIDES_CACHE=off, beside PostgreSQL's own time for
# the same seconds (pg_stat_statements, which needs shared_preload_libraries):
# the sizes' ratio is taken within a round; with -scale-rounds-cold each
# round also records the mix on a fresh server with Redis emptied, as the
# sizes' cold figures are. Results: BENCHMARKS-scale.json
# (charted by `make bench`'s report) and the "Scale" table,
# BENCHMARKS-scale.md.
#
#   SCALE_DBS="100k=postgres://…/f_viewport_100k,1m=…,10m=…" \
#   SCALE_SEED_TIMES="100k=9s,1m=95s,10m=16m" bash scripts/scale.sh [loadtest flags]
#
# It runs on a Redis of its own (SCALE_REDIS_PORT, started here and shut
# down at the end: each restart empties it) and a bucket of its own.
set -euo pipefail
cd "$(dirname "$0")/.."

db_url() { echo "postgres://postgres@127.0.0.1:5432/$1?sslmode=disable"; }
SCALE_DBS=${SCALE_DBS:-100k=$(db_url guidepost_scale_100k),1m=$(db_url guidepost_scale_1m),10m=$(db_url guidepost_scale_10m)}
SCALE_SEED_TIMES=${SCALE_SEED_TIMES:-}
SCALE_REDIS_PORT=${SCALE_REDIS_PORT:-6391}
export REDIS_URL=redis://127.0.0.1:${SCALE_REDIS_PORT}/0
export S3_BUCKET=${SCALE_S3_BUCKET:-guidepost-scale}
export LOG_LEVEL=${LOG_LEVEL:-warn}
export GUIDEPOST_ENV=${GUIDEPOST_ENV:-development}
# One generator address stands for thousands of phones (see bench.sh).
export RATE_GUEST_PER_IP=${RATE_GUEST_PER_IP:-1000000/1h}
export RATE_SIGNUP_PER_IP=${RATE_SIGNUP_PER_IP:-1000000/1h}
export RATE_LIKES_PER_USER=${RATE_LIKES_PER_USER:-off}
export RATE_GUIDE_WRITES_PER_USER=${RATE_GUIDE_WRITES_PER_USER:-off}

# A database whose guides table is larger than PostgreSQL's shared_buffers
# reads map answers from the kernel's page cache, or from disk once the
# kernel reclaims it: at 10 M guides with the default 128 MB the nearby
# mix's p95 was 2.4 s, 14.6 ms with 10 GB (BENCHMARKS.md). Say so before
# measuring.
IFS=, read -ra scale_specs <<< "$SCALE_DBS"
for spec in "${scale_specs[@]}"; do
  url=${spec#*=}
  short=$(psql "$url" -Atc "SELECT pg_relation_size('guides') > pg_size_bytes(current_setting('shared_buffers'))" 2>/dev/null || true)
  if [ "$short" = t ]; then
    echo "scale: ${spec%%=*}: the guides table is larger than shared_buffers ($(psql "$url" -Atc 'SHOW shared_buffers')); reads may go to disk (see README, Running at scale)" >&2
  fi
done

# With 4 KB pages each new PostgreSQL backend maps the shared buffers page
# by page on first touch: every API restart then queued reads for seconds,
# and at 10 M warm reads stayed ~2× slower (README, Running at scale).
if [ "$(psql "${scale_specs[0]#*=}" -Atc 'SHOW huge_pages' 2>/dev/null || true)" != on ]; then
  echo "scale: PostgreSQL's huge_pages is not 'on'; restarts and 10 M reads will pay a page fault per 4 KB buffer (see README, Running at scale)" >&2
fi

# A seed leaves gigabytes of dirty buffers that the checkpointer writes out
# over the following minutes: a 10 M run beside those writes climbed to
# 160 req/s where the next reached 538. Flush them before the clock.
for spec in "${scale_specs[@]}"; do
  psql "${spec#*=}" -qc CHECKPOINT >/dev/null 2>&1 ||
    echo "scale: ${spec%%=*}: CHECKPOINT refused (needs superuser or pg_checkpoint); a recent seed's writes may overlap the runs" >&2
done

if redis-cli -p "$SCALE_REDIS_PORT" ping >/dev/null 2>&1; then
  echo "scale: something already answers on port $SCALE_REDIS_PORT; set SCALE_REDIS_PORT to a spare one" >&2
  exit 1
fi
redis-server --daemonize yes --bind 127.0.0.1 --port "$SCALE_REDIS_PORT" --save "" --appendonly no >/dev/null
trap 'redis-cli -p "$SCALE_REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true' EXIT

(cd tools && go build -o ../bin/loadtest ./loadtest)
bin/loadtest scale -server-bin bin/guidepost -scale-dbs "$SCALE_DBS" -scale-seed-times "$SCALE_SEED_TIMES" \
  -duration "${SCALE_DURATION:-20s}" -step "${SCALE_STEP:-5s}" -scale-warm "${SCALE_WARM:-15s}" \
  -scale-rounds "${SCALE_ROUNDS:-3}" "$@"
