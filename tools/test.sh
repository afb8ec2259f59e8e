#!/usr/bin/env bash
# Quick start, step 2: run the test suite (meson test).  As root the tests
# that make loop filesystems and switch io_uring off run too; otherwise they
# skip and say why.
#   tools/test.sh              the suite on build/
#   tools/test.sh --sanitize   the suite built with AddressSanitizer + UBSan
#   tools/test.sh --valgrind   the suite under valgrind memcheck
#   tools/test.sh --tsan       the writer engine's tests (suite common: the
#                              queue and the writer thread) under
#                              ThreadSanitizer
#   extra arguments go to meson test (e.g. a test name)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=plain
case "${1:-}" in
  --sanitize) mode=sanitize; shift ;;
  --valgrind) mode=valgrind; shift ;;
  --tsan) mode=tsan; shift ;;
esac

tools/install-deps.sh >/dev/null
case $mode in
  plain)
    dir=build; tools/build.sh build
    meson test -C build --print-errorlogs "$@" || status=$? ;;
  sanitize)
    dir=build-sanitize
    tools/build.sh build-sanitize -Db_sanitize=address,undefined -Db_lundef=false
    # (fast_unwind_on_malloc=0: GLib has no frame pointers, so the fast
    # unwinder stops at g_malloc and tests/lsan.supp could match nothing)
    RTFRAME_TEST_TIME_SCALE=3 \
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0 \
    LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      meson test -C build-sanitize --print-errorlogs --timeout-multiplier 3 "$@" || status=$? ;;
  tsan)
    # GLib and GStreamer are not instrumented: only common/ (GLib, libc,
    # liburing) is checked, where the threads of rtframe meet
    dir=build-tsan
    tools/build.sh build-tsan -Db_sanitize=thread -Db_lundef=false
    RTFRAME_TEST_TIME_SCALE=5 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
      meson test -C build-tsan --print-errorlogs --suite common --timeout-multiplier 5 "$@" || status=$? ;;
  valgrind)
    dir=build; tools/build.sh build
    # valgrind keeps its global lock while a thread waits in io_uring_enter():
    # cut those waits short so the other threads run (see rtf-engine-uring.c)
    # and the tests' time bounds stretch for valgrind's slowdown
    RTFRAME_URING_MAX_WAIT_MS=1 RTFRAME_TEST_TIME_SCALE=50 \
      meson test -C build --print-errorlogs --timeout-multiplier 20 \
      --wrapper "valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --suppressions=$PWD/tests/valgrind.supp --suppressions=/usr/share/glib-2.0/valgrind/glib.supp --num-callers=40" \
      "$@" || status=$? ;;
esac

# One closing line a person (and CI) can read at a glance.
log="$dir/meson-logs/testlog.json"
[ $mode = valgrind ] && log="$dir/meson-logs/testlog-valgrind.json"
python3 - "$log" <<'PY'
import json, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    key = {"OK": "passed", "SKIP": "skipped", "EXPECTEDFAIL": "passed"}.get(r, "failed")
    counts[key] += 1
print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
PY
exit ${status:-0}
