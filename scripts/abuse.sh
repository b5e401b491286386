#!/usr/bin/env bash
# The abuse scenario: the mixed load (200 users) alone, then beside an
# attacker, against a fresh `guidepost serve` and `worker` with their own database, Redis DB
# and bucket, and the limits as shipped. The generator plays a load
# balancer: each user, and the attacker, sends its own X-Forwarded-For,
# which the server trusts from 127.0.0.1 only; the side doors' probe dials
# from 127.0.0.2. Extra flags go to the tool (e.g. -duration 30s for each
# mixed half, -abuse-doors idle-body,upload-flood). ABUSE_SEED_GUIDES=N
# first loads N generated guides into the fresh database.
set -euo pipefail
cd "$(dirname "$0")/.."

ABUSE_DB=${ABUSE_DB:-guidepost_abuse}
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/${ABUSE_DB}?sslmode=disable"
export REDIS_URL=${ABUSE_REDIS_URL:-redis://127.0.0.1:6379/12}
export S3_BUCKET=${ABUSE_S3_BUCKET:-guidepost-abuse}
export LOG_LEVEL=${LOG_LEVEL:-warn}
export HTTP_TRUSTED_PROXIES=127.0.0.1
ADDR=${ABUSE_ADDR:-127.0.0.1:8090}
export HTTP_ADDR=$ADDR

psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS ${ABUSE_DB} WITH (FORCE)" \
  -c "CREATE DATABASE ${ABUSE_DB}"
redis-cli -u "$REDIS_URL" FLUSHDB >/dev/null
bash scripts/stack.sh >/dev/null   # creates $S3_BUCKET
go build -o bin/guidepost ./cmd/guidepost
bin/guidepost migrate
if [ "${ABUSE_SEED_GUIDES:-0}" -gt 0 ]; then
  bin/guidepost seed --guides "$ABUSE_SEED_GUIDES"
fi

(cd tools && go build -o ../bin/loadtest ./loadtest) # the tools module
exec bin/loadtest abuse -target "http://$ADDR" -server-bin bin/guidepost -start-server always "$@"
