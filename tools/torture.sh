#!/usr/bin/env bash
# The randomized torture test of issue 23 (tests/torture/): builds, then
# runs rounds with fresh seeds, or one round from its seed.
#
#   tools/torture.sh [--minutes N | --seconds N | --rounds N] [--seed S]
#                    [--keep] [--verbose] [--build DIR] [--dir BASE]
#
#   --minutes N / --seconds N   run rounds for this long (default 150 s)
#   --seed 0x...                run the one round of that seed again
#   --keep                      keep every round's directory (a failing
#                               round's is always kept)
#   --build DIR                 the build to test (default build/; e.g. an
#                               ASan build: tools/build.sh build-asan
#                               -Db_sanitize=address,undefined -Db_lundef=false)
#
# As root it makes filesystems, loop devices and blkio cgroups, so the
# whole run holds /var/tmp/rtf-root-tests.lock (root tests never run two at
# once).  Exit status: 0 every round held, 1 a round failed, 77 skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --build=*) build=${1#--build=}; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
# only what the test runs: the plugin, the three tools and the program (an
# unrelated target another change breaks does not stop it)
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" >/dev/null
fi
if ! out=$(meson compile -C "$build" gst/gstrtframe tools/rtframe-verify \
    tools/rtframe-recover tools/rtframe-dump tests/torture/torture 2>&1); then
  echo "torture: the build failed:" >&2
  echo "$out" | tail -30 >&2
  exit 1
fi
build=$(cd "$build" && pwd)   # (absolute: --build /path or --build dir)
exe="$build/tests/torture/torture"
[ -x "$exe" ] || { echo "torture: $exe was not built (meson -Dtests=true)" >&2; exit 1; }
export GST_PLUGIN_PATH_1_0="$build/gst"
export GST_REGISTRY_1_0="$build/tests/torture/registry.bin"
export GST_REGISTRY_FORK=no
export RTFRAME_TOOLS_DIR="$build/tools"
export G_DEBUG=fatal-criticals
if [ "$(id -u)" -eq 0 ]; then
  exec flock /var/tmp/rtf-root-tests.lock "$exe" ${args[@]+"${args[@]}"}
fi
exec "$exe" ${args[@]+"${args[@]}"}
