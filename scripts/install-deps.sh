#!/usr/bin/env bash
# Installs, with apt-get, whatever the build (and, with "test", the test suite) needs and this
# machine lacks. Safe to rerun: installed packages are skipped, so a rerun takes a second.
#   scripts/install-deps.sh          build and run dependencies
#   scripts/install-deps.sh test     plus the test suite's
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config libuv1-dev libboost-dev nlohmann-json3-dev
          libspdlog-dev libcli11-dev node-llhttp libarchive-dev)
if [[ "${1:-}" == "test" ]]; then
  # chromium: the desktop view is tested in a real browser (driven by playwright-core).
  # clang and its runtime: the fuzz harnesses are built with libFuzzer (scripts/fuzz.sh).
  packages+=(libgtest-dev libgmock-dev chromium clang libclang-rt-14-dev)
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "Installing: ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
