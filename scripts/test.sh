#!/usr/bin/env bash
# The test command: installs what is missing (Debian's chromium included), starts the engines
# the integration tests use (dockerd and Podman's API service, with locally built test images,
# and a local Kubernetes cluster whose node runs pods on that dockerd),
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

# shellcheck source=lib/progress.sh
source "$root/scripts/lib/progress.sh"

configure() {
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Debug -DVC_SANITIZE=ON -DVC_WARNINGS_AS_ERRORS=ON -DVC_BUILD_TESTS=ON
}
build_targets() { cmake --build "$build" --parallel "$(nproc)" "$@"; }

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if ((quick)); then
  bash "$root/scripts/install-deps.sh" test
  configure
  build_targets
  exec ctest --test-dir "$build" --output-on-failure --parallel 2 --timeout 300 -L quick "$@"
fi

# One apt-get run for the build's, the tests' and both engines' packages; then the engines
# start (on a fresh machine: their base images made from Debian's archive) while the compiler
# works, and the desktop image builds on both engines while the compiler builds the tests.
phase packages
bash "$root/scripts/install-deps.sh" test --engine docker --engine podman
start_engines() {
  bash "$root/scripts/engines/docker-up.sh"
  bash "$root/scripts/engines/podman-up.sh"
}
background engines start_engines
# The local Kubernetes cluster, its pods on the dockerd the step above starts (waited for here, so
# that only that step starts it). On a fresh machine its binaries are built from Debian's
# source while the compiler works, once (cached outside the clone).
start_cluster() {
  local waited=0
  until docker info >/dev/null 2>&1; do
    ((waited++ < 600)) || { echo "dockerd did not answer within 10 minutes"; return 1; }
    sleep 1
  done
  bash "$root/scripts/engines/kubernetes-up.sh" >/dev/null
}
background cluster start_cluster
# The configuration podman-up.sh writes (runc, low default ulimits), for the podman CLI the tests
# use to inspect and clean up.
export CONTAINERS_CONF=${CONTAINERS_CONF:-/etc/mcp-virtual-computer-test/containers.conf}

phase "build: server and plugins"
configure
build_targets --target mcp-virtual-computer vc_backend_docker vc_backend_podman
phase engines
await engines

# The bundled desktop image, built by each plugin through its engine's build API exactly as a
# user's first start would (a current image is kept: this takes a second then).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
prepare_desktop_images() {
  "$build/bin/mcp-virtual-computer" --backend docker computers prepare
  "$build/bin/mcp-virtual-computer" --backend podman \
    --podman-socket unix:///run/podman/podman.sock computers prepare
}
background "desktop images" prepare_desktop_images
phase "build: everything else"
build_targets
phase "desktop images"
await "desktop images"

# A short fuzzing run of every parser harness (clang, libFuzzer), so every run of the suite
# keeps fuzzing; the seed corpora are also replayed by ctest below. Before ctest, so that
# ctest's summary is the last word.
phase fuzzing
bash "$root/scripts/fuzz.sh" "${VC_FUZZ_SECONDS:-20}"
# The suites where threads meet, under ThreadSanitizer (their own build, build/tsan).
phase "thread sanitizer"
bash "$root/scripts/tsan.sh"

phase cluster
await cluster
# The engines the scripts made available: their integration cases fail rather than skip.
export VC_REQUIRE_ENGINES=${VC_REQUIRE_ENGINES:-docker,podman,kubernetes}
export VC_TEST_KUBECONFIG=${VC_TEST_KUBECONFIG:-${VC_K8S_STATE_DIR:-/var/lib/mcp-virtual-computer-k8s}/kubeconfig}
phase ctest
status=0
ctest --test-dir "$build" --output-on-failure --parallel 2 --timeout 600 "$@" || status=$?
phase_summary
exit "$status"
