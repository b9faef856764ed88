# lib.sh — helpers shared by docker-up.sh and podman-up.sh. Sourced, not run.
#
# No container registry is reachable from the machines the test suite runs on, so the images
# the tests use are made locally from Debian's archive (debootstrap) and from the static
# busybox binary, and their root filesystems are cached as tarballs under VC_ENGINE_CACHE so
# that an engine with an empty store can import them again in seconds.

VC_ENGINE_CACHE=${VC_ENGINE_CACHE:-/var/cache/mcp-virtual-computer}
VC_DEBIAN_TAR="$VC_ENGINE_CACHE/debian-bookworm-minbase.tar"
VC_BUSYBOX_TAR="$VC_ENGINE_CACHE/vc-test-busybox.tar"
VC_DEBIAN_IMAGE=debian:bookworm-slim
VC_BUSYBOX_IMAGE=vc-test-busybox:latest
# What `docker import` / `podman import` put into the image config. A plain rootfs has no
# environment; the debian image's CMD mirrors the official one.
VC_IMAGE_PATH_ENV='ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
VC_DEBIAN_CMD='CMD ["bash"]'
VC_BUSYBOX_CMD='CMD ["sh"]'
# The Debian packages each engine's setup needs (install-deps.sh --engine installs them with the
# build's in one apt-get run).
VC_DOCKER_PACKAGES=(docker.io curl debootstrap busybox-static)
VC_PODMAN_PACKAGES=(podman runc catatonit curl debootstrap busybox-static)

log() { printf '%s: %s\n' "${VC_SCRIPT_NAME:-engines}" "$*" >&2; }
die() { log "error: $*"; exit 1; }

require_root() {
  [[ $(id -u) -eq 0 ]] || die "must run as root (it installs packages and starts daemons)"
}

package_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"
}

vc_apt_updated=0
# Installs the packages that are not installed yet; runs `apt-get update` at most once.
# DPkg::Lock::Timeout waits for another apt run on the machine instead of failing.
apt_install() {
  local missing=() package
  for package in "$@"; do
    package_installed "$package" || missing+=("$package")
  done
  ((${#missing[@]} == 0)) && return 0
  log "installing with apt-get: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive NEEDRESTART_SUSPEND=1
  if ((vc_apt_updated == 0)); then
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    vc_apt_updated=1
  fi
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# True when the engine API on unix socket $1 answers GET /_ping with OK.
socket_answers() {
  [[ -S "$1" ]] || return 1
  local answer
  answer=$(curl -sS --max-time 3 --unix-socket "$1" http://engine/_ping 2>/dev/null) || return 1
  [[ "$answer" == "OK" ]]
}

# wait_for_socket SOCKET SECONDS DAEMON_PID LOG — polls until the socket answers; fails early
# when the daemon process has exited.
wait_for_socket() {
  local socket=$1 seconds=$2 pid=$3 logfile=$4 waited=0
  while ! socket_answers "$socket"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "the daemon exited; last lines of $logfile:"
      tail -n 20 "$logfile" >&2 || true
      return 1
    fi
    if ((waited >= seconds * 10)); then
      log "$socket did not answer /_ping within ${seconds}s; last lines of $logfile:"
      tail -n 20 "$logfile" >&2 || true
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

# The Debian mirror apt already uses on this machine (deb822 .sources files first, then the
# one-line format), so debootstrap fetches from the same, reachable place.
debian_mirror() {
  local uri
  uri=$(awk '
    /^[[:space:]]*$/ { if (uris != "" && suites ~ /(^| )bookworm( |$)/ && !done) { print uris; done = 1 }
                       uris = ""; suites = ""; next }
    /^URIs:/   { uris = $2 }
    /^Suites:/ { $1 = ""; suites = $0 " " }
    END { if (uris != "" && suites ~ /(^| )bookworm( |$)/ && !done) print uris }
  ' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
  if [[ -z "$uri" ]]; then
    uri=$(awk '$1 == "deb" {
                 i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                 if ($(i + 1) == "bookworm") { print $i; exit }
               }' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n 1)
  fi
  [[ -n "$uri" ]] || uri=http://deb.debian.org/debian
  printf '%s\n' "$uri"
}

# Makes $VC_DEBIAN_TAR (a minbase bookworm root filesystem) unless it is cached already.
ensure_debian_rootfs_tar() {
  if [[ -s "$VC_DEBIAN_TAR" ]]; then
    log "using the cached root filesystem $VC_DEBIAN_TAR"
    return 0
  fi
  apt_install debootstrap
  mkdir -p "$VC_ENGINE_CACHE"
  local mirror work
  mirror=$(debian_mirror)
  work=$(mktemp -d /var/tmp/vc-debootstrap.XXXXXX)
  log "debootstrap --variant=minbase bookworm from $mirror (about a minute)"
  if ! debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1; then
    tail -n 30 "$work/debootstrap.log" >&2 || true
    rm -rf "$work"
    die "debootstrap failed"
  fi
  # Keep the image small and free of this machine's apt state.
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"* \
         "$work/rootfs/var/log/"* "$work/rootfs/tmp/"*
  tar --numeric-owner -C "$work/rootfs" -cf "$VC_DEBIAN_TAR.partial" .
  mv "$VC_DEBIAN_TAR.partial" "$VC_DEBIAN_TAR"
  rm -rf "$work"
  log "cached $VC_DEBIAN_TAR ($(du -h "$VC_DEBIAN_TAR" | cut -f1))"
}

# Makes $VC_BUSYBOX_TAR: the static busybox with a symlink for every applet it has.
ensure_busybox_rootfs_tar() {
  if [[ -s "$VC_BUSYBOX_TAR" ]]; then
    log "using the cached root filesystem $VC_BUSYBOX_TAR"
    return 0
  fi
  apt_install busybox-static
  mkdir -p "$VC_ENGINE_CACHE"
  local work applet
  work=$(mktemp -d /var/tmp/vc-busybox.XXXXXX)
  mkdir -p "$work"/{bin,dev,etc,proc,sys,tmp,root,workspace}
  chmod 1777 "$work/tmp"
  cp /bin/busybox "$work/bin/busybox"
  for applet in $("$work/bin/busybox" --list); do
    [[ "$applet" == busybox ]] || ln -s busybox "$work/bin/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$work/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$work/etc/group"
  tar --numeric-owner -C "$work" -cf "$VC_BUSYBOX_TAR.partial" .
  mv "$VC_BUSYBOX_TAR.partial" "$VC_BUSYBOX_TAR"
  rm -rf "$work"
  log "cached $VC_BUSYBOX_TAR ($(du -h "$VC_BUSYBOX_TAR" | cut -f1))"
}

# Makes the engine's $VC_BUSYBOX_IMAGE when it is missing, from the cached root filesystem. The
# calling script defines image_present IMAGE and import_image TAR IMAGE CMD for its engine.
ensure_busybox_image() {
  if image_present "$VC_BUSYBOX_IMAGE"; then
    log "$VC_BUSYBOX_IMAGE is present"
    return 0
  fi
  ensure_busybox_rootfs_tar
  import_image "$VC_BUSYBOX_TAR" "$VC_BUSYBOX_IMAGE" "$VC_BUSYBOX_CMD"
}
