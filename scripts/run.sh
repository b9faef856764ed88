#!/usr/bin/env bash
# Sets up and runs the server: installs what is missing, builds a release, and starts
# mcp-virtual-computer with the given arguments (MCP over stdio by default).
#   scripts/run.sh [mcp-virtual-computer arguments]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${VC_BUILD_DIR:-$root/build/release}

bash "$root/scripts/install-deps.sh" >&2
# Build output goes to stderr: stdout belongs to the MCP protocol.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVC_BUILD_TESTS=OFF >&2
cmake --build "$build" --parallel "$(nproc)" >&2

exec "$build/bin/mcp-virtual-computer" "$@"
