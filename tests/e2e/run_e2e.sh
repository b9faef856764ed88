#!/bin/sh
# Runs an end-to-end client against the host, or prepares the clients' work directory.
#   run_e2e.sh --prepare SOURCE_DIR WORK_DIR
#   run_e2e.sh SOURCE_DIR WORK_DIR CLIENT HOST_BINARY [host arguments...]
# --prepare (ctest's e2e.prepare_clients, the fixture every client test requires) copies the
# package files and the clients to WORK_DIR and installs the pinned packages there with npm ci,
# when the lock file changed since the last install: npm works in the build tree, never in the
# source tree. The clients then only read WORK_DIR, so several can run at once. A host argument
# @SCRATCH@ becomes a scratch directory removed afterwards.
set -eu

if [ "$1" = "--prepare" ]; then
  source_dir=$2
  work_dir=$3
  mkdir -p "$work_dir"
  # Each file is replaced whole (a copy then a rename), never rewritten in place.
  for file in "$source_dir/package.json" "$source_dir/package-lock.json" "$source_dir"/*.mjs; do
    cp "$file" "$work_dir/.$(basename "$file").new"
    mv -f "$work_dir/.$(basename "$file").new" "$work_dir/$(basename "$file")"
  done
  export npm_config_cache="$work_dir/npm-cache"
  export npm_config_update_notifier=false
  stamp="$work_dir/node_modules/.installed-lock"
  if ! cmp -s "$work_dir/package-lock.json" "$stamp" 2>/dev/null; then
    (cd "$work_dir" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$work_dir/package-lock.json" "$stamp"
  fi
  exit 0
fi

source_dir=$1
work_dir=$2
client=$3
host=$(cd "$(dirname "$4")" && pwd)/$(basename "$4")  # absolute: the client runs from work_dir
shift 4

if ! cmp -s "$source_dir/$client" "$work_dir/$client" 2>/dev/null ||
   [ ! -f "$work_dir/node_modules/.installed-lock" ]; then
  echo "run_e2e.sh: $work_dir is not prepared for $client; run ctest with the e2e.prepare_clients fixture (ctest -R e2e pulls it in)" >&2
  exit 1
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export XDG_STATE_HOME="$scratch/state"
for arg do
  shift
  [ "$arg" = "@SCRATCH@" ] && arg="$scratch/computers"
  set -- "$@" "$arg"
done
cd "$work_dir"
node "$client" "$host" "$@"
