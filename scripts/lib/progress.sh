# progress.sh — phases with their wall time, and slow independent steps run in the background,
# for run.sh and test.sh. Sourced, not run. Everything goes to stderr (run.sh's stdout belongs
# to MCP).
#
#   phase NAME                 starts a phase (and ends the one before): "== NAME"
#   background NAME CMD...     runs CMD in the background now; each line it prints comes out
#                              on stderr as "[NAME] line", so the person sees it as it happens
#   await NAME                 waits for the background step; fails (exit status of CMD) when
#                              it failed, after saying so
#   phase_summary              one line with every phase's and background step's seconds
#
# A first run is mostly waiting on the network (packages, the Debian root filesystem, the
# desktop image's packages) and on the compiler: doing those at once is what makes it short.
# When the script exits with a background step still running, it waits for it rather than
# leaving an engine half set up.

vc_progress_script=${vc_progress_script:-$(basename "$0" .sh)}
vc_phase_name=""
vc_phase_start=0
vc_phase_times=()
declare -A vc_background_pid=()
declare -A vc_background_status=()
declare -A vc_background_start=()

vc_say() { printf '%s: %s\n' "$vc_progress_script" "$*" >&2; }

vc_phase_close() {
  [[ -n $vc_phase_name ]] || return 0
  vc_phase_times+=("$vc_phase_name $((SECONDS - vc_phase_start)) s")
  vc_phase_name=""
}

phase() {
  vc_phase_close
  vc_phase_name=$1
  vc_phase_start=$SECONDS
  vc_say "== $1"
}

background() {
  local name=$1
  shift
  local status_file
  status_file=$(mktemp "${TMPDIR:-/tmp}/vc-$name.XXXXXX")
  vc_say "started in the background: $name"
  # The exit status and the time it ended go through a file: $! is the prefixing sed's pid, not
  # the command's, and the step may end long before anyone awaits it.
  ( set +e; "$@" 2>&1; echo "$? $(date +%s)" >"$status_file" ) </dev/null |
    sed -u "s/^/[$name] /" >&2 &
  vc_background_pid[$name]=$!
  vc_background_status[$name]=$status_file
  vc_background_start[$name]=$(date +%s)
}

await() {
  local name=$1
  local pid=${vc_background_pid[$name]:-}
  [[ -n $pid ]] || { vc_say "error: nothing named $name runs in the background"; return 1; }
  local waited_from=$SECONDS
  wait "$pid" || true
  local status_file=${vc_background_status[$name]}
  local status ended
  read -r status ended <"$status_file" 2>/dev/null || true
  status=${status:-1}
  ended=${ended:-$(date +%s)}
  rm -f "$status_file"
  unset "vc_background_pid[$name]"
  local took=$((ended - vc_background_start[$name]))
  vc_phase_times+=("$name (background) $took s")
  if [[ $status != 0 ]]; then
    vc_say "error: $name failed (exit status $status); its output is above, each line marked [$name]"
    return "$status"
  fi
  vc_say "$name done after $took s (waited $((SECONDS - waited_from)) s for it)"
}

phase_summary() {
  vc_phase_close
  local IFS=','
  vc_say "phases (wall time): ${vc_phase_times[*]}; total $SECONDS s"
}

vc_await_leftovers() {
  local name
  for name in "${!vc_background_pid[@]}"; do
    vc_say "waiting for $name to finish before exiting"
    wait "${vc_background_pid[$name]}" 2>/dev/null || true
    rm -f "${vc_background_status[$name]}"
  done
}
trap vc_await_leftovers EXIT
