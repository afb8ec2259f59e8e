#!/bin/bash
# Every program we install answers --version (exit 0, one line naming it,
# the project's version and the libraries running) and refuses an unknown
# option with exit 2 (issue 26).
#   test-tools-version.sh BUILD_DIR
build=$1
fail=0
for prog in tools/rtframe-verify tools/rtframe-recover tools/rtframe-dump \
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
exit $fail
