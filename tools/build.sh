#!/usr/bin/env bash
# Configures (once) and builds rtframe into build/ (or $1).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "$@" >/dev/null
fi
meson compile -C "$dir" >/dev/null
echo "build: $dir is up to date"
