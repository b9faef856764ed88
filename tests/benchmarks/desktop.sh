#!/usr/bin/env bash
# desktop.sh — the desktop benchmark (docs/benchmarks.md). Not a test: it measures.
#
#   bash tests/benchmarks/desktop.sh [--engine docker|podman|kubernetes] [--runs N] [--cold-build] [--tools|--tasks|--app]
#
# --tools times the desktop tools' MCP round trips instead (desktop_tools_bench.mjs); --tasks
# scripted agent tasks step by step and as desktop_actions batches, settling per input action,
# and the accessibility snapshot with 1 and 10 windows (desktop_tasks_bench.mjs); --app the
# MCP App in a chat client's iframe (app_bench.mjs: size, first frame, idle CPU).
# Builds the host and plugins in Release (build-bench/), installs the browser client from
# tests/e2e's lock file, then measures with desktop_bench.mjs: create -> desktop visible in
# Chromium, Xfce on and off through set_desktop_environment, memory and idle CPU of a desktop
# computer with Xfce off and on. --cold-build first removes the bundled image and times the
# plugin building it again (`computers prepare`), with only the Debian base cached.
#
# --engine kubernetes runs the computers as pods on the local cluster
# (scripts/engines/kubernetes-up.sh, which reuses a healthy one; kubeconfig from
# VC_TEST_KUBECONFIG, default /var/lib/mcp-virtual-computer-k8s/kubeconfig) from the desktop
# image already in the node's dockerd (--image-pull-policy Never), in a namespace of the run's
# own (vc-test-desktop-bench-<pid>, created with scripts/engines/kubectl-up.sh's kubectl and
# deleted at the end), and builds only the host and the Kubernetes plugin. The view goes through
# the plugin's local listener and the API server's port-forward. --cold-build does not apply
# (the plugin builds no image for a cluster), nor do --tools, --tasks and --app (measured on
# docker and podman).
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
    --tasks) bench=desktop_tasks_bench.mjs; shift ;;
    --app) bench=app_bench.mjs; shift ;;
    *) passthrough+=("$1"); shift ;;
  esac
done
log() { printf 'benchmark: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

build_targets=()
case "$engine" in
  docker)
    bash "$root/scripts/engines/docker-up.sh"
    address=(--docker-host unix:///var/run/docker.sock) ;;
  podman)
    bash "$root/scripts/engines/podman-up.sh"
    export CONTAINERS_CONF=${CONTAINERS_CONF:-/etc/mcp-virtual-computer-test/containers.conf}
    address=(--podman-socket unix:///run/podman/podman.sock) ;;
  kubernetes)
    ((cold)) && die "--cold-build does not apply to --engine kubernetes: the Kubernetes plugin builds no image, the node must have mcp-virtual-computer-desktop:bookworm already (time its build with --engine docker --cold-build)."
    [[ $bench == desktop_bench.mjs ]] ||
      die "--tools, --tasks and --app are measured with --engine docker or podman; on kubernetes only the desktop rows (desktop_bench.mjs) run."
    bash "$root/scripts/engines/kubernetes-up.sh" >/dev/null
    kubeconfig=${VC_TEST_KUBECONFIG:-/var/lib/mcp-virtual-computer-k8s/kubeconfig}
    [[ -r $kubeconfig ]] || die "Cannot read the kubeconfig $kubeconfig; set VC_TEST_KUBECONFIG to the local cluster's."
    kubectl=$(bash "$root/scripts/engines/kubectl-up.sh" | tail -n 1)
    kube=("$kubectl" --kubeconfig "$kubeconfig")
    name_space=vc-test-desktop-bench-$$
    "${kube[@]}" create namespace "$name_space" >/dev/null ||
      die "Cannot create the namespace $name_space with $kubectl; is the cluster in $kubeconfig up?"
    trap '"${kube[@]}" delete namespace "$name_space" --wait=false >/dev/null 2>&1 || log "could not delete the namespace $name_space"' EXIT
    # Kubernetes v1.20 refuses pods in a namespace until its default service account has a token.
    for ((waited = 0; ; waited++)); do
      [[ -n $("${kube[@]}" -n "$name_space" get serviceaccount default -o 'jsonpath={.secrets[0].name}' 2>/dev/null) ]] && break
      ((waited < 180)) || die "The namespace $name_space got no service account token within 90 s; read the kube-controller-manager's log."
      sleep 0.5
    done
    address=(--kubeconfig "$kubeconfig" --namespace "$name_space" --image-pull-policy Never)
    build_targets=(--target mcp-virtual-computer vc_backend_kubernetes) ;;
  *) die "--engine $engine: expected docker, podman or kubernetes." ;;
esac
log "building the host and plugins in Release ($build)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVC_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --parallel 2 "${build_targets[@]}" >&2
host="$build/bin/mcp-virtual-computer"

work="$build/desktop-npm"
mkdir -p "$work"
cp "$root/tests/e2e/package.json" "$root/tests/e2e/package-lock.json" "$work/"
if ! cmp -s "$work/package-lock.json" "$work/node_modules/.installed-lock" 2>/dev/null; then
  (cd "$work" && npm ci --no-audit --no-fund --loglevel=error >&2)
  cp "$work/package-lock.json" "$work/node_modules/.installed-lock"
fi
cp "$root/tests/benchmarks/desktop_bench.mjs" "$root/tests/benchmarks/desktop_tools_bench.mjs" \
   "$root/tests/benchmarks/desktop_tasks_bench.mjs" \
   "$root/tests/benchmarks/app_bench.mjs" "$root/tests/e2e/app_support.mjs" "$work/"
export VC_APP_FILE="$build/share/mcp-virtual-computer/computer.html"
export VC_APP_HARNESS="$build/test-support/app-host-harness.html"

echo "## Machine"
echo "- CPUs: $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), memory $(free -m | awk '/^Mem:/ {print $2 " MiB"}'), kernel $(uname -r)"
if [[ $engine == kubernetes ]]; then
  echo "- engine: Kubernetes $("${kube[@]}" version -o json 2>/dev/null | jq -r .serverVersion.gitVersion) (scripts/engines/kubernetes-up.sh: one node, the kubelet's dockershim on dockerd $(docker version --format '{{.Server.Version}}' 2>/dev/null)), namespace $name_space; load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
else
  echo "- engine: $engine; load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
echo "- command: bash tests/benchmarks/desktop.sh ${passthrough[*]} $( ((cold)) && echo --cold-build) $([[ $bench == desktop_tools_bench.mjs ]] && echo --tools) $([[ $bench == desktop_tasks_bench.mjs ]] && echo --tasks) $([[ $bench == app_bench.mjs ]] && echo --app)"
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
# Not exec: on kubernetes the EXIT trap deletes the run's namespace afterwards.
node "$bench" "$host" --backend "$engine" "${address[@]}" \
  --image mcp-virtual-computer-desktop:bookworm --lifecycle-tools "${passthrough[@]}"
