#!/bin/bash
# Every installed program has a man page that groff formats without a
# warning, and that names every option its --help lists (so a new option
# cannot be left out of it) (issue 26).
#   test-man-pages.sh SOURCE_DIR BUILD_DIR
src=$1 build=$2
fail=0
if ! command -v groff >/dev/null; then
  echo "skipped: no groff (Debian package groff-base)"
  exit 77
fi
for prog in tools/rtframe-verify tools/rtframe-recover tools/rtframe-dump tools/rtframe-export tools/rtframe-info \
    recorder/rtframe-record bench/rtframe-bench; do
  name=${prog##*/}
  page=$src/docs/man/$name.1
  if [ ! -f "$page" ]; then
    echo "FAIL: $name has no man page ($page)"; fail=1; continue
  fi
  warnings=$(groff -man -ww -z "$page" 2>&1)
  if [ -n "$warnings" ]; then
    echo "FAIL: $page: $warnings"; fail=1
  fi
  [ -x "$build/$prog" ] || continue
  # the bench's page sends to --help for its many options
  [ "$name" = rtframe-bench ] && continue
  # (bold and underline are overstruck: each "x<BS>" dropped)
  text=$(groff -man -Tascii "$page" 2>/dev/null | sed 's/.\x08//g')
  for opt in $("$build/$prog" --help 2>/dev/null |
      grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+'); do
    case $opt in --help*) continue ;; esac
    if ! grep -q -- "$opt" <<<"$text"; then
      echo "FAIL: $page does not name $opt"; fail=1
    fi
  done
  echo "ok: $name.1"
done
exit $fail
