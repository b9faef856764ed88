#!/usr/bin/env bash
# Builds and runs, under ThreadSanitizer, the suites where threads meet: the plugin loader and
# the completion pump (plugins reporting from their own threads), the engine client (its
# private loop thread), and the HTTP transport with many sessions (the real binary, itself built
# with TSan). Any race, deadlock or unexpected thread leak fails the run (halt_on_error);
# tests/tsan.supp lists, with reasons, what is expected.
#   scripts/tsan.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${VC_TSAN_BUILD_DIR:-$root/build/tsan}
suites=(vc_plugins_tests vc_engine_tests vc_http_tests)

# File by file (no unity batches): the one build that proves each file includes what it uses.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVC_TSAN=ON \
  -DVC_WARNINGS_AS_ERRORS=ON -DVC_BUILD_TESTS=ON -DVC_UNITY_BUILD=OFF >/dev/null
cmake --build "$build" --parallel "$(nproc)" \
  --target "${suites[@]}" mcp-virtual-computer mcp-virtual-computer-conformance vc_backend_process

export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/tests/tsan.supp"
status=0
for suite in "${suites[@]}"; do
  log="$build/$suite.log"
  if (cd "$build" && "./bin/$suite" --gtest_brief=1 >"$log" 2>&1); then
    echo "tsan: $suite: $(grep -E '^\[  PASSED  \]' "$log" | head -1)"
  else
    echo "tsan: $suite FAILED (log: $log)" >&2
    grep -E -A30 'WARNING: ThreadSanitizer|^\[  FAILED' "$log" | head -80 >&2 || tail -40 "$log" >&2
    status=1
  fi
done
exit $status
