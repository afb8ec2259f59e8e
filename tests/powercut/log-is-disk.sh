#!/bin/sh
# Whether a dm-log-writes log, replayed whole onto zeros, is the data disk
# the recording left (tests/kernel/power-cut.sh, in the guest, and
# replay-on-host.sh, on this machine).  The target logs the writes a
# flush covers when that flush completes: two flushes completing out of
# the order they were sent put an older write after a newer one of the
# same block, and every point after it is a disk that never was.  The
# disk itself got the writes in order.
#   log-is-disk.sh REPLAY-LOG LOG DISK SCRATCH
# REPLAY-LOG the build's replay-log, SCRATCH a file it may make and
# delete.  Exit 0: the same; 1: not (the first difference printed).
set -u
replay=$1 log=$2 disk=$3 whole=$4
if [ -b "$disk" ]; then
  size=$(blockdev --getsize64 "$disk")
else
  size=$(stat -c %s "$disk")
fi
rm -f "$whole"
truncate -s "$size" "$whole"
if ! "$replay" --log "$log" --target "$whole" > /dev/null; then
  rm -f "$whole"
  echo "the log could not be replayed"
  exit 1
fi
where=$(cmp "$whole" "$disk" 2>&1 | head -1)
rm -f "$whole"
[ -z "$where" ] && exit 0
echo "the log replayed whole is not the disk ($where): its writes were" \
  "logged out of the order they reached the disk"
exit 1
