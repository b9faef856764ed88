#!/usr/bin/env bash
# docker-up.sh — makes a working Docker engine and the test images available on this machine.
#
#   bash scripts/engines/docker-up.sh [--pull-first]
#
# 1. Installs docker.io, debootstrap, busybox-static and curl with apt-get when missing.
# 2. Starts dockerd in the background when /var/run/docker.sock does not answer GET /_ping
#    (log: $VC_DOCKERD_LOG, default /var/log/mcp-virtual-computer-dockerd.log) and waits for it.
# 3. Makes the local images the integration tests use (no registry is needed or contacted):
#      debian:bookworm-slim    debootstrap --variant=minbase bookworm, then `docker import`
#      vc-test-busybox:latest  the static busybox and its applets, for fast cases
#    Both root filesystems are cached under /var/cache/mcp-virtual-computer, so a rerun, or a
#    fresh dockerd state, takes seconds. With --pull-first (what scripts/run.sh uses) a missing
#    debian:bookworm-slim is pulled from the registry first, and built locally only when the
#    pull fails; the test command never contacts a registry.
# Idempotent. Uses the docker CLI for this setup only.
set -euo pipefail
VC_SCRIPT_NAME=docker-up
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DOCKER_SOCKET=/var/run/docker.sock
DOCKERD_LOG=${VC_DOCKERD_LOG:-/var/log/mcp-virtual-computer-dockerd.log}
DOCKERD_START_SECONDS=60

pull_first=0
for arg in "$@"; do
  case "$arg" in
    --pull-first) pull_first=1 ;;
    *) die "unknown argument: $arg (usage: docker-up.sh [--pull-first])" ;;
  esac
done

require_root
apt_install "${VC_DOCKER_PACKAGES[@]}"
command -v dockerd >/dev/null || die "dockerd is not on PATH after installing docker.io"
command -v docker >/dev/null || die "the docker CLI is not on PATH after installing docker.io"

if socket_answers "$DOCKER_SOCKET"; then
  log "dockerd answers on $DOCKER_SOCKET"
else
  log "starting dockerd in the background (log: $DOCKERD_LOG)"
  mkdir -p "$(dirname "$DOCKERD_LOG")"
  # setsid: the daemon outlives this script and the terminal or CI step that ran it.
  # From /, as every daemon here: its working directory must not be a folder deleted later.
  (cd / && exec setsid nohup dockerd --host "unix://$DOCKER_SOCKET" >>"$DOCKERD_LOG" 2>&1 \
    </dev/null) &
  dockerd_pid=$!
  wait_for_socket "$DOCKER_SOCKET" "$DOCKERD_START_SECONDS" "$dockerd_pid" "$DOCKERD_LOG" ||
    die "dockerd did not start"
  log "dockerd is up (pid $dockerd_pid)"
fi

export DOCKER_HOST="unix://$DOCKER_SOCKET"

image_present() { docker image inspect "$1" >/dev/null 2>&1; }

# import_image TAR IMAGE CMD
import_image() {
  log "docker import $1 as $2"
  docker import --change "$VC_IMAGE_PATH_ENV" --change "$3" "$1" "$2" >/dev/null
}

# pull_image IMAGE: true when the registry gave it; says why not otherwise.
pull_image() {
  local output
  log "pulling $1"
  if output=$(timeout 300 docker pull "$1" 2>&1); then
    return 0
  fi
  log "cannot pull $1: $(printf '%s' "$output" | tail -n 1)"
  return 1
}

if image_present "$VC_DEBIAN_IMAGE"; then
  log "$VC_DEBIAN_IMAGE is present"
elif [[ $pull_first == 1 ]] && pull_image "$VC_DEBIAN_IMAGE"; then
  log "pulled $VC_DEBIAN_IMAGE"
else
  log "building $VC_DEBIAN_IMAGE locally: debootstrap --variant=minbase bookworm, then docker import (no registry needed)"
  ensure_debian_rootfs_tar
  import_image "$VC_DEBIAN_TAR" "$VC_DEBIAN_IMAGE" "$VC_DEBIAN_CMD"
fi

ensure_busybox_image

log "ready: dockerd $(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?'), images $VC_DEBIAN_IMAGE and $VC_BUSYBOX_IMAGE"
