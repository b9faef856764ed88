#!/usr/bin/env bash
# Compares the backend ABI, as the public headers define it today, with the committed baseline
# (tests/abi/baseline/vc-backend-1.abi) using libabigail's abidiff. The ABI is read from
# abi_surface.c, built as a shared object with debug information.
#   check_abi_baseline.sh CC INCLUDE_DIR            fails, with abidiff's report, on any change
#   check_abi_baseline.sh CC INCLUDE_DIR --update   rewrites the baseline (an ABI 1.x minor that
#                                                   appends fields; never for a removal, a move
#                                                   or a retype, which need a new major)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cc=${1:?usage: check_abi_baseline.sh CC INCLUDE_DIR [--update]}
include_dir=${2:?usage: check_abi_baseline.sh CC INCLUDE_DIR [--update]}
# The compiler runs from inside tests/abi (below): a relative INCLUDE_DIR is taken from here.
include_dir=$(cd "$include_dir" && pwd)
baseline="$here/baseline/vc-backend-1.abi"

for tool in abidw abidiff; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$tool is missing: install Debian's abigail-tools (bash scripts/install-deps.sh test)" >&2
    exit 1
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Built from inside tests/abi with a relative source path, so that the baseline holds no path
# of the machine it was made on.
(cd "$here" && "$cc" -std=c11 -g -O0 -fPIC -shared -fvisibility=hidden -I"$include_dir" \
  abi_surface.c -o "$work/libvc_abi_surface.so")

if [[ "${3:-}" == "--update" ]]; then
  abidw --no-corpus-path --no-comp-dir-path --no-show-locs "$work/libvc_abi_surface.so" \
    >"$baseline"
  echo "wrote $baseline"
  exit 0
fi

status=0
abidiff "$baseline" "$work/libvc_abi_surface.so" >"$work/report" || status=$?
if ((status != 0)); then
  cat "$work/report"
  echo "The backend ABI differs from tests/abi/baseline/vc-backend-1.abi (abidiff status" \
       "$status). A published field may only be appended in a new 1.x minor, and then the" \
       "baseline is rewritten on purpose: tests/abi/check_abi_baseline.sh CC INCLUDE_DIR --update" >&2
  exit 1
fi
echo "The backend ABI matches the baseline ($(grep -c '<function-decl' "$baseline") entry points)."
