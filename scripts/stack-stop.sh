#!/usr/bin/env bash
# Stops the versitygw that scripts/stack.sh started (from its pidfile), and
# nothing else: the machine's PostgreSQL and Redis are left running.
# Environment: GUIDEPOST_STACK_DIR (default <repo>/.stack), as in stack.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STACK_DIR="${GUIDEPOST_STACK_DIR:-$ROOT/.stack}"
PIDFILE="$STACK_DIR/versitygw.pid"
S3_DATA="$STACK_DIR/s3"

if [ ! -f "$PIDFILE" ]; then
	echo "s3: not running (no $PIDFILE)"
	exit 0
fi
pid="$(cat "$PIDFILE")"
if ! [[ "$pid" =~ ^[0-9]+$ ]]; then
	rm -f "$PIDFILE"
	echo "s3: removed bad pidfile $PIDFILE"
	exit 0
fi
# Guard against pid reuse: only a versitygw serving this stack's data dir.
cmd="$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" || true)"
if [ "$(cat "/proc/$pid/comm" 2>/dev/null || true)" != versitygw ] ||
	! [[ "$cmd" == *" $S3_DATA "* || "$cmd" == *" $S3_DATA" ]]; then
	rm -f "$PIDFILE"
	echo "s3: not running (stale pidfile, pid $pid is not this stack's versitygw)"
	exit 0
fi

kill -TERM "$pid"
for ((i = 0; i < 50; i++)); do # ~10 s
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.2
done
if kill -0 "$pid" 2>/dev/null; then
	kill -KILL "$pid" 2>/dev/null || true
	sleep 0.2
fi
if kill -0 "$pid" 2>/dev/null; then
	echo "s3: FAILED: versitygw pid $pid did not stop" >&2
	exit 1
fi
rm -f "$PIDFILE"
echo "s3: stopped versitygw (pid $pid)"
