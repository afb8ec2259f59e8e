#!/usr/bin/env bash
# Configures (once) and builds rtframe into build/ (or $1).
# RTFRAME_WERROR=1 (CI: .ci/run) makes warnings errors, in a build
# directory configured before too.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
werror=()
[ -z "${RTFRAME_WERROR:-}" ] || werror=(-Dwerror=true)
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "${werror[@]}" "$@" >/dev/null
elif [ ${#werror[@]} -gt 0 ]; then
  meson configure "$dir" "${werror[@]}" >/dev/null
fi
meson compile -C "$dir" >/dev/null
echo "build: $dir is up to date"
