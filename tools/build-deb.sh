#!/usr/bin/env bash
# Builds rtframe's Debian packages from the working tree as git sees it
# (tracked, and untracked unless ignored; without git, every file but the
# build directories), in a scratch copy, and checks
# them with lintian (an error fails the build).
#   tools/build-deb.sh [OUT_DIR]   (default: ./deb)
# Needs debhelper, lintian and the build dependencies in debian/control
# (tools/install-deps.sh --deb installs them).  Prints the .deb files made.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$src/deb}" && cd "${1:-$src/deb}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rtf-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir "$work/rtframe"
if command -v git >/dev/null && git -C "$src" rev-parse --is-inside-work-tree \
    >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
    grep -zv '^deb/' | tar --null --no-recursion -T - -cf -) |
    tar -xf - -C "$work/rtframe"
else                            # (a copy without git: tools/test-debian.sh's)
  tar -C "$src" --exclude='./build*' --exclude=./deb -cf - . |
    tar -xf - -C "$work/rtframe"
fi
(cd "$work/rtframe" && dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) || {
  tail -40 "$work/build.log" >&2
  echo "build-deb: dpkg-buildpackage failed" >&2
  exit 1
}
if command -v lintian >/dev/null; then
  # (as root lintian says it would rather not be: said, not a fault)
  lintian --fail-on error "$work"/*.changes 2>&1 |
    { grep -v "running with root privileges" || true; } | tee "$work/lintian.log"
  if grep -q '^E: ' "$work/lintian.log"; then
    echo "build-deb: lintian found errors" >&2
    exit 1
  fi
fi
rm -f "$out"/*.deb
mv "$work"/*.deb "$out"/
ls "$out"/*.deb
