#!/usr/bin/env bash
# Lints api/openapi.yaml with Redocly CLI's recommended rules, installing the
# pinned CLI into the tool cache (outside the clone) on first use.
#
# 1.34.x because it runs on Debian 12's nodejs (18.x); 2.x needs Node ≥ 20.19.
# Needs node and npm (installed with apt when missing). Never prompts: safe
# under CI=true with no stdin.
#
# Environment (all optional):
#   GUIDEPOST_TOOLS   ${XDG_CACHE_HOME:-$HOME/.cache}/guidepost/tools
set -euo pipefail

REDOCLY_VERSION=1.34.20

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS_DIR="${GUIDEPOST_TOOLS:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/guidepost/tools}"
DIR="$TOOLS_DIR/redocly-$REDOCLY_VERSION"
BIN="$DIR/node_modules/.bin/redocly"

die() {
	echo "lint-openapi: $*" >&2
	exit 1
}

# No update checks, telemetry or colour codes in logs.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

install() {
	if ! command -v npm >/dev/null 2>&1; then
		# A fresh Debian machine: install what the README's commands need.
		echo "lint-openapi: installing nodejs and npm with apt" >&2
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm </dev/null >/dev/null; } ||
			die "npm is missing and apt-get could not install it: apt-get install nodejs npm"
	fi
	mkdir -p "$TOOLS_DIR"
	# Lock across clones sharing the tool cache; install into a scratch
	# folder and rename, so an interrupted install never looks complete.
	exec 8>"$DIR.lock"
	flock -w 600 8 || die "another install holds $DIR.lock for 10 minutes"
	[[ -x "$BIN" ]] && return
	local tmp
	tmp="$(mktemp -d "$TOOLS_DIR/.redocly-XXXXXX")"
	echo "lint-openapi: installing @redocly/cli@$REDOCLY_VERSION into $DIR" >&2
	if ! npm install --prefix "$tmp" --loglevel=error "@redocly/cli@$REDOCLY_VERSION" </dev/null >&2; then
		rm -rf "$tmp"
		die "npm install @redocly/cli@$REDOCLY_VERSION failed"
	fi
	rm -rf "$DIR"
	mv "$tmp" "$DIR"
}

[[ -x "$BIN" ]] || install
cd "$ROOT"
# Redocly exits 0 on warnings; the document is held to none either.
status=0
out="$("$BIN" lint --extends=recommended --format=stylish api/openapi.yaml </dev/null 2>&1)" || status=$?
echo "$out"
((status == 0)) || die "api/openapi.yaml has lint errors"
! grep -qE '^ +[0-9]+:[0-9]+ +warning ' <<<"$out" || die "api/openapi.yaml has lint warnings"
