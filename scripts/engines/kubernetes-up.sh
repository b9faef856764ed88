#!/usr/bin/env bash
# kubernetes-up.sh — a real, local Kubernetes control plane and node on loopback, for the
# Kubernetes backend's tests.
#
#   kubeconfig=$(bash scripts/engines/kubernetes-up.sh)
#
# Debian ships no Kubernetes server binaries, and no registry is reachable from the machines the
# tests run on, but Debian ships the `kubernetes` source package (upstream v1.20.2 with its
# vendor/ tree), Go (golang-go) and etcd (etcd-server). So this script:
# 1. Makes sure dockerd answers (scripts/engines/docker-up.sh otherwise): the kubelet runs pods on
#    it through its built-in dockershim.
# 2. Builds kube-apiserver, kube-controller-manager, kube-scheduler, the kubelet and the pause
#    binary from `apt-get source kubernetes` — 4 to 7 minutes on 2 cores, once — and caches them
#    under $VC_ENGINE_CACHE/kubernetes-<Debian source version>/bin; later runs build nothing.
# 3. Imports the pause binary as the local image vc-k8s-pause:3.2 (pods' sandbox container).
# 4. Generates once, under $VC_K8S_STATE_DIR (default /var/lib/mcp-virtual-computer-k8s):
#    service-account keys, an admin token and a kubeconfig for https://127.0.0.1:6443.
# 5. Starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler and the kubelet in the
#    background, all on 127.0.0.1 (logs in $VC_K8S_LOG_DIR, default
#    /var/log/mcp-virtual-computer-k8s), and waits until the node is Ready and the `default`
#    service account of the `default` namespace has its token, so a pod can be created at once.
# 6. Makes the default storage class vc-local-hostpath (claims bound to a folder under /tmp on
#    this node) and the namespace mcp-virtual-computer, the Kubernetes backend's default.
# Idempotent: running components are reused (a rerun on a healthy cluster starts nothing and takes
# a fraction of a second), components that died are started again; from the cached binaries a
# stopped cluster is back in about 7 s, a new one (no state yet) in about 20 s. Progress goes to
# stderr; the only line on stdout is the kubeconfig's path. Stop with kubernetes-down.sh.
# Environment: VC_ENGINE_CACHE, VC_K8S_STATE_DIR, VC_K8S_LOG_DIR, VC_K8S_NODE_NAME (default
# vc-k8s-node).
#
# What this cluster does not have: kube-proxy and a CNI plugin. Pods sit on docker's default
# bridge, Services have no virtual IPs behind them, and NetworkPolicy objects are stored but not
# enforced. No kubectl either: the checks below talk to the API with curl. (Debian ships kubectl
# as kubernetes-client; the benchmark takes it with kubectl-up.sh.)
set -euo pipefail
VC_SCRIPT_NAME=kubernetes-up
engines_dir=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=lib.sh
source "$engines_dir/lib.sh"
# shellcheck source=kubernetes-lib.sh
source "$engines_dir/kubernetes-lib.sh"

# Everything but the final kubeconfig path goes to stderr: apt-get, docker and the build print
# to stdout, and a caller reads this script's stdout as `kubeconfig=$(…)`. No daemon started
# from here keeps fd 3 (or any other inherited descriptor), so such a caller is not kept waiting.
exec 3>&1 1>&2

K8S_API=https://127.0.0.1:6443
K8S_ETCD_URL=http://127.0.0.1:12379
K8S_ETCD_PEER_URL=http://127.0.0.1:12380
K8S_NODE_NAME=${VC_K8S_NODE_NAME:-vc-k8s-node}
K8S_PAUSE_IMAGE=vc-k8s-pause:3.2
K8S_STORAGE_CLASS=vc-local-hostpath
K8S_COMPUTER_NAMESPACE=mcp-virtual-computer
K8S_DOCKER_SOCKET=/var/run/docker.sock
K8S_DEB_SRC_FILE=/etc/apt/sources.list.d/mcp-virtual-computer-debian-src.sources
# What running the cluster needs, and what building it needs besides (installed only for a build).
# socat: the kubelet's dockershim forwards a pod's port (pods/portforward) by running
# `nsenter -t <pid> -n socat - TCP4:localhost:<port>` on the node.
K8S_RUN_PACKAGES=(etcd-server openssl curl jq socat)
K8S_BUILD_PACKAGES=(golang-go rsync gcc libc6-dev dpkg-dev golang-github-modern-go-reflect2-dev)
K8S_BINARIES=(kube-apiserver kube-controller-manager kube-scheduler kubelet pause)
# What build_kubernetes changes in the source. Cached binaries built another way are rebuilt.
K8S_BUILD_RECIPE="oom-score-adj-0 sysctl-warn reflect2-1.0.2"
K8S_REFLECT2_DIR=/usr/share/gocode/src/github.com/modern-go/reflect2

K8S_CERT_DIR="$VC_K8S_STATE_DIR/apiserver-certs"
# The apiserver writes this self-signed serving certificate (followed by the CA that signed it)
# on its first start; clients trust the file as their CA bundle.
K8S_CA_FILE="$K8S_CERT_DIR/apiserver.crt"
K8S_TOKEN_FILE="$VC_K8S_STATE_DIR/tokens.csv"
K8S_KUBECONFIG="$VC_K8S_STATE_DIR/kubeconfig"
K8S_SA_KEY="$VC_K8S_STATE_DIR/service-account.key"
K8S_SA_PUB="$VC_K8S_STATE_DIR/service-account.pub"
K8S_ETCD_DATA="$VC_K8S_STATE_DIR/etcd"
K8S_KUBELET_ROOT="$VC_K8S_STATE_DIR/kubelet"

# Bounded waits, in seconds, for each stage of a start on a busy 2-core machine.
K8S_ETCD_WAIT=30
K8S_APISERVER_WAIT=120
K8S_NODE_WAIT=120
K8S_SERVICE_ACCOUNT_WAIT=90
# How long the controller-manager gets to create the `default` service account before this
# script creates it through the API itself.
K8S_SERVICE_ACCOUNT_GRACE=30

k8s_token=""
k8s_bin=""
# 1 when the last start_component found its component running already.
k8s_reused=0

# --- Debian source and the build -----------------------------------------------------------

# The newest version of the `kubernetes` source package apt knows, or nothing without a deb-src
# entry.
newest_source_version() {
  local best="" version
  for version in $(apt-cache showsrc kubernetes 2>/dev/null | awk '$1 == "Version:" { print $2 }'); do
    if [[ -z "$best" ]] || dpkg --compare-versions "$version" gt "$best"; then
      best=$version
    fi
  done
  printf '%s\n' "$best"
}

# The Debian version's upstream part: 1.20.5+really1.20.2-1.1 -> 1.20.2 (the "+really" form
# says the package went back to an older upstream release).
upstream_version() {
  local version=${1#*:}
  version=${version%-*}
  [[ "$version" == *+really* ]] && version=${version##*+really}
  printf '%s\n' "$version"
}

# binaries_complete DIR — all binaries there, built with this K8S_BUILD_RECIPE.
binaries_complete() {
  local binary
  for binary in "${K8S_BINARIES[@]}"; do
    [[ -s "$1/$binary" && -x "$1/$binary" ]] || return 1
  done
  [[ "$(cat "$1/build-recipe" 2>/dev/null)" == "$K8S_BUILD_RECIPE" ]]
}

# The bin directory of the newest complete cached build, if any.
newest_cached_bin() {
  local best="" best_version="" dir version
  for dir in "$VC_ENGINE_CACHE"/kubernetes-*/bin; do
    binaries_complete "$dir" || continue
    version=${dir%/bin}
    version=${version##*/kubernetes-}
    if [[ -z "$best" ]] || dpkg --compare-versions "$version" gt "$best_version"; then
      best=$dir
      best_version=$version
    fi
  done
  printf '%s\n' "$best"
}

# A deb-src entry for bookworm main on the mirror the deb entries already use, in a file of its
# own so the machine's sources stay as they were.
add_deb_src_entry() {
  if [[ ! -f "$K8S_DEB_SRC_FILE" ]]; then
    local mirror
    mirror=$(debian_mirror)
    log "adding a deb-src entry for bookworm main ($mirror) in $K8S_DEB_SRC_FILE"
    {
      echo "# Written by scripts/engines/kubernetes-up.sh: apt-get source kubernetes."
      echo "Types: deb-src"
      echo "URIs: $mirror"
      echo "Suites: bookworm"
      echo "Components: main"
      if [[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]]; then
        echo "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
      fi
    } >"$K8S_DEB_SRC_FILE"
  fi
  log "apt-get update (for the source index)"
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  vc_apt_updated=1
}

# build_kubernetes VERSION CACHE_ROOT — builds the four components and the pause binary from
# Debian's source VERSION into CACHE_ROOT/bin. The source and the Go build cache live in
# CACHE_ROOT/build and CACHE_ROOT/source and are deleted after a successful build (a failed one
# keeps them for reading and starts over next time).
build_kubernetes() {
  local version=$1 root=$2 upstream work tree started
  upstream=$(upstream_version "$version")
  apt_install "${K8S_BUILD_PACKAGES[@]}"
  log "building Kubernetes $upstream from Debian's source $version: 4 to 7 minutes on 2 cores, once; cached in $root/bin"
  started=$SECONDS
  mkdir -p "$root/source"
  # Files already downloaded and intact are not fetched again.
  (cd "$root/source" &&
    apt-get -o APT::Sandbox::User=root source --download-only -qq "kubernetes=$version")
  work="$root/build"
  rm -rf "$work" "$root/bin.partial"
  mkdir -p "$work"
  # apt has checked these files against the signed source index; there is no keyring for
  # dpkg-source's own signature check of the .dsc.
  dpkg-source --no-check -x "$root/source/"kubernetes_*.dsc "$work/kubernetes" >/dev/null
  tree="$work/kubernetes"

  # Where the engine lacks CAP_SYS_RESOURCE (as on the machines the test suite runs on), runc
  # refuses negative OOM score adjustments ("can't get final child's PID from pipe"), and the
  # kubelet asks for -998 for every pod sandbox and -997 for guaranteed pods' containers. 0 keeps
  # the kernel's default for both.
  patch_source "$tree/pkg/kubelet/dockershim/docker_sandbox.go" \
    'defaultSandboxOOMAdj[[:space:]]+int[[:space:]]+=[[:space:]]+-998' 'defaultSandboxOOMAdj int = 0'
  patch_source "$tree/pkg/kubelet/qos/policy.go" \
    'guaranteedOOMScoreAdj[[:space:]]+int[[:space:]]+=[[:space:]]+-997' 'guaranteedOOMScoreAdj int = 0'
  # Unless --protect-kernel-defaults makes it refuse to start, the kubelet sets machine-wide
  # sysctls when it starts: vm.overcommit_memory=1, kernel.panic=10, kernel.panic_on_oops=1 and
  # more. A test cluster has no business changing how the whole machine allocates memory or
  # handles a kernel oops; its "warn" mode, which upstream has but never selects, leaves them.
  patch_source "$tree/pkg/kubelet/cm/container_manager_linux.go" \
    'b := KernelTunableModify' 'b := KernelTunableWarn'

  # The vendored github.com/modern-go/reflect2 1.0.1 calls reflect.mapiterinit through
  # go:linkname with the signature it had before Go 1.18. Built with Debian's Go 1.19, the
  # apiserver dies (SIGSEGV in mapiterinit) the first time it encodes an object with a map as JSON,
  # e.g. a node for `curl …/api/v1/nodes/NAME`; protobuf clients never get there. reflect2 1.0.2 is
  # the upstream fix, and Debian ships it: its sources replace the vendored ones.
  local vendored="$tree/vendor/github.com/modern-go/reflect2"
  [[ -f "$K8S_REFLECT2_DIR/go_above_118.go" ]] ||
    die "$K8S_REFLECT2_DIR has no go_above_118.go; golang-github-modern-go-reflect2-dev is not the expected 1.0.2"
  [[ -d "$vendored" ]] || die "$vendored is missing; the source changed, the replacement needs a look"
  rm -f "$vendored"/*.go "$vendored"/*.s
  cp "$K8S_REFLECT2_DIR"/*.go "$K8S_REFLECT2_DIR"/*.s "$vendored/"

  # v1.20's build scripts build in GOPATH mode: the tree must sit at $GOPATH/src/k8s.io/kubernetes.
  mkdir -p "$tree/.go/src/k8s.io"
  ln -sfn ../../.. "$tree/.go/src/k8s.io/kubernetes"
  # CGO_ENABLED=0: static, pure-Go binaries. -mod=vendor: only the source package's vendor/,
  # nothing is fetched. HOME inside the tree keeps Go's build cache there, deleted with it.
  # rsync is required: without it the code generators are left as 0-byte files.
  local targets="cmd/kube-apiserver cmd/kubelet cmd/kube-controller-manager cmd/kube-scheduler"
  (cd "$tree" &&
    HOME="$tree" GOPATH="$tree/.go" CGO_ENABLED=0 GOFLAGS=-mod=vendor \
      make WHAT="$targets" GOFLAGS=-mod=vendor) >"$root/build.log" 2>&1 </dev/null &
  local make_pid=$! last_report=$SECONDS
  while kill -0 "$make_pid" 2>/dev/null; do
    sleep 2
    if ((SECONDS - last_report >= 60)); then
      last_report=$SECONDS
      # The build log names each batch of Go targets on indented lines after a "+++" line.
      log "still building ($(((SECONDS - started) / 60)) min so far):$(awk '/^\+\+\+ / { t = "" } /^    / { t = t " " $1 } END { print t }' "$root/build.log")"
    fi
  done
  if ! wait "$make_pid"; then
    tail -n 40 "$root/build.log" >&2 || true
    die "the Kubernetes build failed; full log: $root/build.log (the tree is kept in $work)"
  fi

  mkdir -p "$root/bin.partial"
  local binary
  for binary in kube-apiserver kube-controller-manager kube-scheduler kubelet; do
    cp -L "$tree/_output/bin/$binary" "$root/bin.partial/$binary"
  done
  # The pod sandbox's process: it only waits for signals and reaps zombies. Static, so the image
  # needs nothing else.
  gcc -Os -Wall -static -o "$root/bin.partial/pause" "$tree/build/pause/linux/pause.c"
  printf '%s\n' "$K8S_BUILD_RECIPE" >"$root/bin.partial/build-recipe"
  binaries_complete "$root/bin.partial" || die "the build left incomplete binaries in $root/bin.partial"
  rm -rf "${root:?}/bin"
  mv "$root/bin.partial" "$root/bin"
  rm -rf "$work" "$root/source"
  log "built Kubernetes $upstream in $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s; cached in $root/bin ($(du -sh "$root/bin" | cut -f1))"
}

# patch_source FILE EXTENDED_REGEX REPLACEMENT — fails when the line is not there, so a changed
# source is noticed instead of built unpatched.
patch_source() {
  grep -Eq "$2" "$1" || die "$1 has no line matching '$2'; the source changed, the patch needs a look"
  sed -Ei "s/$2/$3/" "$1"
}

# Sets k8s_bin to the cached binaries of the newest Debian source, building them when missing.
ensure_binaries() {
  local version cached
  version=$(newest_source_version)
  if [[ -z "$version" ]]; then
    cached=$(newest_cached_bin)
    if [[ -n "$cached" ]]; then
      log "apt knows no kubernetes source package (no deb-src entry); using the cached build $cached"
      k8s_bin=$cached
      return 0
    fi
    add_deb_src_entry
    version=$(newest_source_version)
    [[ -n "$version" ]] || die "apt-cache showsrc kubernetes finds nothing, even with $K8S_DEB_SRC_FILE"
  fi
  local root="$VC_ENGINE_CACHE/kubernetes-$version"
  if binaries_complete "$root/bin"; then
    log "using the cached Kubernetes $(upstream_version "$version") binaries in $root/bin"
  else
    build_kubernetes "$version" "$root"
  fi
  k8s_bin="$root/bin"
}

# --- Machine prerequisites -------------------------------------------------------------------

ensure_docker() {
  if socket_answers "$K8S_DOCKER_SOCKET"; then
    log "dockerd answers on $K8S_DOCKER_SOCKET"
  else
    log "dockerd does not answer; running docker-up.sh"
    # 3>&-: dockerd, which it may start, must not hold this script's stdout open.
    bash "$engines_dir/docker-up.sh" 3>&-
  fi
  export DOCKER_HOST="unix://$K8S_DOCKER_SOCKET"
}

ensure_pause_image() {
  if docker image inspect "$K8S_PAUSE_IMAGE" >/dev/null 2>&1; then
    log "$K8S_PAUSE_IMAGE is present"
    return 0
  fi
  log "docker import $k8s_bin/pause as $K8S_PAUSE_IMAGE"
  tar -C "$k8s_bin" -c pause | docker import --change 'ENTRYPOINT ["/pause"]' - "$K8S_PAUSE_IMAGE" >/dev/null
}

# The kubelet registers the node under --hostname-override, and the apiserver reaches the kubelet
# (logs, exec) by that name (--kubelet-preferred-address-types=Hostname). The kubelet refuses a
# loopback --node-ip, so the node's InternalIP is this machine's interface address; the name is
# what keeps that traffic on loopback, so it must resolve to 127.0.0.1.
ensure_node_name_resolves() {
  local addresses
  addresses=$(getent ahostsv4 "$K8S_NODE_NAME" 2>/dev/null | awk '{ print $1 }' | sort -u || true)
  if [[ -z "$addresses" ]]; then
    log "adding '127.0.0.1 $K8S_NODE_NAME' to /etc/hosts (the node's name must resolve to loopback)"
    printf '127.0.0.1 %s\n' "$K8S_NODE_NAME" >>/etc/hosts
  elif [[ "$addresses" != "127.0.0.1" ]]; then
    die "the node name $K8S_NODE_NAME resolves to $(echo "$addresses" | tr '\n' ' ')rather than 127.0.0.1 only; set VC_K8S_NODE_NAME to another name"
  fi
}

# Keys, the token file and directories: made once, kept across restarts (and removed by
# kubernetes-down.sh --purge).
ensure_state() {
  mkdir -p "$VC_K8S_STATE_DIR" "$VC_K8S_RUN_DIR" "$VC_K8S_LOG_DIR" "$K8S_CERT_DIR" \
           "$K8S_KUBELET_ROOT"
  chmod 700 "$VC_K8S_STATE_DIR"
  if [[ ! -s "$K8S_SA_KEY" ]]; then
    log "generating the service-account signing key"
    (umask 077 && openssl genrsa -out "$K8S_SA_KEY.partial" 2048 2>/dev/null && mv "$K8S_SA_KEY.partial" "$K8S_SA_KEY")
    rm -f "$K8S_SA_PUB"
  fi
  [[ -s "$K8S_SA_PUB" ]] || openssl rsa -in "$K8S_SA_KEY" -pubout -out "$K8S_SA_PUB" 2>/dev/null
  if [[ ! -s "$K8S_TOKEN_FILE" ]]; then
    log "generating the admin token ($K8S_TOKEN_FILE)"
    # token,user,uid,groups: system:masters may do anything.
    (umask 077 && printf '%s,admin,admin,system:masters\n' "$(openssl rand -hex 16)" >"$K8S_TOKEN_FILE")
  fi
  k8s_token=$(cut -d, -f1 "$K8S_TOKEN_FILE")
}

# --- Components ------------------------------------------------------------------------------

# Closes every descriptor above stderr in this (sub)shell: a daemon started from it would keep a
# descriptor the caller left open — the pipe a `$(…)` reads, a held lock — for its lifetime.
close_inherited_fds() {
  local fd
  for fd in /proc/"$BASHPID"/fd/*; do
    fd=${fd##*/}
    if ((fd > 2)); then eval "exec $fd>&-"; fi
  done
}

# start_component NAME BINARY ARG... — starts NAME in the background unless it runs already.
# setsid: it outlives this script and the terminal or CI step that ran it. The subshell execs
# into the daemon, so $! is the daemon's pid.
start_component() {
  local name=$1 pid log_file
  shift
  if pid=$(k8s_component_pid "$name"); then
    log "$name is running (pid $pid)"
    k8s_reused=1
    return 0
  fi
  k8s_reused=0
  log_file=$(k8s_log_file "$name")
  log "starting $name (log: $log_file)"
  date +%s >"$VC_K8S_RUN_DIR/$name.started"
  (
    close_inherited_fds
    cd /  # the daemon's working directory must not be a folder deleted later
    exec setsid nohup "$@" >>"$log_file" 2>&1 </dev/null
  ) &
  echo $! >"$(k8s_pid_file "$name")"
}

# wait_for NAME SECONDS WHAT CHECK... — polls CHECK every second until it succeeds; fails,
# naming NAME's log, when NAME exits or SECONDS pass first.
wait_for() {
  wait_or_exit "$@" || die_exited "$1" "$3"
}

die_exited() {
  local log_file
  log_file=$(k8s_log_file "$1")
  tail -n 20 "$log_file" >&2 || true
  die "$1 exited before $2; read $log_file"
}

# wait_or_exit NAME SECONDS WHAT CHECK... — like wait_for, but returns 1 when NAME exits.
wait_or_exit() {
  local name=$1 seconds=$2 what=$3 started=$SECONDS log_file
  shift 3
  log_file=$(k8s_log_file "$name")
  until "$@"; do
    k8s_component_pid "$name" >/dev/null || return 1
    if ((SECONDS - started >= seconds)); then
      tail -n 20 "$log_file" >&2 || true
      die "no $what within ${seconds} s; read $log_file"
    fi
    sleep 1
  done
}

api_get() {
  curl -sf --max-time 5 --cacert "$K8S_CA_FILE" -H "Authorization: Bearer $k8s_token" "$K8S_API$1"
}

api_post() {
  curl -sf --max-time 10 --cacert "$K8S_CA_FILE" -H "Authorization: Bearer $k8s_token" \
    -H 'Content-Type: application/json' -X POST --data "$2" "$K8S_API$1"
}

etcd_healthy() {
  curl -sf --max-time 3 "$K8S_ETCD_URL/health" 2>/dev/null | grep -q '"health":"true"'
}

apiserver_ready() {
  [[ -s "$K8S_CA_FILE" ]] && [[ "$(api_get /readyz 2>/dev/null)" == ok ]]
}

# bring_up NAME START SECONDS WHAT CHECK... — runs START (which calls start_component) and waits
# for CHECK. A component found running may still be on its way out (stopped a moment before;
# the apiserver's graceful shutdown takes up to a minute): when it exits during the wait, it is
# started once more.
bring_up() {
  local name=$1 start=$2
  shift 2
  "$start"
  wait_or_exit "$name" "$@" && return 0
  if ((k8s_reused)); then
    log "$name exited while this script waited for it; starting it again"
    "$start"
    wait_or_exit "$name" "$@" && return 0
  fi
  die_exited "$name" "$2"
}

# Not etcd's usual ports 2379/2380: on a machine with systemd, installing etcd-server also
# starts the system's own etcd there.
start_etcd() {
  start_component etcd etcd --name vc-k8s --data-dir "$K8S_ETCD_DATA" \
    --listen-client-urls "$K8S_ETCD_URL" --advertise-client-urls "$K8S_ETCD_URL" \
    --listen-peer-urls "$K8S_ETCD_PEER_URL" --initial-advertise-peer-urls "$K8S_ETCD_PEER_URL" \
    --initial-cluster "vc-k8s=$K8S_ETCD_PEER_URL"
}

# The serving certificate is self-signed, made by the apiserver in --cert-dir for its
# --advertise-address (127.0.0.1). --endpoint-reconciler-type=none: the apiserver would publish
# its address as the `kubernetes` Service's endpoint every 10 s, and 127.0.0.1 is refused there
# (loopback); nothing in the cluster could use it anyway without kube-proxy.
# --kubelet-preferred-address-types=Hostname: see ensure_node_name_resolves.
start_apiserver() {
  start_component kube-apiserver "$k8s_bin/kube-apiserver" \
    --etcd-servers="$K8S_ETCD_URL" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port=6443 --insecure-port=0 \
    --cert-dir="$K8S_CERT_DIR" \
    --token-auth-file="$K8S_TOKEN_FILE" \
    --authorization-mode=Node,RBAC \
    --service-account-key-file="$K8S_SA_PUB" \
    --service-account-signing-key-file="$K8S_SA_KEY" \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-cluster-ip-range=10.96.0.0/24 \
    --allow-privileged=true \
    --endpoint-reconciler-type=none \
    --kubelet-preferred-address-types=Hostname
}

# Written once, after the apiserver has made its certificate, which the kubeconfig names as its
# CA (the file holds the serving certificate and the CA that signed it, valid for 127.0.0.1).
ensure_kubeconfig() {
  [[ -s "$K8S_KUBECONFIG" ]] && return 0
  log "writing $K8S_KUBECONFIG"
  (umask 077 && cat >"$K8S_KUBECONFIG" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: vc-local
  cluster:
    server: $K8S_API
    certificate-authority: $K8S_CA_FILE
users:
- name: admin
  user:
    token: $k8s_token
contexts:
- name: vc-local
  context:
    cluster: vc-local
    user: admin
    namespace: default
current-context: vc-local
EOF
  )
}

# --leader-elect=false: there is one of each, and a restarted one would otherwise wait for its
# predecessor's lease to expire. --port=0 turns off the old plain-HTTP port, which listens on all
# addresses; the HTTPS port follows --bind-address. No pod CIDRs are allocated (pods use
# docker's bridge), so the node IPAM controller is off. --enable-hostpath-provisioner: claims of
# the storage class below get a folder under /tmp/hostpath_provisioner on this one node, made
# when a claim is bound and deleted with it (Kubernetes' single-node test provisioner).
start_controller_manager() {
  start_component kube-controller-manager "$k8s_bin/kube-controller-manager" \
    --kubeconfig="$K8S_KUBECONFIG" \
    --service-account-private-key-file="$K8S_SA_KEY" \
    --root-ca-file="$K8S_CA_FILE" \
    --controllers='*,-nodeipam' \
    --enable-hostpath-provisioner=true \
    --bind-address=127.0.0.1 --port=0 --leader-elect=false
}

start_scheduler() {
  start_component kube-scheduler "$k8s_bin/kube-scheduler" \
    --kubeconfig="$K8S_KUBECONFIG" \
    --bind-address=127.0.0.1 --port=0 --leader-elect=false
}

# The kubelet with dockershim on the local dockerd and no CNI plugin (pods on docker's bridge).
# --cgroups-per-qos=false and an empty --enforce-node-allocatable: no cgroup hierarchy of its
# own, which this kind of host does not let it manage. --address/--read-only-port: its API on
# loopback only, HTTPS only; anonymous and AlwaysAllow because only the apiserver on this machine
# talks to it. Image garbage collection is off (the threshold of 100 % is never exceeded) and the
# disk eviction thresholds are 1 %: dockerd is shared with other tests, whose images the kubelet
# must not delete, and the disk's fill level is not this cluster's to police. The iptables
# chains it would add to the host are not needed without kube-proxy.
start_kubelet() {
  local cgroup_driver
  cgroup_driver=$(docker info --format '{{.CgroupDriver}}' 2>/dev/null || echo cgroupfs)
  start_component kubelet "$k8s_bin/kubelet" \
    --kubeconfig="$K8S_KUBECONFIG" \
    --container-runtime=docker --docker-endpoint="unix://$K8S_DOCKER_SOCKET" \
    --pod-infra-container-image="$K8S_PAUSE_IMAGE" \
    --cgroup-driver="$cgroup_driver" --fail-swap-on=false \
    --root-dir="$K8S_KUBELET_ROOT" --cert-dir="$K8S_KUBELET_ROOT/pki" \
    --experimental-dockershim-root-directory="$K8S_KUBELET_ROOT/dockershim" \
    --volume-plugin-dir="$K8S_KUBELET_ROOT/volume-plugins" \
    --cgroups-per-qos=false --enforce-node-allocatable= \
    --address=127.0.0.1 --read-only-port=0 \
    --anonymous-auth=true --authorization-mode=AlwaysAllow \
    --hostname-override="$K8S_NODE_NAME" \
    --image-gc-high-threshold=100 --image-gc-low-threshold=99 \
    --eviction-hard='memory.available<100Mi,nodefs.available<1%,imagefs.available<1%,nodefs.inodesFree<1%' \
    --make-iptables-util-chains=false
}

# Ready, as reported by the running kubelet: a Ready condition left in etcd by a kubelet that
# was stopped counts only once the new one has posted a heartbeat.
node_ready() {
  local since line status heartbeat
  since=$(cat "$VC_K8S_RUN_DIR/kubelet.started" 2>/dev/null || echo 0)
  line=$(api_get "/api/v1/nodes/$K8S_NODE_NAME" 2>/dev/null |
    jq -r '.status.conditions[]? | select(.type == "Ready") | "\(.status) \(.lastHeartbeatTime)"') || return 1
  read -r status heartbeat <<<"$line"
  [[ "$status" == True ]] && (($(date -d "$heartbeat" +%s 2>/dev/null || echo 0) >= since))
}

service_account_exists() {
  api_get /api/v1/namespaces/default/serviceaccounts/default >/dev/null 2>&1
}

# v1.20's ServiceAccount admission refuses pods until the account has a token secret, which the
# controller-manager's token controller makes.
service_account_has_token() {
  api_get /api/v1/namespaces/default/serviceaccounts/default 2>/dev/null |
    jq -e '(.secrets // []) | length > 0' >/dev/null
}

# The controller-manager creates the `default` service account in each namespace; should it not
# have done so after a grace period, create it through the API, then wait for its token.
ensure_default_service_account() {
  local started=$SECONDS
  until service_account_exists; do
    if ((SECONDS - started >= K8S_SERVICE_ACCOUNT_GRACE)); then
      log "no default service account after ${K8S_SERVICE_ACCOUNT_GRACE} s; creating it through the API"
      api_post /api/v1/namespaces/default/serviceaccounts \
        '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default","namespace":"default"}}' \
        >/dev/null || service_account_exists || die "cannot create the default service account"
      break
    fi
    k8s_component_pid kube-controller-manager >/dev/null ||
      die "kube-controller-manager exited; read $(k8s_log_file kube-controller-manager)"
    sleep 1
  done
  wait_for kube-controller-manager "$K8S_SERVICE_ACCOUNT_WAIT" \
    "token for the default service account" service_account_has_token
}

# The cluster's default storage class, on the host-path provisioner: a claim that names no class
# (as the Kubernetes backend's claims do by default) is bound at once, and deleting the claim
# deletes its folder.
ensure_storage_class() {
  api_get "/apis/storage.k8s.io/v1/storageclasses/$K8S_STORAGE_CLASS" >/dev/null 2>&1 && return 0
  api_post /apis/storage.k8s.io/v1/storageclasses "$(jq -cn --arg name "$K8S_STORAGE_CLASS" '{
      apiVersion: "storage.k8s.io/v1", kind: "StorageClass",
      metadata: {name: $name,
                 annotations: {"storageclass.kubernetes.io/is-default-class": "true"}},
      provisioner: "kubernetes.io/host-path", reclaimPolicy: "Delete",
      volumeBindingMode: "Immediate"}')" >/dev/null ||
    api_get "/apis/storage.k8s.io/v1/storageclasses/$K8S_STORAGE_CLASS" >/dev/null ||
    die "cannot create the storage class $K8S_STORAGE_CLASS"
}

# The namespace the Kubernetes backend puts computers in by default (its --namespace).
ensure_computer_namespace() {
  api_get "/api/v1/namespaces/$K8S_COMPUTER_NAMESPACE" >/dev/null 2>&1 && return 0
  api_post /api/v1/namespaces "$(jq -cn --arg name "$K8S_COMPUTER_NAMESPACE" \
      '{apiVersion: "v1", kind: "Namespace", metadata: {name: $name}}')" >/dev/null ||
    api_get "/api/v1/namespaces/$K8S_COMPUTER_NAMESPACE" >/dev/null ||
    die "cannot create the namespace $K8S_COMPUTER_NAMESPACE"
}

main() {
  local started=$SECONDS
  require_root
  apt_install "${K8S_RUN_PACKAGES[@]}"
  command -v etcd >/dev/null || die "etcd is not on PATH after installing etcd-server"
  ensure_docker
  ensure_binaries
  ensure_pause_image
  ensure_node_name_resolves
  ensure_state

  bring_up etcd start_etcd "$K8S_ETCD_WAIT" "healthy etcd at $K8S_ETCD_URL" etcd_healthy
  bring_up kube-apiserver start_apiserver "$K8S_APISERVER_WAIT" \
    "ready API (GET $K8S_API/readyz)" apiserver_ready
  ensure_kubeconfig
  start_controller_manager
  start_scheduler
  bring_up kubelet start_kubelet "$K8S_NODE_WAIT" "Ready node $K8S_NODE_NAME" node_ready
  ensure_default_service_account
  ensure_storage_class
  ensure_computer_namespace

  local version
  version=$(api_get /version | jq -r .gitVersion)
  log "ready in $((SECONDS - started)) s: Kubernetes $version at $K8S_API, node $K8S_NODE_NAME Ready; kubeconfig:"
  printf '%s\n' "$K8S_KUBECONFIG" >&3
}

main "$@"
