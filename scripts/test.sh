#!/usr/bin/env bash
# The test command: installs what is missing (Debian's chromium included), starts the engines
# the integration tests use (dockerd and Podman's API service, with locally built test images),
# builds everything with AddressSanitizer and UndefinedBehaviorSanitizer and warnings as errors,
# builds the bundled desktop image on both engines through the plugins (cached: seconds when
# it is current), fuzzes each parser for 20 s (VC_FUZZ_SECONDS), runs the threaded suites under
# ThreadSanitizer, and runs the whole suite with ctest.
#   scripts/test.sh [extra ctest arguments, e.g. -R protocol]
#   scripts/test.sh --quick [extra ctest arguments]
# --quick is the edit-build-test loop: the same build, then only the tests labelled "quick"
# (unit, ABI, SDK, plugin loading, protocol and HTTP against the process backend, the engine
# client against a fake engine, the fuzz corpora replayed). No engine is started, no image
# built, no fuzzing or ThreadSanitizer pass; a few minutes after a small change.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${VC_TEST_BUILD_DIR:-$root/build/test}
quick=0
if [[ "${1:-}" == "--quick" ]]; then
  quick=1
  shift
fi

configure_and_build() {
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Debug -DVC_SANITIZE=ON -DVC_WARNINGS_AS_ERRORS=ON -DVC_BUILD_TESTS=ON
  cmake --build "$build" --parallel "$(nproc)"
}

bash "$root/scripts/install-deps.sh" test
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if ((quick)); then
  configure_and_build
  exec ctest --test-dir "$build" --output-on-failure --parallel 2 --timeout 300 -L quick "$@"
fi
bash "$root/scripts/engines/docker-up.sh"
bash "$root/scripts/engines/podman-up.sh"
# The configuration podman-up.sh wrote (runc, low default ulimits), for the podman CLI the tests
# use to inspect and clean up.
export CONTAINERS_CONF=${CONTAINERS_CONF:-/etc/mcp-virtual-computer-test/containers.conf}

configure_and_build

# The bundled desktop image, built by each plugin through its engine's build API exactly as a
# user's first start would (a current image is kept: this takes a second then).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
"$build/bin/mcp-virtual-computer" --backend docker computers prepare
"$build/bin/mcp-virtual-computer" --backend podman --podman-socket unix:///run/podman/podman.sock \
  computers prepare

# A short fuzzing run of every parser harness (clang, libFuzzer), so every run of the suite
# keeps fuzzing; the seed corpora are also replayed by ctest below. Before ctest, so that
# ctest's summary is the last word.
bash "$root/scripts/fuzz.sh" "${VC_FUZZ_SECONDS:-20}"
# The suites where threads meet, under ThreadSanitizer (their own build, build/tsan).
bash "$root/scripts/tsan.sh"

# The engines the scripts made available: their integration cases fail rather than skip.
export VC_REQUIRE_ENGINES=${VC_REQUIRE_ENGINES:-docker,podman}
ctest --test-dir "$build" --output-on-failure --parallel 2 --timeout 600 "$@"
