#!/usr/bin/env bash
# A local Redis under Sentinel, for failover drills: a primary, one replica
# and three sentinels (quorum 2), on 127.0.0.1 and spare ports only. It never
# touches the shared Redis on 6379.
#
#   scripts/sentinel.sh start DIR        start (idempotent); prints the REDIS_URL
#   scripts/sentinel.sh stop DIR         stop everything started in DIR
#   scripts/sentinel.sh node DIR PORT    (re)start one data node, e.g. after a kill -9
#   scripts/sentinel.sh primary DIR      print host:port of the current primary
#
# DIR holds configs, pidfiles (redis-PORT.pid), logs and data, and
# redis.url: redis-sentinel://…/mymaster?db=0, what REDIS_URL takes.
#
# Environment (optional): SENTINEL_DATA_PORTS "6391 6392" (the first starts as
# primary), SENTINEL_PORTS "26391 26392 26393", SENTINEL_MASTER mymaster,
# SENTINEL_DOWN_MS 1000 (how long a silent primary takes to be judged down).
#
# redis-server runs sentinels itself (`--sentinel`); when it is missing,
# Debian's redis-server and redis-sentinel packages are installed.
set -euo pipefail

cmd="${1:-}"
DIR="${2:-}"
[ -n "$cmd" ] && [ -n "$DIR" ] || {
	echo "usage: $0 start|stop|primary DIR | node DIR PORT" >&2
	exit 2
}
read -r -a DATA_PORTS <<<"${SENTINEL_DATA_PORTS:-6391 6392}"
read -r -a SENT_PORTS <<<"${SENTINEL_PORTS:-26391 26392 26393}"
MASTER="${SENTINEL_MASTER:-mymaster}"
DOWN_MS="${SENTINEL_DOWN_MS:-1000}"
HOST=127.0.0.1

for p in "${DATA_PORTS[@]}" "${SENT_PORTS[@]}"; do
	if [ "$p" = 6379 ]; then
		echo "sentinel: port 6379 belongs to the shared Redis; pick others" >&2
		exit 2
	fi
done

ensure_redis() {
	command -v redis-server >/dev/null && return
	echo "sentinel: installing redis-server and redis-sentinel (apt)" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-sentinel >&2
}

# alive PIDFILE: the pid in it runs redis-server (sentinels included). A
# node killed with -9 is a zombie until something reaps it: kill -0 and its
# comm still answer, so its state decides.
alive() {
	local pid state
	pid="$(cat "$1" 2>/dev/null || true)"
	[[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null &&
		[[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == redis-* ]] || return 1
	state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)"
	[[ -n "$state" && "$state" != Z ]]
}

wait_ping() {
	for ((i = 0; i < 100; i++)); do
		redis-cli -h "$HOST" -p "$1" ping >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "sentinel: nothing answers on $HOST:$1 (see $DIR/redis-$1.log)" >&2
	return 1
}

# node PORT: a data node; the first data port starts as primary, the others
# as its replicas. A restarted node comes back with its own config, which
# Sentinel rewrites when it reconfigures the node after a failover.
node() {
	local port="$1"
	local conf="$DIR/redis-$port.conf"
	if [ ! -f "$conf" ]; then
		mkdir -p "$DIR/data-$port"
		{
			echo "port $port"
			echo "bind $HOST"
			echo "daemonize yes"
			echo "pidfile $DIR/redis-$port.pid"
			echo "logfile $DIR/redis-$port.log"
			echo "dir $DIR/data-$port"
			echo "save \"\""
			echo "appendonly yes"
			echo "appendfsync everysec"
			[ "$port" = "${DATA_PORTS[0]}" ] || echo "replicaof $HOST ${DATA_PORTS[0]}"
		} >"$conf"
	fi
	alive "$DIR/redis-$port.pid" || redis-server "$conf"
	wait_ping "$port"
}

sentinel() {
	local port="$1"
	local conf="$DIR/sentinel-$port.conf"
	if [ ! -f "$conf" ]; then
		cat >"$conf" <<CONF
port $port
bind $HOST
daemonize yes
pidfile $DIR/redis-$port.pid
logfile $DIR/redis-$port.log
dir $DIR
sentinel monitor $MASTER $HOST ${DATA_PORTS[0]} 2
sentinel down-after-milliseconds $MASTER $DOWN_MS
sentinel failover-timeout $MASTER 5000
sentinel parallel-syncs $MASTER 1
CONF
	fi
	alive "$DIR/redis-$port.pid" || redis-server "$conf" --sentinel
	wait_ping "$port"
}

primary() {
	local p out
	for p in "${SENT_PORTS[@]}"; do
		if out="$(redis-cli -h "$HOST" -p "$p" sentinel get-master-addr-by-name "$MASTER" 2>/dev/null)" &&
			[ "$(echo "$out" | wc -l)" = 2 ]; then
			echo "$out" | paste -sd: -
			return 0
		fi
	done
	echo "sentinel: no sentinel knows $MASTER" >&2
	return 1
}

case "$cmd" in
start)
	ensure_redis
	mkdir -p "$DIR"
	DIR="$(cd "$DIR" && pwd)"
	for p in "${DATA_PORTS[@]}"; do node "$p"; done
	for p in "${SENT_PORTS[@]}"; do sentinel "$p"; done
	addrs=""
	for p in "${SENT_PORTS[@]}"; do addrs="${addrs:+$addrs,}$HOST:$p"; done
	url="redis-sentinel://$addrs/$MASTER?db=0"
	echo "$url" >"$DIR/redis.url"
	echo "$url"
	;;
node)
	[ -n "${3:-}" ] || { echo "usage: $0 node DIR PORT" >&2; exit 2; }
	DIR="$(cd "$DIR" && pwd)"
	node "$3"
	;;
primary)
	primary
	;;
stop)
	[ -d "$DIR" ] || exit 0
	for f in "$DIR"/redis-*.pid; do
		[ -e "$f" ] || continue
		if alive "$f"; then
			pid="$(cat "$f")"
			kill -TERM "$pid" 2>/dev/null || true
			for ((i = 0; i < 50; i++)); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			kill -KILL "$pid" 2>/dev/null || true
		fi
		rm -f "$f"
	done
	echo "sentinel: stopped ($DIR)"
	;;
*)
	echo "usage: $0 start|stop|primary DIR | node DIR PORT" >&2
	exit 2
	;;
esac
