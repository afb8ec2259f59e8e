#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser of outside data (fuzz/), with
# libFuzzer and AddressSanitizer + UBSan (clang).  Builds build-fuzz/, then
# runs each target for SECONDS on its corpus (fuzz/corpus/<target>); new
# inputs it finds go to build-fuzz/corpus/<target> (copy the useful ones
# into fuzz/corpus/), a crash leaves build-fuzz/crash-<target>-* and fails.
#   tools/fuzz.sh [seconds=60] [target ...]    targets: caps properties bench-check index manifest take-manifest
#                                              log-writes recorder-config
# The suite (tools/test.sh) runs the same targets without libFuzzer: the
# corpus and 3000 mutated inputs each (suite fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(caps properties bench-check index manifest take-manifest log-writes
  recorder-config)

tools/install-deps.sh >/dev/null
missing=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -d build-fuzz ]; then
  CC=clang meson setup build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined \
    -Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link >/dev/null
fi
ninja -C build-fuzz gst/libgstrtframe.so $(printf 'fuzz/fuzz-%s ' "${targets[@]}") >/dev/null

export GST_PLUGIN_PATH_1_0=$PWD/build-fuzz/gst GST_REGISTRY_FORK=no
export GST_REGISTRY_1_0=$PWD/build-fuzz/registry.bin
# full stacks on malloc, so fuzz/lsan.supp matches frames inside GStreamer
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0:malloc_context_size=255 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0
status=0
for t in "${targets[@]}"; do
  mkdir -p build-fuzz/corpus/$t
  echo "== fuzz-$t: $secs s"
  if ! build-fuzz/fuzz/fuzz-$t -max_total_time="$secs" -print_final_stats=1 \
      -artifact_prefix=build-fuzz/crash-$t- build-fuzz/corpus/$t fuzz/corpus/$t \
      > build-fuzz/fuzz-$t.log 2>&1; then
    status=1
    tail -40 build-fuzz/fuzz-$t.log
  fi
  grep -E "^stat::(number_of_executed_units|new_units_added|peak_rss_mb)|cov:" build-fuzz/fuzz-$t.log | tail -4
done
[ $status -eq 0 ] && echo "fuzz: no crash in ${targets[*]}" || echo "fuzz: FAILED"
exit $status
