#!/usr/bin/env bash
# Sets up and runs the server: installs what is missing, builds a release, prepares the engine
# the chosen backend needs, and starts mcp-virtual-computer with the given arguments (MCP over
# stdio by default).
#   scripts/run.sh [mcp-virtual-computer arguments]
#
# The engine's setup runs in the background while the compiler works; each phase's wall time is
# printed at the end. Only what the chosen backend needs is built (the host, the App and that
# backend's plugin).
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
build_everything=0
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --backend) backend=${args[i + 1]:-} ;;
    --backend=*) backend=${args[i]#--backend=} ;;
    --docker-host | --docker-host=* | --podman-socket | --podman-socket=*) own_engine=1 ;;
    plugins) own_engine=1 serving=0 build_everything=1 ;;
    --help | -h | --version) own_engine=1 serving=0 ;;
    computers) serving=0 ;;
  esac
done

# shellcheck source=lib/progress.sh
source "$root/scripts/lib/progress.sh"

# What the chosen backend needs: its engine set up, and of the build only the host, the App and
# that backend's plugin (another backend's plugin is built when a run asks for it).
set_up_engine=0
if [[ ${VC_SKIP_ENGINE_SETUP:-0} != 1 && $own_engine == 0 &&
      ( $backend == docker || $backend == podman ) ]]; then
  set_up_engine=1
fi
engine_packages=()
((set_up_engine)) && engine_packages=(--engine "$backend")
build_targets=()
if [[ $build_everything == 0 && ( $backend == docker || $backend == podman ) ]]; then
  build_targets=(mcp-virtual-computer "vc_backend_$backend")
fi

start_engine() {
  bash "$root/scripts/engines/$backend-up.sh" $([[ $backend == docker ]] && echo --pull-first)
}

# The packages first, in one apt-get run: the compiler and the engine's packages. Then the
# engine starts (and, on a first run, makes its base image from Debian's archive) while the
# compiler works.
phase packages
bash "$root/scripts/install-deps.sh" "${engine_packages[@]}" >&2
if ((set_up_engine)); then
  background engine start_engine
fi
phase build
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVC_BUILD_TESTS=OFF >&2
if ((${#build_targets[@]} > 0)); then
  # The App is built when node and npm are there (app/CMakeLists.txt).
  ninja -C "$build" -t query vc_app >/dev/null 2>&1 && build_targets+=(vc_app)
  cmake --build "$build" --parallel "$(nproc)" --target "${build_targets[@]}" >&2
else
  cmake --build "$build" --parallel "$(nproc)" >&2
fi
if ((set_up_engine)); then
  phase engine
  await engine
fi
if [[ $set_up_engine == 1 && $backend == podman ]]; then
  # A private service the plugin may start gets the same runtime and ulimits.
  export CONTAINERS_CONF=${CONTAINERS_CONF:-/etc/mcp-virtual-computer-test/containers.conf}
fi

# The default image is the bundled Xfce desktop image, which the plugin builds from Debian's
# packages on first use: do it now, with its progress on stderr, rather than inside the first
# tool call (1 to 3 minutes the first time; a second when the image is current).
if [[ $serving == 1 && ( $backend == docker || $backend == podman ) ]]; then
  phase "desktop image"
  "$build/bin/mcp-virtual-computer" "$@" computers prepare >&2
fi
phase_summary

exec "$build/bin/mcp-virtual-computer" "$@"
