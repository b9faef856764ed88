#!/usr/bin/env bash
# desktop.sh — the desktop benchmark (docs/benchmarks.md). Not a test: it measures.
#
#   bash tests/benchmarks/desktop.sh [--engine docker|podman] [--runs N] [--cold-build] [--tools|--app]
#
# --tools times the desktop tools' MCP round trips instead (desktop_tools_bench.mjs); --app the
# MCP App in a chat client's iframe (app_bench.mjs: size, first frame, idle CPU).
# Builds the host and plugins in Release (build-bench/), installs the browser client from
# tests/e2e's lock file, then measures with desktop_bench.mjs: create -> desktop visible in
# Chromium, Xfce on and off through set_desktop_environment, memory and idle CPU of a desktop
# computer with Xfce off and on. --cold-build first removes the bundled image and times the
# plugin building it again (`computers prepare`), with only the Debian base cached.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${VC_BENCH_BUILD_DIR:-$root/build-bench}
engine=docker
cold=0
bench=desktop_bench.mjs
passthrough=()
while (($#)); do
  case "$1" in
    --engine) engine=$2; passthrough+=("$1" "$2"); shift 2 ;;
    --cold-build) cold=1; shift ;;
    --tools) bench=desktop_tools_bench.mjs; shift ;;
    --app) bench=app_bench.mjs; shift ;;
    *) passthrough+=("$1"); shift ;;
  esac
done
log() { printf 'benchmark: %s\n' "$*" >&2; }

bash "$root/scripts/engines/$engine-up.sh"
address=(--docker-host unix:///var/run/docker.sock)
if [[ $engine == podman ]]; then
  export CONTAINERS_CONF=${CONTAINERS_CONF:-/etc/mcp-virtual-computer-test/containers.conf}
  address=(--podman-socket unix:///run/podman/podman.sock)
fi
log "building the host and plugins in Release ($build)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --parallel 2 >&2
host="$build/bin/mcp-virtual-computer"

work="$build/desktop-npm"
mkdir -p "$work"
cp "$root/tests/e2e/package.json" "$root/tests/e2e/package-lock.json" "$work/"
if ! cmp -s "$work/package-lock.json" "$work/node_modules/.installed-lock" 2>/dev/null; then
  (cd "$work" && npm ci --no-audit --no-fund --loglevel=error >&2)
  cp "$work/package-lock.json" "$work/node_modules/.installed-lock"
fi
cp "$root/tests/benchmarks/desktop_bench.mjs" "$root/tests/benchmarks/desktop_tools_bench.mjs" \
   "$root/tests/benchmarks/app_bench.mjs" "$root/tests/e2e/app_support.mjs" "$work/"
export VC_APP_FILE="$build/share/mcp-virtual-computer/computer.html"
export VC_APP_HARNESS="$build/test-support/app-host-harness.html"

echo "## Machine"
echo "- CPUs: $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), memory $(free -m | awk '/^Mem:/ {print $2 " MiB"}'), kernel $(uname -r)"
echo "- engine: $engine; load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- command: bash tests/benchmarks/desktop.sh ${passthrough[*]} $( ((cold)) && echo --cold-build) $([[ $bench == desktop_tools_bench.mjs ]] && echo --tools) $([[ $bench == app_bench.mjs ]] && echo --app)"
echo
if ((cold)); then
  cli=$engine
  $cli rmi -f mcp-virtual-computer-desktop:bookworm >/dev/null 2>&1 || true
  $cli builder prune -f >/dev/null 2>&1 || $cli image prune -f >/dev/null 2>&1 || true
  start=$(date +%s.%N)
  "$host" --backend "$engine" "${address[@]}" computers prepare >&2
  end=$(date +%s.%N)
  printf '| cold image build (computers prepare, base image cached) | %.1f s |\n' "$(echo "$end - $start" | bc)"
fi
cd "$work"
exec node "$bench" "$host" --backend "$engine" "${address[@]}" \
  --image mcp-virtual-computer-desktop:bookworm --lifecycle-tools "${passthrough[@]}"
