#!/bin/sh
# Runs an end-to-end client against the host. npm installs into the build tree, never into
# the source tree: the package files and the clients are copied to WORK_DIR first. A host
# argument @SCRATCH@ becomes a scratch directory removed afterwards.
#   run_e2e.sh SOURCE_DIR WORK_DIR CLIENT HOST_BINARY [host arguments...]
set -eu
source_dir=$1
work_dir=$2
client=$3
host=$(cd "$(dirname "$4")" && pwd)/$(basename "$4")  # absolute: the client runs from work_dir
shift 4

mkdir -p "$work_dir"
cp "$source_dir/package.json" "$source_dir/package-lock.json" "$source_dir"/*.mjs "$work_dir/"
export npm_config_cache="$work_dir/npm-cache"
export npm_config_update_notifier=false

# Reinstall when the lock file changed since the last install.
stamp="$work_dir/node_modules/.installed-lock"
if ! cmp -s "$work_dir/package-lock.json" "$stamp" 2>/dev/null; then
  (cd "$work_dir" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$work_dir/package-lock.json" "$stamp"
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
