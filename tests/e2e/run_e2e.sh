#!/bin/sh
# Runs the end-to-end client against the host. npm installs into the build tree, never into
# the source tree: the package files and the client are copied to WORK_DIR first.
#   run_e2e.sh SOURCE_DIR WORK_DIR HOST_BINARY [host arguments...]
set -eu
source_dir=$1
work_dir=$2
host=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")  # absolute: the client runs from work_dir
shift 3

mkdir -p "$work_dir"
cp "$source_dir/package.json" "$source_dir/package-lock.json" "$source_dir/stdio_client.mjs" "$work_dir/"
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
cd "$work_dir"
node stdio_client.mjs "$host" "$@" --scratch-root "$scratch/computers"
