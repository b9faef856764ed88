#!/usr/bin/env bash
# out_of_tree.sh — builds a backend plugin exactly as a third party would and loads it.
#
#  1. installs this build into a temporary prefix (cmake --install --prefix);
#  2. copies the installed template sources to a temporary directory and builds them as a
#     project of their own with find_package(VcBackendSdk) and -Werror, the three commands of
#     docs/plugin-authoring.md; the same for the C-only example (examples/minimal_c);
#  3. checks each .so exports only vc_plugin_entry_v1, and pkg-config's view of the SDK;
#  4. runs the installed host: `plugins --plugin-dir` must list the new plugin, the template
#     must pass `validate-plugin`, and an MCP session over stdio with `--backend <the .so>`
#     must run a command through it.
#
# Usage: out_of_tree.sh --build-dir DIR --template-dir DIR --examples-dir DIR --cmake CMAKE
#                       --c-compiler CC --cxx-compiler CXX [--config CONFIG] [--host-target NAME]
# Exit 77 (skipped) when the build has no host executable to install.
set -euo pipefail

build_dir="" template_dir="" examples_dir="" cmake_bin="cmake" c_compiler="cc" cxx_compiler="c++"
config="" host_target=""
while (($#)); do
  case "$1" in
    --build-dir) build_dir="$2" ;;
    --template-dir) template_dir="$2" ;;
    --examples-dir) examples_dir="$2" ;;
    --cmake) cmake_bin="$2" ;;
    --c-compiler) c_compiler="$2" ;;
    --cxx-compiler) cxx_compiler="$2" ;;
    --config) config="$2" ;;
    --host-target) host_target="$2" ;;
    *) echo "out_of_tree.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done

if [[ -z "$host_target" ]]; then
  echo "SKIP: this build has no host executable (mcp-virtual-computer) to install"
  exit 77
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/vc-sdk-out-of-tree.XXXXXX")"
host_pid=""
cleanup() {
  if [[ -n "$host_pid" ]] && kill -0 "$host_pid" 2>/dev/null; then
    kill -KILL "$host_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Runs a command quietly, showing its output only when it fails.
quiet() {
  local log="$work/step.log"
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "command failed: $*"
  fi
}

prefix="$work/prefix"
echo "== installing the build into $prefix"
install_args=(--install "$build_dir" --prefix "$prefix")
[[ -n "$config" ]] && install_args+=(--config "$config")
quiet "$cmake_bin" "${install_args[@]}"

for file in include/vc-backend-1/vc_sdk.h share/vc-backend-1/schemas/exec.request.json \
            include/vc-backend-1/cpp/backend_ops.h share/vc-backend-1/vc-backend-1.map \
            share/vc-backend-1/template/CMakeLists.txt \
            share/vc-backend-1/examples/minimal_c/CMakeLists.txt \
            share/vc-backend-1/examples/process_backend/CMakeLists.txt bin/mcp-virtual-computer; do
  [[ -e "$prefix/$file" ]] || fail "the install lacks $file"
done
config_file="$(find "$prefix" -name VcBackendSdkConfig.cmake -print -quit)"
pc_file="$(find "$prefix" -name vc-backend-1.pc -print -quit)"
[[ -n "$config_file" ]] || fail "the install lacks VcBackendSdkConfig.cmake"
[[ -n "$pc_file" ]] || fail "the install lacks vc-backend-1.pc"

echo "== building a copy of the installed template against the installed SDK"
plugin_src="$work/my-backend"
cp -r "$prefix/share/vc-backend-1/template" "$plugin_src"
diff -r --exclude='build*' "$template_dir" "$plugin_src" >/dev/null ||
  fail "the installed template differs from $template_dir"
plugin_build="$work/my-backend-build"
quiet "$cmake_bin" -S "$plugin_src" -B "$plugin_build" \
  -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
  -DCMAKE_C_COMPILER="$c_compiler" -DCMAKE_CXX_COMPILER="$cxx_compiler" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-Werror
sdk_dir="$(sed -n 's/^VcBackendSdk_DIR:PATH=//p' "$plugin_build/CMakeCache.txt")"
[[ "$sdk_dir" == "$prefix"/* ]] || fail "find_package used $sdk_dir, not the temporary prefix"
quiet "$cmake_bin" --build "$plugin_build" --parallel "$(nproc)"
plugin="$plugin_build/vc-backend-template.so"
[[ -f "$plugin" ]] || fail "the build did not produce $plugin"

exports_only_entry() {
  local exports
  exports="$(nm -D --defined-only "$1" | awk '{print $NF}' | sort -u | tr '\n' ' ')"
  [[ "$exports" == "vc_plugin_entry_v1 " ]] || fail "$1 exports: $exports"
}
exports_only_entry "$plugin"

echo "== building a copy of the installed C-only example (no C++ compiler involved)"
diff -r --exclude='build*' "$examples_dir" "$prefix/share/vc-backend-1/examples" >/dev/null ||
  fail "the installed examples differ from $examples_dir"
c_plugin_src="$work/minimal-c"
cp -r "$prefix/share/vc-backend-1/examples/minimal_c" "$c_plugin_src"
c_plugin_build="$work/minimal-c-build"
quiet "$cmake_bin" -S "$c_plugin_src" -B "$c_plugin_build" \
  -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON \
  -DCMAKE_C_COMPILER="$c_compiler" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-Werror
quiet "$cmake_bin" --build "$c_plugin_build" --parallel "$(nproc)"
c_plugin="$c_plugin_build/vc-backend-minimal-c.so"
[[ -f "$c_plugin" ]] || fail "the build did not produce $c_plugin"
exports_only_entry "$c_plugin"

echo "== pkg-config"
export PKG_CONFIG_PATH="$(dirname "$pc_file")"
read -r cflags < <(pkg-config --cflags vc-backend-1)  # read trims the trailing blank
include_dir="${cflags#-I}"
[[ "$(realpath "$include_dir")" == "$(realpath "$prefix/include")" ]] ||
  fail "pkg-config --cflags gives '$cflags'"
read -r backend_dir < <(pkg-config --variable=backenddir vc-backend-1)
[[ "$(realpath -m "$backend_dir")" == "$(realpath -m "$prefix")"/*/mcp-virtual-computer/backends ]] ||
  fail "pkg-config backenddir is '$backend_dir'"
printf '#include <vc-backend-1/vc_sdk.h>\nint main(void) { return VC_ABI_MAJOR == 1u ? 0 : 1; }\n' \
  >"$work/pc_check.c"
# shellcheck disable=SC2086  # cflags is a flag list
quiet "$c_compiler" -std=c11 -Wall -Werror $cflags "$work/pc_check.c" -o "$work/pc_check"
quiet "$work/pc_check"

host="$prefix/bin/mcp-virtual-computer"
# Keep the host's state, data and config files inside the temporary directory.
export HOME="$work/home" XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data" \
  XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache"
mkdir -p "$HOME"
unset MCP_VIRTUAL_COMPUTER_PLUGIN_PATH

echo "== mcp-virtual-computer plugins --plugin-dir"
listing="$work/plugins.txt"
"$host" plugins --plugin-dir "$plugin_build" >"$listing" 2>"$work/plugins.err" || {
  cat "$listing" "$work/plugins.err" >&2
  fail "'plugins --plugin-dir' exited non-zero"
}
grep -q "org.mcp-virtual-computer.template" "$listing" || {
  cat "$listing" >&2
  fail "the listing does not show the template plugin"
}
grep -qF "$plugin" "$listing" || {
  cat "$listing" >&2
  fail "the listing does not show the plugin's path $plugin"
}

echo "== mcp-virtual-computer validate-plugin on the out-of-tree template"
validation="$work/validate.txt"
"$host" validate-plugin "$plugin" --computers-dir "$work/validate-computers" \
  >"$validation" 2>&1 || {
  cat "$validation" >&2
  fail "the template built out of tree failed validate-plugin"
}
grep -q "the plugin passed validation" "$validation" || {
  cat "$validation" >&2
  fail "validate-plugin printed no verdict"
}

echo "== MCP session over stdio with --backend $plugin"
scratch="$work/scratch"
export COMPUTER_ID=sdk-test VC_TEMPLATE_COMPUTERS_DIR="$scratch"
host_log="$work/host.log"
responses="$work/responses.jsonl"
: >"$responses"
coproc HOST { exec "$host" --backend "$plugin" --computers-dir "$scratch" 2>"$host_log"; }
host_pid="$HOST_PID"
to_host="${HOST[1]}"
from_host="${HOST[0]}"

send() { printf '%s\n' "$1" >&"$to_host"; }

# Reads messages until the response with the given id arrived (or 60 s passed) and leaves it
# in $response. Runs in this shell: bash does not pass coprocess descriptors to subshells.
response=""
await_response() {
  local id="$1" line
  while IFS= read -r -t 60 line <&"$from_host"; do
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

send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sdk-out-of-tree-test","version":"1.0.0"}}}'
await_response 1 || session_failed "no answer to initialize"
[[ "$response" == *'"protocolVersion"'* ]] || session_failed "initialize failed: $response"
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
send '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"terminal_execute","arguments":{"command":"echo out-of-tree-ok"}}}'
await_response 2 || session_failed "no answer to tools/call"
[[ "$response" == *out-of-tree-ok* ]] || session_failed "the command's output is missing: $response"
[[ ! "$response" =~ \"isError\"[[:space:]]*:[[:space:]]*true ]] || session_failed "tools/call failed: $response"

# EOF on stdin ends the server cleanly.
exec {to_host}>&-
status=0
wait "$host_pid" || status=$?
host_pid=""
((status == 0)) || session_failed "the host exited with $status after stdin EOF"
[[ -d "$scratch/sdk-test" ]] || session_failed "no computer directory under $scratch"

echo "PASS: out-of-tree plugin built against the installed SDK and run by the installed host"
