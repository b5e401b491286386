#!/usr/bin/env bash
# A private PostgreSQL 15 primary and a streaming replica of it
# (pg_basebackup -R -X stream), on 127.0.0.1 and spare ports only, for
# replica drills and load runs. It never touches the shared server on 5432.
#
#   scripts/replica.sh start DIR          start both (idempotent); prints the two URLs
#   scripts/replica.sh stop DIR           stop both
#   scripts/replica.sh kill DIR NODE      stop NODE (primary|replica) at once, as a crash does
#   scripts/replica.sh up DIR NODE        start NODE again
#   scripts/replica.sh delay DIR SECONDS  make the replica replay SECONDS late (0: as WAL arrives)
#   scripts/replica.sh promote DIR        promote the replica (a failover), wait until it takes writes
#
# start prints two lines, what the server takes:
#   DATABASE_URL=postgres://postgres@127.0.0.1:P1,127.0.0.1:P2/guidepost?…&target_session_attrs=read-write
#   DATABASE_REPLICA_URLS=postgres://postgres@127.0.0.1:P2/guidepost?sslmode=disable
# DATABASE_URL lists both servers, so a promoted replica is followed.
#
# Environment (optional): PG_PAIR_PORTS "5441 5442" (primary, replica),
# PG_PAIR_SYNC 1 (the primary waits for the replica at each commit: a
# failover loses no acknowledged write; a dead replica then stalls writes).
# initdb and pg_ctl refuse to run as root: as root they run as postgres.
set -euo pipefail

cmd="${1:-}"
DIR="${2:-}"
[ -n "$cmd" ] && [ -n "$DIR" ] || {
	echo "usage: $0 start|stop|promote DIR | kill|up DIR primary|replica | delay DIR SECONDS" >&2
	exit 2
}
BIN=/usr/lib/postgresql/15/bin
read -r P1 P2 <<<"${PG_PAIR_PORTS:-5441 5442}"
for p in "$P1" "$P2"; do
	if [ "$p" = 5432 ]; then
		echo "replica: port 5432 belongs to the shared PostgreSQL; pick others" >&2
		exit 2
	fi
done
[ -x "$BIN/pg_basebackup" ] || {
	echo "replica: $BIN not found: install Debian's postgresql-15" >&2
	exit 1
}

as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

data() { echo "$DIR/$1"; }
port() { if [ "$1" = primary ]; then echo "$P1"; else echo "$P2"; fi; }
url() { echo "postgres://postgres@127.0.0.1:$(port "$1")/guidepost?sslmode=disable"; }
psqlc() { as_pg "$BIN/psql" -X -q -At -h 127.0.0.1 -p "$(port "$1")" -U postgres -d "${3:-guidepost}" -c "$2"; }

running() { as_pg "$BIN/pg_ctl" -D "$(data "$1")" status >/dev/null 2>&1; }

node_up() {
	local node=$1
	running "$node" && return 0
	as_pg "$BIN/pg_ctl" -D "$(data "$node")" -w -t 60 -l "$DIR/$node.log" \
		-o "-p $(port "$node") -c listen_addresses=127.0.0.1 -k $DIR" start >/dev/null
}

node_kill() {
	as_pg "$BIN/pg_ctl" -D "$(data "$1")" -m immediate -w stop >/dev/null 2>&1 || true
}

start() {
	mkdir -p "$DIR"
	chmod 0777 "$DIR"
	if [ ! -d "$(data primary)" ]; then
		as_pg "$BIN/initdb" -D "$(data primary)" -A trust -U postgres --no-sync >"$DIR/initdb.log"
		# wal_level replica and ten WAL senders are PostgreSQL 15's defaults;
		# initdb's pg_hba.conf lets 127.0.0.1 replicate.
		if [ "${PG_PAIR_SYNC:-0}" = 1 ]; then
			echo "synchronous_standby_names = '*'" >>"$(data primary)/postgresql.conf"
		fi
		node_up primary
		psqlc primary "CREATE DATABASE guidepost" postgres
	fi
	node_up primary
	if [ ! -d "$(data replica)" ]; then
		as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p "$P1" -U postgres -D "$(data replica)" -R -X stream -c fast --no-sync
	fi
	node_up replica
	for ((i = 0; i < 300; i++)); do
		[ "$(psqlc primary "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'" 2>/dev/null || echo 0)" -ge 1 ] && break
		sleep 0.1
	done
	echo "DATABASE_URL=postgres://postgres@127.0.0.1:$P1,127.0.0.1:$P2/guidepost?sslmode=disable&target_session_attrs=read-write"
	echo "DATABASE_REPLICA_URLS=$(url replica)"
}

case "$cmd" in
start) start ;;
stop)
	for n in replica primary; do
		[ -d "$(data "$n")" ] && as_pg "$BIN/pg_ctl" -D "$(data "$n")" -m fast -w stop >/dev/null 2>&1 || true
	done
	;;
kill) node_kill "${3:?primary or replica}" ;;
up) node_up "${3:?primary or replica}" ;;
delay)
	s="${3:?seconds}"
	psqlc replica "ALTER SYSTEM SET recovery_min_apply_delay = '${s}s'" postgres
	psqlc replica "SELECT pg_reload_conf()" postgres >/dev/null
	;;
promote)
	as_pg "$BIN/pg_ctl" -D "$(data replica)" -w promote >/dev/null
	for ((i = 0; i < 300; i++)); do
		[ "$(psqlc replica "SELECT pg_is_in_recovery()" postgres)" = f ] && exit 0
		sleep 0.1
	done
	echo "replica: still in recovery after 30 s" >&2
	exit 1
	;;
*)
	echo "replica: unknown command $cmd" >&2
	exit 2
	;;
esac
