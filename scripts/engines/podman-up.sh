#!/usr/bin/env bash
# podman-up.sh — makes Podman's Docker-compatible API and the test images available.
#
#   bash scripts/engines/podman-up.sh
#
# 1. Installs podman, runc, catatonit, curl, debootstrap and busybox-static with apt-get when missing.
# 2. Writes the containers.conf the tests and the service use ($CONTAINERS_CONF, default
#    /etc/mcp-virtual-computer-test/containers.conf): runc, because crun fails on this kind of
#    host's hybrid cgroups, and low default ulimits, because without CAP_SYS_RESOURCE podman
#    cannot raise them when it starts a container.
# 3. Starts `podman --runtime runc system service --time=0` on /run/podman/podman.sock in the
#    background when that socket does not answer GET /_ping (log: $VC_PODMAN_LOG, default
#    /var/log/mcp-virtual-computer-podman.log) and waits for it.
# 4. Imports debian:bookworm-slim and vc-test-busybox:latest into podman's store from the root
#    filesystems docker-up.sh caches (making them the same way when they are not cached yet).
# Idempotent. Uses the podman CLI for this setup only. Clients must run with the same
# CONTAINERS_CONF, e.g. `export CONTAINERS_CONF=/etc/mcp-virtual-computer-test/containers.conf`.
set -euo pipefail
VC_SCRIPT_NAME=podman-up
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PODMAN_SOCKET=/run/podman/podman.sock
PODMAN_LOG=${VC_PODMAN_LOG:-/var/log/mcp-virtual-computer-podman.log}
PODMAN_START_SECONDS=30
export CONTAINERS_CONF=${CONTAINERS_CONF:-/etc/mcp-virtual-computer-test/containers.conf}

require_root
apt_install "${VC_PODMAN_PACKAGES[@]}"
command -v podman >/dev/null || die "podman is not on PATH after installing it"

desired_conf='# Written by scripts/engines/podman-up.sh for the integration tests.
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]

[engine]
runtime = "runc"'
if [[ -f "$CONTAINERS_CONF" && "$(cat "$CONTAINERS_CONF")" == "$desired_conf" ]]; then
  log "$CONTAINERS_CONF is up to date"
else
  log "writing $CONTAINERS_CONF"
  mkdir -p "$(dirname "$CONTAINERS_CONF")"
  printf '%s\n' "$desired_conf" >"$CONTAINERS_CONF"
fi

if socket_answers "$PODMAN_SOCKET"; then
  log "the podman service answers on $PODMAN_SOCKET"
else
  log "starting the podman service in the background (log: $PODMAN_LOG)"
  mkdir -p "$(dirname "$PODMAN_SOCKET")" "$(dirname "$PODMAN_LOG")"
  # A stale socket file from a service that is gone would make the new one fail to bind.
  [[ -S "$PODMAN_SOCKET" ]] && rm -f "$PODMAN_SOCKET"
  # setsid: the service outlives this script and the terminal or CI step that ran it. From /:
  # a service whose working directory was a build folder deleted later cannot start containers.
  (cd / && exec setsid nohup podman --runtime runc system service --time=0 \
    "unix://$PODMAN_SOCKET" >>"$PODMAN_LOG" 2>&1 </dev/null) &
  service_pid=$!
  wait_for_socket "$PODMAN_SOCKET" "$PODMAN_START_SECONDS" "$service_pid" "$PODMAN_LOG" ||
    die "the podman service did not start"
  log "the podman service is up (pid $service_pid)"
fi

image_present() { podman image exists "$1" 2>/dev/null; }

# import_image TAR IMAGE CMD — the same rootfs and config as docker-up.sh imports.
import_image() {
  log "podman import $1 as $2"
  podman import --quiet --change "$VC_IMAGE_PATH_ENV" --change "$3" "$1" "$2" >/dev/null
}

if image_present "$VC_DEBIAN_IMAGE"; then
  log "$VC_DEBIAN_IMAGE is present"
else
  ensure_debian_rootfs_tar
  import_image "$VC_DEBIAN_TAR" "$VC_DEBIAN_IMAGE" "$VC_DEBIAN_CMD"
fi

ensure_busybox_image

log "ready: podman $(podman version --format '{{.Server.Version}}' 2>/dev/null || podman --version), images $VC_DEBIAN_IMAGE and $VC_BUSYBOX_IMAGE, CONTAINERS_CONF=$CONTAINERS_CONF"
