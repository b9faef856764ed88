#!/usr/bin/env bash
# operator.sh — the operator command line against the engine's own CLI (docs/benchmarks.md).
# Not a test: it measures, it does not judge.
#
#   bash tests/benchmarks/operator.sh [--engine docker|podman] [--runs N]
#
# Builds the host and plugins in Release (build-bench/), makes one computer through the
# server, then times N runs of each pair (median and p90 of wall-clock milliseconds, a whole
# process each: start, load the plugin, talk to the engine, exit):
#   `computers list --json`             vs  `<engine> ps -a --filter label=kilntainers.computer-id`
#   `computers exec ID -- true`         vs  `<engine> exec kilntainer-ID true`
# and deletes the computer at the end.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${VC_BENCH_BUILD_DIR:-$root/build-bench}
jobs=${VC_BENCH_JOBS:-2}
engine=docker
runs=30
while [[ $# -gt 0 ]]; do
  case "$1" in
    --engine) engine=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "usage: operator.sh [--engine docker|podman] [--runs N]" >&2; exit 2 ;;
  esac
done
log() { printf 'benchmark: %s\n' "$*" >&2; }

bash "$root/scripts/engines/$engine-up.sh" >&2
if [[ "$engine" == podman ]]; then
  export CONTAINERS_CONF=${CONTAINERS_CONF:-/etc/mcp-virtual-computer-test/containers.conf}
fi
log "building the host and plugins in Release ($build)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --parallel "$jobs" >&2

host=("$build/bin/mcp-virtual-computer" --backend "$engine"
      --plugin-dir "$build/lib/mcp-virtual-computer/backends" --log-level error)
id="bench-operator-$$"
cleanup() { "${host[@]}" computers delete --yes "$id" >/dev/null 2>&1 || true; }
trap cleanup EXIT

log "creating computer $id through the server"
scratch=$(mktemp -d)
mkfifo "$scratch/in"
"${host[@]}" --computer-id "$id" <"$scratch/in" >"$scratch/out" &
server=$!
exec 3>"$scratch/in"
echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' >&3
echo '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"computer_ui","arguments":{}}}' >&3
for ((i = 0; i < 600; i++)); do
  grep -q '"id":2' "$scratch/out" && break
  sleep 0.1
done
exec 3>&-  # EOF: the server exits
wait "$server"
grep -q '"computer_attached":true' "$scratch/out" || { log "could not create $id: $(cat "$scratch/out")"; exit 1; }
rm -rf "$scratch"

# Median and p90 of `runs` timings of a command, in milliseconds.
measure() {
  local times=()
  for ((i = 0; i < runs; i++)); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    times+=($(((end - start) / 1000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v n="$runs" '
    { v[NR] = $1 }
    END { printf "%.1f | %.1f", v[int((n + 1) / 2)] / 1000, v[int(n * 0.9 + 0.5)] / 1000 }'
}

echo "## Operator command line vs the $engine CLI ($runs runs each, wall-clock ms)"
echo "- machine: $(nproc) CPUs, $(free -m | awk '/^Mem:/ {print $2 " MiB"}'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- command: bash tests/benchmarks/operator.sh --engine $engine --runs $runs"
echo
echo "| what | median | p90 |"
echo "|---|---|---|"
echo "| \`computers list --json\` | $(measure "${host[@]}" computers list --json) |"
echo "| \`$engine ps -a --filter label=kilntainers.computer-id\` | $(measure "$engine" ps -a --filter label=kilntainers.computer-id) |"
echo "| \`computers exec $id -- true\` | $(measure "${host[@]}" computers exec "$id" -- true) |"
echo "| \`$engine exec kilntainer-$id true\` | $(measure "$engine" exec "kilntainer-$id" true) |"
