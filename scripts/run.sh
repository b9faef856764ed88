#!/usr/bin/env bash
# Sets up and runs the server: installs what is missing, builds a release, prepares the engine
# the chosen backend needs, and starts mcp-virtual-computer with the given arguments (MCP over
# stdio by default).
#   scripts/run.sh [mcp-virtual-computer arguments]
#
# For the docker backend (the default) it starts dockerd when it does not answer and, when
# debian:bookworm-slim (the desktop image's base) is missing and cannot be pulled, builds it
# locally (debootstrap, then an import) and says so. (It also makes the small busybox image the
# tests use.) Then it has the plugin build the bundled desktop image when it is missing or out
# of date (`computers prepare`; one to three minutes the first time). Set
# VC_SKIP_ENGINE_SETUP=1, or pass --docker-host, to leave the engine alone. Everything but the
# server's own stdout goes to stderr: stdout belongs to MCP.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${VC_BUILD_DIR:-$root/build/release}

# The backend the arguments select (the host's default is docker), and whether they name an
# engine of their own.
backend=docker
own_engine=0
serving=1
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --backend) backend=${args[i + 1]:-} ;;
    --backend=*) backend=${args[i]#--backend=} ;;
    --docker-host | --docker-host=* | --podman-socket | --podman-socket=*) own_engine=1 ;;
    plugins | --help | -h | --version) own_engine=1 serving=0 ;;
    computers) serving=0 ;;
  esac
done

bash "$root/scripts/install-deps.sh" >&2
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVC_BUILD_TESTS=OFF >&2
cmake --build "$build" --parallel "$(nproc)" >&2

if [[ ${VC_SKIP_ENGINE_SETUP:-0} != 1 && $own_engine == 0 ]]; then
  case "$backend" in
    docker) bash "$root/scripts/engines/docker-up.sh" --pull-first >&2 ;;
    podman)
      bash "$root/scripts/engines/podman-up.sh" >&2
      # A private service the plugin may start gets the same runtime and ulimits.
      export CONTAINERS_CONF=${CONTAINERS_CONF:-/etc/mcp-virtual-computer-test/containers.conf}
      ;;
  esac
fi

# The default image is the bundled Xfce desktop image, which the plugin builds from Debian's
# packages on first use: do it now, with its progress on stderr, rather than inside the first
# tool call (1 to 3 minutes the first time; a second when the image is current).
if [[ $serving == 1 && ( $backend == docker || $backend == podman ) ]]; then
  "$build/bin/mcp-virtual-computer" "$@" computers prepare >&2
fi

exec "$build/bin/mcp-virtual-computer" "$@"
