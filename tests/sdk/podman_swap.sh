#!/usr/bin/env bash
# podman_swap.sh — a user swaps Docker for Podman without rebuilding the host.
#
#  1. installs this build's host, SDK and Docker plugin into a temporary prefix, WITHOUT the
#     Podman plugin (cmake --install per component), and records the host's checksum;
#  2. configures and builds plugins/podman as a project of its own against that installed SDK
#     (find_package(VcBackendSdk)), in Release with -Werror;
#  3. `plugins --plugin-dir <podman build>` lists both engines;
#  4. the already-installed host runs `--plugin-dir <podman build> --backend podman` over stdio
#     and a command runs in a real Podman container;
#  5. the host's checksum is unchanged.
#
# Usage: podman_swap.sh --build-dir DIR --source-dir DIR --cmake CMAKE --c-compiler CC
#                       --cxx-compiler CXX [--config CONFIG] [--host-target NAME]
# Exit 77 (skipped) without a host in this build, or without a Podman service at
# /run/podman/podman.sock — unless VC_REQUIRE_ENGINES names podman, which makes that a failure.
set -euo pipefail

build_dir="" source_dir="" cmake_bin="cmake" c_compiler="cc" cxx_compiler="c++"
config="" host_target=""
while (($#)); do
  case "$1" in
    --build-dir) build_dir="$2" ;;
    --source-dir) source_dir="$2" ;;
    --cmake) cmake_bin="$2" ;;
    --c-compiler) c_compiler="$2" ;;
    --cxx-compiler) cxx_compiler="$2" ;;
    --config) config="$2" ;;
    --host-target) host_target="$2" ;;
    *) echo "podman_swap.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done

podman_socket=/run/podman/podman.sock
podman_required=0
[[ ",${VC_REQUIRE_ENGINES:-}," == *,podman,* ]] && podman_required=1

skip() {
  if ((podman_required)); then
    echo "FAIL: VC_REQUIRE_ENGINES names podman, but $*" >&2
    exit 1
  fi
  echo "SKIP: $*"
  exit 77
}

[[ -n "$host_target" ]] || skip "this build has no host executable (mcp-virtual-computer) to install"
curl -sf --max-time 5 --unix-socket "$podman_socket" http://d/_ping >/dev/null 2>&1 ||
  skip "no Podman service answers at $podman_socket (run bash scripts/engines/podman-up.sh)"

work="$(mktemp -d "${TMPDIR:-/tmp}/vc-podman-swap.XXXXXX")"
host_pid=""
computer_id="swap-$$"
export CONTAINERS_CONF=${CONTAINERS_CONF:-/etc/mcp-virtual-computer-test/containers.conf}
cleanup() {
  if [[ -n "$host_pid" ]] && kill -0 "$host_pid" 2>/dev/null; then
    kill -KILL "$host_pid" 2>/dev/null || true
  fi
  podman rm -f -t 0 "kilntainer-$computer_id" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

quiet() {
  local log="$work/step.log"
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "command failed: $*"
  fi
}

prefix="$work/prefix"
echo "== installing the host, the SDK and the Docker plugin (not Podman's) into $prefix"
for component in Unspecified backend-docker; do
  install_args=(--install "$build_dir" --prefix "$prefix" --component "$component")
  [[ -n "$config" ]] && install_args+=(--config "$config")
  quiet "$cmake_bin" "${install_args[@]}"
done
host="$prefix/bin/mcp-virtual-computer"
backends="$prefix/lib/mcp-virtual-computer/backends"
[[ -x "$host" ]] || fail "the install lacks bin/mcp-virtual-computer"
[[ -f "$backends/vc-backend-docker.so" ]] || fail "the install lacks the Docker plugin"
# The desktop image's build context is installed beside the plugin that builds from it.
[[ -f "$backends/desktop-image/Dockerfile" && -x "$backends/desktop-image/vc-supervisor" ]] ||
  fail "the install lacks the desktop image's build context beside the plugin"
[[ ! -e "$backends/vc-backend-podman.so" ]] || fail "the install has a Podman plugin already"
checksum_before="$(sha256sum "$host" | cut -d' ' -f1)"

echo "== building plugins/podman against the installed SDK"
plugin_build="$work/podman-build"
quiet "$cmake_bin" -S "$source_dir/plugins/podman" -B "$plugin_build" \
  -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
  -DCMAKE_C_COMPILER="$c_compiler" -DCMAKE_CXX_COMPILER="$cxx_compiler" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-Werror -DVC_PODMAN_PLUGIN_TESTS=OFF
sdk_dir="$(sed -n 's/^VcBackendSdk_DIR:PATH=//p' "$plugin_build/CMakeCache.txt")"
[[ "$sdk_dir" == "$prefix"/* ]] || fail "find_package used $sdk_dir, not the temporary prefix"
quiet "$cmake_bin" --build "$plugin_build" --parallel "$(nproc)"
plugin="$plugin_build/vc-backend-podman.so"
[[ -f "$plugin" ]] || fail "the build did not produce $plugin"
exports="$(nm -D --defined-only "$plugin" | awk '{print $NF}' | sort -u | tr '\n' ' ')"
[[ "$exports" == "vc_plugin_entry_v1 " ]] || fail "$plugin exports: $exports"
[[ -f "$plugin_build/desktop-image/Dockerfile" ]] ||
  fail "the out-of-tree build did not put the desktop image's build context beside $plugin"

export HOME="$work/home" XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data" \
  XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache"
mkdir -p "$HOME"
unset MCP_VIRTUAL_COMPUTER_PLUGIN_PATH DOCKER_HOST CONTAINER_HOST

echo "== mcp-virtual-computer plugins --plugin-dir $plugin_build"
listing="$work/plugins.txt"
"$host" plugins --plugin-dir "$plugin_build" >"$listing" 2>"$work/plugins.err" ||
  { cat "$listing" "$work/plugins.err" >&2; fail "'plugins' exited non-zero"; }
for id in org.mcp-virtual-computer.docker org.mcp-virtual-computer.podman; do
  grep -q "$id" "$listing" || { cat "$listing" >&2; fail "the listing does not show $id"; }
done

echo "== MCP session over stdio with --backend podman"
host_log="$work/host.log"
responses="$work/responses.jsonl"
: >"$responses"
export COMPUTER_ID="$computer_id"
coproc HOST {
  exec "$host" --plugin-dir "$plugin_build" --backend podman \
    --podman-socket "unix://$podman_socket" --image debian:bookworm-slim 2>"$host_log"
}
host_pid="$HOST_PID"
to_host="${HOST[1]}"
from_host="${HOST[0]}"

send() { printf '%s\n' "$1" >&"$to_host"; }
response=""
await_response() {
  local id="$1" line
  while IFS= read -r -t 180 line <&"$from_host"; do
    printf '%s\n' "$line" >>"$responses"
    if [[ "$line" =~ \"id\"[[:space:]]*:[[:space:]]*$id[[:space:]]*[,}] ]]; then
      response="$line"
      return 0
    fi
  done
  return 1
}
session_failed() {
  echo "--- responses" >&2; cat "$responses" >&2
  echo "--- host stderr" >&2; cat "$host_log" >&2
  fail "$*"
}

send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"podman-swap-test","version":"1.0.0"}}}'
await_response 1 || session_failed "no answer to initialize"
[[ "$response" == *'"protocolVersion"'* ]] || session_failed "initialize failed: $response"
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
send '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"terminal_execute","arguments":{"command":"echo swap-$((6*7))"}}}'
await_response 2 || session_failed "no answer to tools/call"
[[ "$response" == *swap-42* ]] || session_failed "the command's output is missing: $response"
[[ ! "$response" =~ \"isError\"[[:space:]]*:[[:space:]]*true ]] || session_failed "tools/call failed: $response"

# The command ran in a Podman container the plugin created, with the product's labels.
labels="$(podman inspect --format '{{index .Config.Labels "kilntainers.computer-id"}}' \
  "kilntainer-$computer_id" 2>&1)" || session_failed "no Podman container kilntainer-$computer_id: $labels"
[[ "$labels" == "$computer_id" ]] || session_failed "the container's computer-id label is '$labels'"

exec {to_host}>&-
status=0
wait "$host_pid" || status=$?
host_pid=""
((status == 0)) || session_failed "the host exited with $status after stdin EOF"

checksum_after="$(sha256sum "$host" | cut -d' ' -f1)"
[[ "$checksum_before" == "$checksum_after" ]] || fail "the host binary changed: $checksum_before -> $checksum_after"

echo "PASS: the unchanged installed host ($checksum_before) ran a Podman computer through a plugin built out of tree"
