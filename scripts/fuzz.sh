#!/usr/bin/env bash
# Fuzzes every harness of tests/fuzz with libFuzzer for a fixed time each, two at a time (the
# machine's two cores): builds the harnesses with clang (-fsanitize=fuzzer,address,undefined)
# in build/fuzz, runs each from a scratch copy of its seed corpus, and fails when any run
# finds a crash, a leak, a timeout or an out-of-memory. What a run found is kept under
# build/fuzz/findings/ (add the input to tests/fuzz/corpus/<harness>/ once the defect is
# fixed, so the replay test keeps it fixed). A harness with a dictionary in
# tests/fuzz/dict/<harness>.dict gets it (-dict=).
#   scripts/fuzz.sh [seconds per harness, default 30]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-30}
build=${VC_FUZZ_BUILD_DIR:-$root/build/fuzz}
harnesses=(jsonrpc_message engine_response stream_demuxer engine_progress
           mcp_session http_endpoint schema_validator plugin_descriptor file_tool_results
           exec_agent_frames process_requests kubernetes_pod kubeconfig)

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DVC_SANITIZE=ON -DVC_FUZZ=ON -DVC_BUILD_TESTS=ON -DVC_PCH=OFF >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target "${harnesses[@]/#/vc_fuzzer_}"

work="$build/runs"
findings="$build/findings"
rm -rf "$work"
mkdir -p "$work" "$findings"
fuzz_one() {
  local name=$1
  local dict=()
  [[ -f "$root/tests/fuzz/dict/$name.dict" ]] && dict=(-dict="$root/tests/fuzz/dict/$name.dict")
  mkdir -p "$work/$name"
  cp "$root/tests/fuzz/corpus/$name"/* "$work/$name/"
  (cd "$work" && "$build/bin/vc_fuzzer_$name" -max_total_time="$seconds" -timeout=10 \
     -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/$name-" \
     "${dict[@]}" "$work/$name" >"$work/$name.log" 2>&1)
}
status=0
for ((i = 0; i < ${#harnesses[@]}; i += 2)); do
  pids=()
  for name in "${harnesses[@]:i:2}"; do
    fuzz_one "$name" & pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
done
for name in "${harnesses[@]}"; do
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
  coverage=$(grep -Eo 'cov: [0-9]+' "$work/$name.log" | tail -1)
  echo "fuzz: $name: ${runs:-?} inputs in ${seconds} s, ${coverage:-cov: ?}"
done
if ((status != 0)) || compgen -G "$findings/*" >/dev/null; then
  echo "fuzz: FAILED: see $findings and $work/*.log" >&2
  ls -l "$findings" >&2 || true
  exit 1
fi
echo "fuzz: every harness ran clean (${#harnesses[@]} harnesses, ${seconds} s each)"
