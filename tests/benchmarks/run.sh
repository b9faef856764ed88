#!/usr/bin/env bash
# run.sh — the exec benchmark (docs/benchmarks.md). Not a test: it measures, it does not judge.
#
#   bash tests/benchmarks/run.sh [--engine docker|podman|kubernetes] [--runs N] [--create-runs M]
#   bash tests/benchmarks/run.sh --http-load [--sessions 50] [--calls 20] [--idle 500]
#   bash tests/benchmarks/run.sh --eras [--requests 500] [--rate 500] [--seconds 60] [--churn-seconds 60]
#   bash tests/benchmarks/run.sh --checkpoints [--engine docker|podman] [--runs N]
#   bash tests/benchmarks/run.sh --processes [--engine docker|podman] [--runs N]
#
# Makes sure the engine and the test images exist, builds the host and its plugins in Release
# (build-bench/, no sanitizers, no tests), builds the benchmark driver, prints the machine
# and then the driver's Markdown table. With --engine kubernetes: the local cluster
# (scripts/engines/kubernetes-up.sh, which reuses a healthy one) and kubectl
# (scripts/engines/kubectl-up.sh), and only the host and the Kubernetes plugin are built.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${VC_BENCH_BUILD_DIR:-$root/build-bench}
jobs=${VC_BENCH_JOBS:-2}

engine=docker
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ "${args[i]}" == "--engine" && $((i + 1)) -lt ${#args[@]} ]]; then engine=${args[i + 1]}; fi
done

log() { printf 'benchmark: %s\n' "$*" >&2; }

kubernetes_args=()
build_targets=()
if [[ "$engine" == kubernetes ]]; then
  kubeconfig=$(bash "$root/scripts/engines/kubernetes-up.sh" | tail -n 1)
  kubectl=$(bash "$root/scripts/engines/kubectl-up.sh" | tail -n 1)
  kubernetes_args=(--kubeconfig "$kubeconfig" --kubectl "$kubectl")
  build_targets=(--target mcp-virtual-computer vc_backend_kubernetes)
else
  bash "$root/scripts/engines/$engine-up.sh"
fi
if [[ "$engine" == podman ]]; then
  export CONTAINERS_CONF=${CONTAINERS_CONF:-/etc/mcp-virtual-computer-test/containers.conf}
fi

log "building the host and plugins in Release ($build)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --parallel "$jobs" "${build_targets[@]}" >&2
log "building the benchmark driver"
cmake -S "$root/tests/benchmarks" -B "$build/benchmarks" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build/benchmarks" --parallel "$jobs" >&2

echo "## Machine"
echo "- CPUs: $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))"
echo "- memory: $(free -m | awk '/^Mem:/ {print $2 " MiB"}')"
echo "- kernel: $(uname -r)"
case "$engine" in
  docker) echo "- engine: dockerd $(docker version --format '{{.Server.Version}}' 2>/dev/null), API $(docker version --format '{{.Server.APIVersion}}' 2>/dev/null); CLI $(docker version --format '{{.Client.Version}}' 2>/dev/null) ($(command -v docker))" ;;
  podman) echo "- engine: podman $(podman version --format '{{.Server.Version}}' 2>/dev/null || podman --version)" ;;
  kubernetes)
    echo "- engine: Kubernetes $("$kubectl" --kubeconfig "$kubeconfig" version -o json 2>/dev/null | jq -r .serverVersion.gitVersion) (scripts/engines/kubernetes-up.sh: one node, the kubelet's dockershim on dockerd $(docker version --format '{{.Server.Version}}' 2>/dev/null))"
    echo "- kubectl: $("$kubectl" version --client -o json | jq -r .clientVersion.gitVersion), $(cat "$(dirname "$kubectl")/origin") ($kubectl)" ;;
esac
echo "- load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- command: bash tests/benchmarks/run.sh $*"
echo
echo "## Results"
if [[ " $* " == *" --eras "* ]]; then
  args=()
  for arg in "$@"; do [[ "$arg" == --eras ]] || args+=("$arg"); done
  exec node "$root/tests/benchmarks/era_bench.mjs" "$build/bin/mcp-virtual-computer" \
    "$build/lib/mcp-virtual-computer/backends" "${args[@]}"
fi
if [[ " $* " == *" --http-load "* ]]; then
  args=()
  for arg in "$@"; do [[ "$arg" == --http-load ]] || args+=("$arg"); done
  exec node "$root/tests/benchmarks/http_load.mjs" "$build/bin/mcp-virtual-computer" \
    "$build/lib/mcp-virtual-computer/backends" "${args[@]}"
fi
if [[ " $* " == *" --processes "* ]]; then
  args=()
  for arg in "$@"; do [[ "$arg" == --processes ]] || args+=("$arg"); done
  exec "$build/benchmarks/vc_process_benchmark" \
    --plugin-dir "$build/lib/mcp-virtual-computer/backends" "${args[@]}"
fi
if [[ " $* " == *" --checkpoints "* ]]; then
  args=()
  for arg in "$@"; do [[ "$arg" == --checkpoints ]] || args+=("$arg"); done
  exec "$build/benchmarks/vc_checkpoint_benchmark" \
    --plugin-dir "$build/lib/mcp-virtual-computer/backends" "${args[@]}"
fi
"$build/benchmarks/vc_exec_benchmark" \
  --host-binary "$build/bin/mcp-virtual-computer" \
  --plugin-dir "$build/lib/mcp-virtual-computer/backends" \
  "${kubernetes_args[@]}" "$@"
