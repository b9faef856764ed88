# shellcheck shell=bash
# kubernetes-lib.sh — paths and process helpers shared by kubernetes-up.sh and
# kubernetes-down.sh. Sourced after lib.sh, not run.
#
# The local cluster is five processes started in the background: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and the kubelet. Each has a pid file under
# $VC_K8S_RUN_DIR and a log under $VC_K8S_LOG_DIR; a pid file counts only while the process it
# names still runs the expected binary, so a stale file or a reused pid is never mistaken for a
# running component.

VC_K8S_STATE_DIR=${VC_K8S_STATE_DIR:-/var/lib/mcp-virtual-computer-k8s}
VC_K8S_LOG_DIR=${VC_K8S_LOG_DIR:-/var/log/mcp-virtual-computer-k8s}
VC_K8S_RUN_DIR="$VC_K8S_STATE_DIR/run"
# The components in start order; kubernetes-down.sh stops them in reverse.
# shellcheck disable=SC2034 # used by kubernetes-down.sh
VC_K8S_COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kubelet)

k8s_pid_file() { printf '%s/%s.pid\n' "$VC_K8S_RUN_DIR" "$1"; }
k8s_log_file() { printf '%s/%s.log\n' "$VC_K8S_LOG_DIR" "$1"; }

# k8s_component_pid NAME — prints the pid of the running component NAME and succeeds, or fails
# when its pid file is missing or the process is gone or runs another program.
k8s_component_pid() {
  local name=$1 pid_file pid exe
  pid_file=$(k8s_pid_file "$name")
  [[ -s "$pid_file" ]] || return 1
  pid=$(<"$pid_file")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
  # A binary replaced on disk while running reads as "PATH (deleted)".
  [[ "$(basename "${exe% (deleted)}")" == "$name" ]] || return 1
  printf '%s\n' "$pid"
}
