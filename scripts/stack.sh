#!/usr/bin/env bash
# Brings up, on 127.0.0.1 only, everything guidepost needs for local runs and
# tests, installing what is missing:
#   postgres  PostgreSQL 15 + PostGIS on 127.0.0.1:5432, database "guidepost"
#   redis     Redis 7 on 127.0.0.1:6379
#   s3        versitygw (S3-compatible) on the port of $S3_ENDPOINT, bucket $S3_BUCKET
#   chromium  Debian's headless browser, for the test of the map page (installed only)
#
# Idempotent: a second run changes nothing and starts no second copies.
# Prints one line per component on stdout; progress of slow steps goes to
# stderr. Exits non-zero with a message naming the component on failure.
#
# Environment (all optional):
#   S3_ENDPOINT       http://127.0.0.1:7070
#   S3_ACCESS_KEY     guidepost
#   S3_SECRET_KEY     guidepost-secret
#   S3_BUCKET         guidepost
#   S3_REGION         us-east-1
#   S3_CORS_ORIGINS   * (origins, space-separated, whose pages may PUT parts and GET photos)
#   GUIDEPOST_TOOLS   ${XDG_CACHE_HOME:-$HOME/.cache}/guidepost/tools (tool cache, outside the clone)
#   GUIDEPOST_STACK_DIR  <repo>/.stack (pidfile, logs, S3 data; git-ignored)
#   GUIDEPOST_SENTINEL   opt-in: a folder; also starts a Redis primary, a replica
#                     and three sentinels there on spare ports (scripts/sentinel.sh),
#                     for failover drills, and prints their REDIS_URL
#   GUIDEPOST_PG_REPLICA opt-in: a folder; also starts a private PostgreSQL
#                     primary and a streaming replica of it there on spare ports
#                     (scripts/replica.sh), for replica drills and load runs, and
#                     prints their DATABASE_URL and DATABASE_REPLICA_URLS
#
# Called by `make stack`, `make run` and `make test`. Stop the S3 server it
# started with scripts/stack-stop.sh (PostgreSQL and Redis are left alone).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STACK_DIR="${GUIDEPOST_STACK_DIR:-$ROOT/.stack}"

PG_VERSION=15
PG_HOST=127.0.0.1
PG_PORT=5432
PG_USER=postgres
PG_DB=guidepost
POSTGIS_CONTROL="/usr/share/postgresql/$PG_VERSION/extension/postgis.control"

REDIS_HOST=127.0.0.1
REDIS_PORT=6379

S3_ENDPOINT="${S3_ENDPOINT:-http://127.0.0.1:7070}"
S3_ENDPOINT="${S3_ENDPOINT%/}"
S3_ACCESS_KEY="${S3_ACCESS_KEY:-guidepost}"
S3_SECRET_KEY="${S3_SECRET_KEY:-guidepost-secret}"
S3_BUCKET="${S3_BUCKET:-guidepost}"
S3_REGION="${S3_REGION:-us-east-1}"
# SHA-256 of the empty body. versitygw (like AWS S3) rejects signed requests
# without x-amz-content-sha256, and curl 7.88 does not add it by itself.
EMPTY_SHA256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

VGW_VERSION=v1.8.0
VGW_PKG="github.com/versity/versitygw/cmd/versitygw"
TOOLS_DIR="${GUIDEPOST_TOOLS:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/guidepost/tools}"
VGW_DIR="$TOOLS_DIR/versitygw-$VGW_VERSION"
VGW_BIN="$VGW_DIR/versitygw"
VGW_PIDFILE="$STACK_DIR/versitygw.pid"
VGW_LOG="$STACK_DIR/versitygw.log"
S3_DATA="$STACK_DIR/s3"
# Exists only when the filesystem lacks xattrs. Not "s3-meta": versitygw
# v1.8.0 rejects any sidecar path that merely starts with the data path.
S3_SIDECAR="$STACK_DIR/sidecar"

APT_LOG="$STACK_DIR/apt.log"
APT_UPDATED=0

say() { printf '%s\n' "$*"; }
note() { printf '%s\n' "$*" >&2; }
die() {
	local comp=$1
	shift
	printf '%s: FAILED: %s\n' "$comp" "$*" >&2
	exit 1
}

mkdir -p "$STACK_DIR" || die stack "cannot create $STACK_DIR"

# One stack.sh at a time per state dir. Every daemon we start gets fd 9
# closed (9>&-), or it would hold the lock for ever.
exec 9>"$STACK_DIR/stack.lock"
flock -w 1200 9 || die stack "another scripts/stack.sh has held $STACK_DIR/stack.lock for 20 minutes"

# apt_install COMPONENT PACKAGE... : apt-get update (at most once per run), then install.
apt_install() {
	local comp=$1
	shift
	if [ "$(id -u)" -ne 0 ]; then
		die "$comp" "missing; 'apt-get install $*' needs root (this script does not use sudo): install it, or run as root"
	fi
	command -v apt-get >/dev/null 2>&1 || die "$comp" "missing and apt-get is not available: install $* by hand"
	export DEBIAN_FRONTEND=noninteractive
	if [ "$APT_UPDATED" -eq 0 ]; then
		note "$comp: apt-get update"
		apt-get -o DPkg::Lock::Timeout=600 update </dev/null >>"$APT_LOG" 2>&1 9>&- ||
			die "$comp" "apt-get update failed (see $APT_LOG)"
		APT_UPDATED=1
	fi
	note "$comp: apt-get install -y $*"
	apt-get -o DPkg::Lock::Timeout=600 install -y "$@" </dev/null >>"$APT_LOG" 2>&1 9>&- ||
		die "$comp" "apt-get install -y $* failed (see $APT_LOG)"
}

# ---------------------------------------------------------------- postgres
# The versioned binaries skip Debian's Perl wrappers (~0.2 s per call).
pg_tool() {
	local t="/usr/lib/postgresql/$PG_VERSION/bin/$1"
	shift
	if [ -x "$t" ]; then "$t" "$@"; else "$(basename "$t")" "$@"; fi
}
psql_q() {
	PGCONNECT_TIMEOUT=5 pg_tool psql -X -w -q -t -A -v ON_ERROR_STOP=1 \
		-h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" "$@"
}
pg_ready() { pg_tool pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t "$1"; }

pg_trust_localhost() {
	# Only for a cluster this script just installed or created: the machine's
	# own setup is trust on 127.0.0.1 for root and postgres; make a fresh
	# Debian cluster (scram by default) match it.
	local hba="/etc/postgresql/$PG_VERSION/main/pg_hba.conf"
	[ -f "$hba" ] || return 0
	grep -q '^# guidepost stack' "$hba" && return 0
	local tmp
	tmp="$(mktemp)"
	{
		echo '# guidepost stack: local development, trust on loopback'
		echo 'host all postgres 127.0.0.1/32 trust'
		echo 'host all root     127.0.0.1/32 trust'
		cat "$hba"
	} >"$tmp"
	cat "$tmp" >"$hba"
	rm -f "$tmp"
	pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" main reload </dev/null >>"$STACK_DIR/postgres-start.log" 2>&1 9>&- || true
}

pg_up() {
	local fresh=0 state=running
	if ! command -v psql >/dev/null 2>&1 || ! command -v pg_ctlcluster >/dev/null 2>&1 ||
		[ ! -x "/usr/lib/postgresql/$PG_VERSION/bin/postgres" ]; then
		apt_install postgres "postgresql-$PG_VERSION"
		fresh=1
	fi
	if [ ! -f "$POSTGIS_CONTROL" ]; then
		apt_install postgres "postgresql-$PG_VERSION-postgis-3"
	fi
	[ -f "$POSTGIS_CONTROL" ] || die postgres "PostGIS still missing ($POSTGIS_CONTROL) after installing postgresql-$PG_VERSION-postgis-3"

	if ! pg_ready 3; then
		if [ ! -d "/etc/postgresql/$PG_VERSION/main" ]; then
			[ "$(id -u)" -eq 0 ] || die postgres "cluster $PG_VERSION/main does not exist; creating it needs root"
			pg_createcluster "$PG_VERSION" main </dev/null >>"$STACK_DIR/postgres-start.log" 2>&1 9>&- ||
				die postgres "pg_createcluster $PG_VERSION main failed (see $STACK_DIR/postgres-start.log)"
			fresh=1
		fi
		pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" main start \
			</dev/null >>"$STACK_DIR/postgres-start.log" 2>&1 9>&- ||
			die postgres "pg_ctlcluster $PG_VERSION main start failed (see $STACK_DIR/postgres-start.log and /var/log/postgresql/)"
		local i
		for ((i = 0; i < 60; i++)); do
			pg_ready 1 && break
			sleep 0.5
		done
		pg_ready 1 ||
			die postgres "started cluster $PG_VERSION/main but $PG_HOST:$PG_PORT does not answer after 30 s"
		state=started
	fi
	if [ "$fresh" -eq 1 ]; then pg_trust_localhost; fi

	local out db_exists=0
	out="$(psql_q -d postgres -c "SELECT count(*) FROM pg_database WHERE datname = '$PG_DB'" 2>&1)" ||
		die postgres "cannot connect as $PG_USER to $PG_HOST:$PG_PORT (expected trust auth on loopback): $out"
	[ "$out" = 1 ] && db_exists=1
	if [ "$db_exists" -eq 0 ]; then
		# A concurrent creator (another clone) may win the race: re-check.
		out="$(psql_q -d postgres -c "CREATE DATABASE $PG_DB" 2>&1)" ||
			[ "$(psql_q -d postgres -c "SELECT count(*) FROM pg_database WHERE datname = '$PG_DB'")" = 1 ] ||
			die postgres "CREATE DATABASE $PG_DB failed: $out"
	fi
	local ext=(-d "$PG_DB" -c 'SET client_min_messages = warning'
		-c 'CREATE EXTENSION IF NOT EXISTS postgis'
		-c "SELECT split_part(current_setting('server_version'), ' ', 1) || ' ' || extversion FROM pg_extension WHERE extname = 'postgis'")
	if ! out="$(psql_q "${ext[@]}" 2>&1)"; then
		sleep 1 # concurrent CREATE EXTENSION can fail once on a unique violation
		out="$(psql_q "${ext[@]}" 2>&1)" ||
			die postgres "CREATE EXTENSION postgis in $PG_DB failed: $out"
	fi
	local version="${out%% *}" postgis="${out#* }"
	say "postgres: $state $version on $PG_HOST:$PG_PORT, db $PG_DB (postgis $postgis)"
}

# ---------------------------------------------------------------- libjpeg
# The photo worker links libjpeg-turbo through cgo (media/photo/turbo.go):
# the headers and libjpeg.a for a static build. Without them a cgo build
# of the whole module fails.
jpeg_up() {
	if [ ! -f /usr/include/jpeglib.h ] || ! ls /usr/lib/*/libjpeg.a >/dev/null 2>&1; then
		apt_install libjpeg libjpeg62-turbo-dev
	fi
	[ -f /usr/include/jpeglib.h ] || die libjpeg "jpeglib.h still missing after installing libjpeg62-turbo-dev"
	# libwebp the same way, for the WebP derivatives (media/photo/webp.go).
	if [ ! -f /usr/include/webp/encode.h ] || ! ls /usr/lib/*/libwebp.a >/dev/null 2>&1; then
		apt_install libwebp libwebp-dev
	fi
	[ -f /usr/include/webp/encode.h ] || die libwebp "webp/encode.h still missing after installing libwebp-dev"
	say "libjpeg, libwebp: headers and static libraries ok"
}

# ---------------------------------------------------------------- chromium
# The test of /map (e2e/map_test.go) drives Debian's chromium with software
# WebGL. Only installed, never started. Without root it cannot be, and that
# test skips rather than fails.
chromium_up() {
	if ! command -v chromium >/dev/null 2>&1; then
		if [ "$(id -u)" -ne 0 ]; then
			note "chromium: missing; 'apt-get install chromium' needs root, so the map page test will skip"
			return 0
		fi
		apt_install chromium chromium
	fi
	local version
	version="$(chromium --version 2>/dev/null | sed -n 's/^Chromium \([0-9.]*\).*/\1/p')"
	[ -n "$version" ] || die chromium "installed but 'chromium --version' does not answer"
	say "chromium: $version installed"
}

# ---------------------------------------------------------------- redis
redis_ping() {
	[ "$(timeout 5 redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]
}

redis_up() {
	local state=running
	if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
		apt_install redis redis-server
	fi
	if ! redis_ping; then
		mkdir -p /var/lib/redis /var/log/redis || die redis "cannot create /var/lib/redis or /var/log/redis"
		redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" \
			--appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log \
			</dev/null >/dev/null 2>&1 9>&- ||
			die redis "redis-server failed to start (see /var/log/redis/ci.log)"
		local i
		for ((i = 0; i < 40; i++)); do
			redis_ping && break
			sleep 0.25
		done
		redis_ping || die redis "started redis-server but $REDIS_HOST:$REDIS_PORT does not answer PONG after 10 s (see /var/log/redis/ci.log)"
		state=started
	fi
	local version
	version="$(timeout 5 redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" info server 2>/dev/null |
		tr -d '\r' | sed -n 's/^redis_version://p')"
	case "$version" in
	[0-6].*) note "redis: warning: server is $version, guidepost expects Redis 7" ;;
	esac
	say "redis: $state $version on $REDIS_HOST:$REDIS_PORT"
}

# ---------------------------------------------------------------- s3
S3_SCHEME="${S3_ENDPOINT%%://*}"
S3_HOSTPORT="${S3_ENDPOINT#*://}"
S3_HOSTPORT="${S3_HOSTPORT%%/*}"
S3_HOST="${S3_HOSTPORT%:*}"
S3_PORT="${S3_HOSTPORT##*:}"
if [ "$S3_HOST" = "$S3_HOSTPORT" ]; then # no explicit port
	S3_HOST="$S3_HOSTPORT"
	if [ "$S3_SCHEME" = https ]; then S3_PORT=443; else S3_PORT=80; fi
fi

# s3_curl METHOD PATH [BODY_OUT] : SigV4-signed request with an empty body;
# prints the HTTP status (000 when nothing answers).
s3_curl() {
	local method=$1 path=$2 out=${3:-/dev/null}
	local args=(-sS -o "$out" -w '%{http_code}' --max-time 10
		--aws-sigv4 "aws:amz:$S3_REGION:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY"
		-H "x-amz-content-sha256: $EMPTY_SHA256")
	if [ "$method" = HEAD ]; then args+=(--head); else args+=(-X "$method"); fi
	curl "${args[@]}" "$S3_ENDPOINT/$path" 2>/dev/null || true
}

# s3_put_cors : sets the bucket's CORS so that a browser page can PUT parts
# to presigned URLs (with the checksum header they sign) and read photos,
# and read each part's ETag. Idempotent: PUT ?cors replaces the rules.
s3_put_cors() {
	local body="$STACK_DIR/s3-cors.xml" out="$STACK_DIR/s3-cors-answer.xml" origin rule code origins
	read -ra origins <<<"${S3_CORS_ORIGINS:-*}" # read, not a bare expansion: * must not glob
	rule=""
	for origin in "${origins[@]}"; do rule+="<AllowedOrigin>$origin</AllowedOrigin>"; done
	rule+="<AllowedMethod>GET</AllowedMethod><AllowedMethod>HEAD</AllowedMethod><AllowedMethod>PUT</AllowedMethod>"
	rule+="<AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>3600</MaxAgeSeconds>"
	printf '<CORSConfiguration><CORSRule>%s</CORSRule></CORSConfiguration>' "$rule" >"$body"
	code="$(curl -sS -o "$out" -w '%{http_code}' --max-time 10 -X PUT --data-binary "@$body" \
		--aws-sigv4 "aws:amz:$S3_REGION:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" \
		-H "Content-Type: application/xml" \
		-H "Content-MD5: $(openssl dgst -md5 -binary "$body" | base64)" \
		-H "x-amz-content-sha256: $(sha256sum "$body" | cut -d' ' -f1)" \
		"$S3_ENDPOINT/$S3_BUCKET?cors=" 2>/dev/null || true)"
	[ "$code" = 200 ] || die s3 "PUT bucket CORS of $S3_BUCKET: HTTP $code $(s3_error "$out")"
	rm -f "$body" "$out"
}

# Any HTTP answer (even 403 to an unsigned request) means the server is up.
s3_answers() {
	local code
	code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$S3_ENDPOINT/" 2>/dev/null || true)"
	[ -n "$code" ] && [ "$code" != 000 ]
}

# Prints the pid from the pidfile if it is a live versitygw serving our data dir.
vgw_pid() {
	local p cmd
	p="$(cat "$VGW_PIDFILE" 2>/dev/null)" || return 1
	[[ "$p" =~ ^[0-9]+$ ]] || return 1
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = versitygw ] || return 1
	cmd="$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")" || return 1
	[[ "$cmd" == *" $S3_DATA "* || "$cmd" == *" $S3_DATA" ]] || return 1
	printf '%s\n' "$p"
}

# True while some process runs `go install <versitygw>@<version>` (e.g. one
# started by hand, outside this script's lock).
other_vgw_install_running() {
	local f cmd
	for f in /proc/[0-9]*/cmdline; do
		cmd="$(tr '\0' ' ' 2>/dev/null <"$f")" || continue
		# (a bash match: a grep here would match its own command line)
		if [[ "$cmd" == *install*" $VGW_PKG@$VGW_VERSION"* ]]; then
			return 0
		fi
	done
	return 1
}

vgw_install() {
	[ -x "$VGW_BIN" ] && return 0
	mkdir -p "$VGW_DIR" || die s3 "cannot create $VGW_DIR"
	# Lock across clones sharing the tool cache.
	exec 8>"$VGW_DIR.lock"
	flock -w 1800 8 || die s3 "another install of versitygw into $VGW_DIR holds $VGW_DIR.lock for 30 minutes"
	local waited=0
	while [ ! -x "$VGW_BIN" ] && [ "$waited" -lt 1800 ] && other_vgw_install_running; do
		if [ $((waited % 60)) -eq 0 ]; then
			note "s3: waiting for a running 'go install $VGW_PKG@$VGW_VERSION' to finish"
		fi
		sleep 5
		waited=$((waited + 5))
	done
	if [ ! -x "$VGW_BIN" ]; then
		if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
			PATH="$PATH:/usr/local/go/bin"
		fi
		command -v go >/dev/null 2>&1 || die s3 "versitygw is not installed and 'go' is not on PATH to install it"
		local tmp
		tmp="$(mktemp -d "$VGW_DIR/.install.XXXXXX")"
		note "s3: installing versitygw $VGW_VERSION into $VGW_DIR (a cold build takes ~5 minutes)"
		if ! (cd "$tmp" && GOBIN="$tmp" GOFLAGS= GOWORK=off \
			go install "$VGW_PKG@$VGW_VERSION") </dev/null >"$STACK_DIR/versitygw-install.log" 2>&1 8>&- 9>&-; then
			rm -rf "$tmp"
			die s3 "go install $VGW_PKG@$VGW_VERSION failed (see $STACK_DIR/versitygw-install.log)"
		fi
		mv -f "$tmp/versitygw" "$VGW_BIN" # atomic: same directory tree
		rm -rf "$tmp"
	fi
	exec 8>&-
	"$VGW_BIN" --version >/dev/null 2>&1 ||
		die s3 "$VGW_BIN does not run; delete it to reinstall"
}

# vgw_start: starts versitygw in the background; returns 0 once it answers,
# 2 if it exited for lack of xattr support, 1 if it exited for another reason,
# 3 if it ran but did not answer within ~20 s (it is then stopped). The log
# lines of this start are left in VGW_START_LOG.
VGW_START_LOG=
vgw_start() {
	local meta=()
	[ -d "$S3_SIDECAR" ] && meta=(--sidecar "$S3_SIDECAR")
	mkdir -p "$S3_DATA"
	local from
	from=$(($(stat -c %s "$VGW_LOG" 2>/dev/null || echo 0) + 1))
	printf -- '--- %s start versitygw %s %s\n' "$(date -Is)" "$VGW_VERSION" "${meta[*]}" >>"$VGW_LOG"
	ROOT_ACCESS_KEY_ID="$S3_ACCESS_KEY" ROOT_SECRET_ACCESS_KEY="$S3_SECRET_KEY" \
		setsid nohup "$VGW_BIN" --port "127.0.0.1:$S3_PORT" --region "$S3_REGION" --quiet \
		posix "${meta[@]}" "$S3_DATA" </dev/null >>"$VGW_LOG" 2>&1 8>&- 9>&- &
	local pid=$!
	echo "$pid" >"$VGW_PIDFILE"
	local i
	for ((i = 0; i < 100; i++)); do # ~20 s
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$VGW_PIDFILE"
			VGW_START_LOG="$(tail -c "+$from" "$VGW_LOG" | sed 1d | tr '\n' ' ')"
			if [[ "$VGW_START_LOG" == *xattr* ]]; then return 2; fi
			return 1
		fi
		if s3_answers && [ "$(vgw_pid)" = "$pid" ]; then return 0; fi
		sleep 0.2
	done
	kill "$pid" 2>/dev/null || true
	rm -f "$VGW_PIDFILE"
	VGW_START_LOG="$(tail -c "+$from" "$VGW_LOG" | sed 1d | tr '\n' ' ')"
	return 3
}

# s3_error FILE : "Code: Message" from an S3 XML error body.
s3_error() {
	local code msg
	code="$(sed -n 's:.*<Code>\([^<]*\)</Code>.*:\1:p' "$1" | head -n 1)"
	msg="$(sed -n 's:.*<Message>\([^<]*\)</Message>.*:\1:p' "$1" | head -n 1 | sed 's/&#34;/"/g')"
	if [ -n "$code" ]; then printf '%s: %s' "$code" "$msg"; else head -c 300 "$1" | tr '\n' ' '; fi
}

s3_up() {
	local state
	# Installed even when an S3 server already answers: the fault tests start
	# private versitygw instances from this binary.
	vgw_install
	case "$S3_HOST" in
	127.0.0.1 | localhost)
		[ "$S3_SCHEME" = http ] || die s3 "S3_ENDPOINT=$S3_ENDPOINT: the local versitygw serves plain http"
		local pid
		if pid="$(vgw_pid)"; then
			local i
			for ((i = 0; i < 100; i++)); do
				s3_answers && break
				sleep 0.2
			done
			s3_answers || die s3 "versitygw pid $pid runs but $S3_ENDPOINT does not answer; stop it with scripts/stack-stop.sh"
			state="running versitygw $VGW_VERSION on 127.0.0.1:$S3_PORT (pid $pid)"
		elif s3_answers; then
			rm -f "$VGW_PIDFILE"
			state="running: $S3_ENDPOINT already answers (not started by this stack)"
		else
			vgw_install
			local rc=0
			vgw_start || rc=$?
			if [ "$rc" -eq 2 ] && [ ! -d "$S3_SIDECAR" ]; then
				note "s3: no xattr support on $(dirname "$S3_DATA"); using a sidecar metadata dir"
				mkdir -p "$S3_SIDECAR"
				rc=0
				vgw_start || rc=$?
			fi
			case "$rc" in
			0) ;;
			3) die s3 "versitygw started but did not answer on 127.0.0.1:$S3_PORT within 20 s (stopped it); log: $VGW_START_LOG" ;;
			*) die s3 "versitygw exited at start on 127.0.0.1:$S3_PORT: $VGW_START_LOG(full log: $VGW_LOG)" ;;
			esac
			state="started versitygw $VGW_VERSION on 127.0.0.1:$S3_PORT (pid $(cat "$VGW_PIDFILE"))"
		fi
		;;
	*)
		state="external endpoint $S3_ENDPOINT (versitygw not started)"
		;;
	esac

	local code
	code="$(s3_curl HEAD "$S3_BUCKET")"
	if [ "$code" != 200 ]; then
		local body="$STACK_DIR/s3-create-bucket.xml"
		code="$(s3_curl PUT "$S3_BUCKET" "$body")"
		case "$code" in
		200) ;;
		409) grep -q BucketAlreadyOwnedByYou "$body" ||
			die s3 "cannot create bucket $S3_BUCKET at $S3_ENDPOINT: HTTP 409 $(s3_error "$body")" ;;
		000) die s3 "PUT bucket $S3_BUCKET: $S3_ENDPOINT does not answer" ;;
		403) die s3 "PUT bucket $S3_BUCKET at $S3_ENDPOINT: HTTP 403 $(s3_error "$body") (do S3_ACCESS_KEY/S3_SECRET_KEY match the running server?)" ;;
		*)
			local hint=""
			grep -q AuthorizationHeaderMalformed "$body" &&
				hint=" (S3_REGION differs from the running server's: restart it with scripts/stack-stop.sh && scripts/stack.sh)"
			die s3 "PUT bucket $S3_BUCKET at $S3_ENDPOINT: HTTP $code $(s3_error "$body")$hint"
			;;
		esac
		rm -f "$body"
		code="$(s3_curl HEAD "$S3_BUCKET")"
		[ "$code" = 200 ] || die s3 "bucket $S3_BUCKET created but a signed HEAD answers HTTP $code"
	fi
	s3_put_cors
	say "s3: $state, bucket $S3_BUCKET ok (CORS: ${S3_CORS_ORIGINS:-*})"
}

jpeg_up
chromium_up
pg_up
redis_up
s3_up
if [ -n "${GUIDEPOST_SENTINEL:-}" ]; then
	url="$(bash "$ROOT/scripts/sentinel.sh" start "$GUIDEPOST_SENTINEL")" || die sentinel "cannot start the Sentinel set in $GUIDEPOST_SENTINEL"
	say "sentinel: up, REDIS_URL=$url"
fi
if [ -n "${GUIDEPOST_PG_REPLICA:-}" ]; then
	urls="$(bash "$ROOT/scripts/replica.sh" start "$GUIDEPOST_PG_REPLICA" 9>&-)" || die replica "cannot start the PostgreSQL pair in $GUIDEPOST_PG_REPLICA"
	say "replica: up, $(echo "$urls" | tr '\n' ' ')"
fi
