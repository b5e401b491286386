#!/usr/bin/env bash
# Installs the TypeScript client's pinned npm packages (clients/typescript,
# from its package-lock.json) when they are missing or the lock changed,
# then runs `npm run ARGS` there. With no ARGS it only installs.
#
# npm ci keeps its downloads in npm's cache, so a second install, or one
# after the lock is back to an earlier state, needs no network. Needs node
# (≥ 18) and npm: installed with apt when missing. Never prompts.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/clients/typescript"

die() {
	echo "ts-client: $*" >&2
	exit 1
}

export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false NO_UPDATE_NOTIFIER=1

if ! command -v npm >/dev/null 2>&1; then
	echo "ts-client: installing nodejs and npm with apt" >&2
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm </dev/null >/dev/null; } ||
		die "npm is missing and apt-get could not install it: apt-get install nodejs npm"
fi

stamp="$DIR/node_modules/.package-lock.sha256"
want="$(sha256sum "$DIR/package-lock.json" | cut -d' ' -f1)"
if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
	# Tests of several packages may start this at once.
	exec 8>"$DIR/.install.lock"
	flock -w 600 8 || die "another install holds $DIR/.install.lock for 10 minutes"
	if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
		echo "ts-client: npm ci in clients/typescript" >&2
		(cd "$DIR" && npm ci --prefer-offline --loglevel=error </dev/null >&2) || die "npm ci failed"
		echo "$want" >"$stamp"
	fi
	exec 8>&-
fi

(($# == 0)) && exit 0
cd "$DIR"
exec npm run --silent "$@" </dev/null
