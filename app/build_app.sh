#!/bin/sh
# Builds the MCP App into one HTML file. npm installs into WORK_DIR (the build tree), never
# into the source tree: the sources are copied there first, and `npm ci` runs only when the
# lock file changed since the last install.
#   build_app.sh SOURCE_DIR WORK_DIR OUTPUT_FILE [HARNESS_FILE]
# HARNESS_FILE: also build the hosted-mode test harness (a chat client's page) there.
set -eu
source_dir=$1
work_dir=$2
output=$3
harness=${4:-}

mkdir -p "$work_dir"
rm -rf "$work_dir/src" "$work_dir/tests"
cp -R "$source_dir/src" "$source_dir/tests" "$work_dir/"
cp "$source_dir/package.json" "$source_dir/package-lock.json" "$source_dir/index.html" \
   "$source_dir"/vite*.config.ts "$source_dir/tsconfig.json" "$work_dir/"
export npm_config_update_notifier=false
stamp="$work_dir/node_modules/.installed-lock"
if ! cmp -s "$work_dir/package-lock.json" "$stamp" 2>/dev/null; then
  (cd "$work_dir" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$work_dir/package-lock.json" "$stamp"
fi
(cd "$work_dir" && npx --no-install vite build --logLevel warn --outDir "$work_dir/dist")
mkdir -p "$(dirname "$output")"
cp "$work_dir/dist/index.html" "$output.tmp"
mv "$output.tmp" "$output"
if [ -n "$harness" ]; then
  (cd "$work_dir" && npx --no-install vite build --logLevel warn --config vite.harness.config.ts)
  mkdir -p "$(dirname "$harness")"
  cp "$work_dir/dist-harness/host-harness.html" "$harness"
fi
