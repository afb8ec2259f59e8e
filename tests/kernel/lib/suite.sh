# Sourced by every suite of tests/kernel/ (in the guest, with the suite's
# own arguments: $1 the build dir): the plugin and tools of that build,
# and ok/bad, which print the lines test-kernels.sh shows and set $fail.
build=$1
export GST_PLUGIN_PATH_1_0=$build/gst
tools=$build/tools
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
