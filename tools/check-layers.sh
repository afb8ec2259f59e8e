#!/usr/bin/env bash
# The engine's floors (issue 24): a folder of common/ includes only its own
# headers and those of the folders below it, in the order common/meson.build
# lists them; no file of common/ includes a GStreamer header.  Prints each
# include that breaks it; exit 1 when any does.
#   tools/check-layers.sh [SOURCE_DIR]
set -euo pipefail
src=${1:-$(dirname "$0")/..}
cd "$src/common"
mapfile -t floors < <(sed -n "/^rtf_common_folders = \[/,/^\]/s/^ *'\([a-z]*\)'.*/\1/p" meson.build)
if [ "${#floors[@]}" -lt 2 ]; then
  echo "check-layers: no folder list in common/meson.build" >&2
  exit 2
fi
declare -A floor_of where
for i in "${!floors[@]}"; do
  floor_of[${floors[$i]}]=$i
  for h in "${floors[$i]}"/*.h; do
    [ -e "$h" ] && where[$(basename "$h")]=${floors[$i]}
  done
done
bad=0 seen=0
for d in "${floors[@]}"; do
  for f in "$d"/*.[ch]; do
    while IFS= read -r inc; do
      seen=$((seen + 1))
      to=${where[$inc]:-}
      if [ -z "$to" ]; then
        echo "common/$f includes \"$inc\", which no folder of common/ holds"
        bad=1
      elif [ "${floor_of[$to]}" -gt "${floor_of[$d]}" ]; then
        echo "common/$f ($d/) includes $to/$inc: $to/ is above $d/"
        bad=1
      fi
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
    if grep -q '^#include <gst/' "$f"; then
      echo "common/$f includes a GStreamer header: the engine has none"
      bad=1
    fi
  done
done
echo "check-layers: ${#floors[@]} folders (${floors[*]}), $seen includes checked"
exit $bad
