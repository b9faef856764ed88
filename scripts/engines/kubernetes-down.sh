#!/usr/bin/env bash
# kubernetes-down.sh — stops the local cluster kubernetes-up.sh started.
#
#   bash scripts/engines/kubernetes-down.sh [--purge]
#
# 1. Stops the kubelet, kube-scheduler, kube-controller-manager, kube-apiserver and etcd, in that
#    order, through their pid files: SIGTERM, up to 10 s, then SIGKILL.
# 2. Removes the pods' containers the kubelet leaves running on dockerd (those dockershim made:
#    label io.kubernetes.pod.name, names k8s_…); other containers are not touched.
# 3. Unmounts the volumes (service-account tokens and the like) the kubelet mounted for them.
# The state — etcd's data with every object, keys, token, kubeconfig — stays, so the next
# kubernetes-up.sh brings the same cluster back, pods included. With --purge the state directory
# ($VC_K8S_STATE_DIR, default /var/lib/mcp-virtual-computer-k8s) goes too, and the next start is
# a fresh cluster with a new token. The cached binaries under $VC_ENGINE_CACHE and the logs stay
# either way. Idempotent: a second run finds nothing to stop.
set -euo pipefail
VC_SCRIPT_NAME=kubernetes-down
engines_dir=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=lib.sh
source "$engines_dir/lib.sh"
# shellcheck source=kubernetes-lib.sh
source "$engines_dir/kubernetes-lib.sh"

K8S_DOCKER_SOCKET=/var/run/docker.sock
K8S_STOP_SECONDS=10

purge=0
for arg in "$@"; do
  case "$arg" in
    --purge) purge=1 ;;
    *) die "unknown argument: $arg (usage: kubernetes-down.sh [--purge])" ;;
  esac
done

# stop_component NAME
stop_component() {
  local name=$1 pid waited=0
  if pid=$(k8s_component_pid "$name"); then
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    while k8s_component_pid "$name" >/dev/null && ((waited < K8S_STOP_SECONDS * 10)); do
      sleep 0.1
      waited=$((waited + 1))
    done
    if k8s_component_pid "$name" >/dev/null; then
      log "$name did not stop within ${K8S_STOP_SECONDS} s; SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$(k8s_pid_file "$name")" "$VC_K8S_RUN_DIR/$name.started"
}

# Without its kubelet a pod's containers would run on forever; the next kubelet makes new ones for
# the pods still in etcd.
remove_pod_containers() {
  if ! socket_answers "$K8S_DOCKER_SOCKET"; then
    log "dockerd does not answer on $K8S_DOCKER_SOCKET; no pod containers to remove"
    return 0
  fi
  local ids
  ids=$({
    docker -H "unix://$K8S_DOCKER_SOCKET" ps -aq --filter label=io.kubernetes.pod.name
    docker -H "unix://$K8S_DOCKER_SOCKET" ps -aq --filter 'name=^/?k8s_'
  } | sort -u)
  if [[ -z "$ids" ]]; then
    log "no pod containers on dockerd"
    return 0
  fi
  log "removing $(wc -l <<<"$ids") pod container(s) from dockerd"
  # shellcheck disable=SC2086 # one id a word
  docker -H "unix://$K8S_DOCKER_SOCKET" rm -f $ids >/dev/null
}

# The kubelet mounts tmpfs volumes under its root directory and unmounts them only when their pod
# goes away while it runs.
unmount_kubelet_volumes() {
  local mount_point count=0
  while read -r mount_point; do
    umount "$mount_point" 2>/dev/null || umount -l "$mount_point"
    count=$((count + 1))
  done < <(awk -v prefix="$VC_K8S_STATE_DIR/" 'index($5, prefix) == 1 { print $5 }' \
             /proc/self/mountinfo | sort -r)
  ((count == 0)) || log "unmounted $count volume(s) under $VC_K8S_STATE_DIR"
}

require_root
for ((i = ${#VC_K8S_COMPONENTS[@]} - 1; i >= 0; i--)); do
  stop_component "${VC_K8S_COMPONENTS[i]}"
done
remove_pod_containers
unmount_kubelet_volumes
if ((purge)); then
  log "removing $VC_K8S_STATE_DIR (etcd's data, keys, token, kubeconfig)"
  rm -rf "$VC_K8S_STATE_DIR"
fi
log "stopped; the cached binaries stay in $VC_ENGINE_CACHE/kubernetes-*/bin, the logs in $VC_K8S_LOG_DIR"
