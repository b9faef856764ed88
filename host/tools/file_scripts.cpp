// file_scripts.cpp — see file_scripts.h.
#include "tools/file_scripts.h"

namespace vc::tools {

const char* const kReadFileScript = R"SH(p=$1; limit=$2
[ -e "$p" ] || exit 66
[ -f "$p" ] || exit 65
size=$(wc -c < "$p") || exit 1
printf '%s\n' "$size"
[ "$size" -le "$limit" ] || exit 67
base64 -w0 < "$p" || exit 1
)SH";

const char* const kWriteFileScript = R"SH(p=$1; parents=$2; expected=$3
dir=$(dirname -- "$p")
if [ "$parents" = 1 ] && [ ! -d "$dir" ]; then
  top=$dir; above=$dir
  while [ ! -e "$above" ]; do top=$above; above=$(dirname -- "$above"); done
  mkdir -p -- "$dir" || exit 1
  chown -R --reference="$above" -- "$top" 2>/dev/null
fi
[ -d "$dir" ] || exit 68
if [ -n "$expected" ]; then
  [ -f "$p" ] || exit 73
  actual=$(sha256sum < "$p") || exit 1
  [ "${actual%% *}" = "$expected" ] || exit 73
fi
tmp=$(mktemp "$dir/.mcp-write.XXXXXX") || exit 1
trap 'rm -f -- "$tmp"' EXIT
cat > "$tmp" || exit 1
if [ -e "$p" ]; then
  chmod --reference="$p" -- "$tmp" || exit 1
  chown --reference="$p" -- "$tmp" 2>/dev/null
else
  chmod "$(printf '%o' $(( 0666 & ~0$(umask) )))" -- "$tmp" || exit 1
  chown --reference="$dir" -- "$tmp" 2>/dev/null
fi
mv -f -- "$tmp" "$p" || exit 1
)SH";

const char* const kListDirectoryScript = R"SH(p=$1
[ -e "$p" ] || exit 66
[ -d "$p" ] || exit 65
find "$p" -mindepth 1 -maxdepth 1 -printf '%f\0%y\0%s\0' | base64 -w0
)SH";

}  // namespace vc::tools
