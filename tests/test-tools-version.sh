#!/bin/bash
# Every program we install answers --version (exit 0, one line naming it,
# the project's version and the libraries running) and refuses an unknown
# option with exit 2 (issue 26).
#   test-tools-version.sh BUILD_DIR
build=$1
fail=0
for prog in tools/rtframe-verify tools/rtframe-recover tools/rtframe-dump tools/rtframe-export tools/rtframe-info \
    bench/rtframe-bench recorder/rtframe-record; do
  name=${prog##*/}
  exe=$build/$prog
  if [ ! -x "$exe" ]; then
    echo "skipped: $name (not built here)"
    continue
  fi
  v=$("$exe" --version 2>&1); status=$?
  if [ $status -ne 0 ] || ! grep -Eq "^$name:? (rtframe )?[0-9]+\.[0-9]+\.[0-9]+" <<<"$v"; then
    echo "FAIL: $name --version: exit $status: $v"; fail=1
  else
    echo "ok: $(head -1 <<<"$v")"
  fi
  "$exe" --no-such-option >/dev/null 2>&1; status=$?
  if [ $status -ne 2 ]; then
    echo "FAIL: $name --no-such-option: exit $status, not 2"; fail=1
  fi
done
# the liburing running, as the system's pkg-config names it (2.4 and
# later say their version; Debian 13's 2.9 was once "before 2.4")
want=$(pkg-config --modversion liburing 2>/dev/null | cut -d. -f1,2)
if [ -x "$build/tools/rtframe-verify" ] && [ -n "$want" ]; then
  case $want in
    2.[0-3]) want="before 2.4" ;;
  esac
  v=$("$build/tools/rtframe-verify" --version)
  if ! grep -q "liburing $want," <<<"$v"; then
    echo "FAIL: rtframe-verify --version: not \"liburing $want\": $v"; fail=1
  else
    echo "ok: liburing $want named"
  fi
fi
exit $fail
