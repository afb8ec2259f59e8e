#!/usr/bin/env bash
# rtframe-bench's space rule on a small filesystem (XFS of 400 MiB on a
# loop device over a file in RAM): a run that would fill the filesystem
# stops every stream at the same frame, for every sink, before ENOSPC or
# rtframesink's min-free-space guard; a run that rotates is not cut,
# because deleting its old files recycles the space.  Each case records
# more than the filesystem holds (one stream of the user's 5.7 MB frames:
# about 43 fit in 80% of the free space above rtframesink's guard):
#   - flat out, one file: both sinks stop at the same frame, no more than
#     fits, no error;
#   - at 20 fps, rtframesink with max-file-size and max-files (what
#     scenarios.sh long does with 205 GB on 16 GiB): all 80 frames written
#     (until 59c7eeb a live run was cut at the space's frame);
#   - flat out with --rotate 5, rtframesink and fio: more frames than fit
#     at once, every one written, the duration decides.
# Root only (exit 77 with the reason otherwise); never in parallel: a loop
# device and mounts, all removed on exit.  Args: <rtframe-bench binary>
set -u
bench=$1
skip() { echo "skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (loop device, mount)"
command -v mkfs.xfs >/dev/null || skip "no mkfs.xfs (apt-get install xfsprogs)"

work=$(mktemp -d /var/tmp/rtframe-bench-space.XXXXXX)
ram=$work/ram mnt=$work/mnt loop=''
cleanup() {
  set +e
  # a process's io_uring ring lets go of the files it wrote (and so of
  # the filesystem) a few ms after the process has ended
  for _ in $(seq 50); do
    mountpoint -q "$mnt" || break
    umount "$mnt" 2>/dev/null || sleep 0.1
  done
  mountpoint -q "$mnt" && umount -l "$mnt"
  [ -n "$loop" ] && losetup -d "$loop"
  mountpoint -q "$ram" && umount "$ram"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail=0
say_fail() { echo "FAIL: $*"; fail=1; }

mkdir "$ram" "$mnt"
mount -t tmpfs -o size=450m rtframe-bench-space "$ram" || exit 1
truncate -s 400M "$ram/xfs.img"
loop=$(losetup --find --show "$ram/xfs.img") || exit 1
mkfs.xfs -q -f "$loop" && mount "$loop" "$mnt" || exit 1
free=$(df -B1 --output=avail "$mnt" | tail -1)
size=$(stat -f -c '%b * %S' "$mnt"); size=$(( size ))
# rtframesink's min-free-space guard at its default: 1 GiB or 5%, the lesser
guard=$(( size / 20 < 1073741824 ? size / 20 : 1073741824 ))
fit=$(( (free - guard) / 10 * 8 / 5701632 ))
echo "# $((free / 1048576)) MiB free, the guard $((guard / 1048576)) MiB: $fit frames of 5.7 MB fit in 80% of the rest"

# run NAME ARGS...: the output in $out, the exit status checked
run() {
  local name=$1 status
  shift
  out=$("$bench" --dir "$mnt" --streams 1 --quiet "$@" 2>&1)
  status=$?
  echo "== $name: rtframe-bench --dir <mnt> --streams 1 $*"
  echo "$out"
  [ $status = 0 ] || say_fail "$name: exit $status"
  grep -q "ERROR" <<<"$out" && say_fail "$name: an error"
  [ -z "$(ls -A "$mnt")" ] || say_fail "$name left $(ls -A "$mnt") in --dir"
}
# row SINK: offered and written of its round 1
row() {
  read -r _ _ offered written _ <<<"$(awk -v s="$1" '$1 == s && $2 == 1' <<<"$out")"
}

have_fio=no
command -v fio >/dev/null && have_fio=yes || echo "# fio not installed: rtframesink alone"
sinks=(--sink rtframesink)
[ $have_fio = yes ] && sinks+=(--sink fio)

run "flat out, one file" --flat-out --duration 3 "${sinks[@]}"
for s in rtframesink fio; do
  [ $s = fio ] && [ $have_fio = no ] && continue
  row $s
  [ "${written:-0}" -ge 1 ] && [ "$written" -le "$fit" ] \
    && [ "$written" = "$offered" ] \
    || say_fail "flat out: $s wrote ${written:-?} of ${offered:-?}, $fit fit"
done

run "20 fps, rotating" --duration 4 \
  --sink rtframesink:max-file-size=57016320,max-files=2
row rtframesink:max-file-size=57016320,max-files=2
[ "${offered:-0}" = 80 ] && [ "$written" = 80 ] \
  || say_fail "20 fps rotating: wrote ${written:-?} of ${offered:-?}, not 80 of 80 (cut at the space's $fit?)"

# 5 frames a file: two files and 128 MiB need 191 MB.  --rotate 10 (248 MB)
# was refused on Debian 13, whose mkfs.xfs leaves 245 MB to fill here.
run "flat out, --rotate 5" --flat-out --duration 3 --rotate 5 "${sinks[@]}"
for s in rtframesink fio; do
  [ $s = fio ] && [ $have_fio = no ] && continue
  row $s
  [ "${written:-0}" -gt "$fit" ] && [ "$written" = "$offered" ] \
    || say_fail "--rotate: $s wrote ${written:-?} of ${offered:-?}, not more than the $fit that fit"
done

[ $fail -eq 0 ] && echo "bench space: ok"
exit $fail
