#!/usr/bin/env python3
"""rtframe-seek: plays a recording (a file or a rotated set's pattern) with
rtframesrc and seeks to frames, the way a viewer or an analysis tool would.

    rtframe-seek.py LOCATION FRAME [FRAME...]      seek by frame number
    rtframe-seek.py --time LOCATION SECONDS [...]  seek by time (recorded PTS)

For each position it prints the frame it landed on: its number, PTS and
size.  Frame numbers are the recording's (a buffer's offset): the ones
rtframe-dump and the bus give, also after max-files deleted the first
files.  Exit status 0 when every frame-number seek landed on that exact
frame, 1 otherwise, 2 on an error.  Run it with Debian's /usr/bin/python3
(python3-gi)."""
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def main(argv):
    by_time = len(argv) > 1 and argv[1] == "--time"
    args = argv[2:] if by_time else argv[1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    Gst.init(None)
    pipeline = Gst.parse_launch(
        "rtframesrc name=src ! appsink name=sink sync=false")
    pipeline.get_by_name("src").set_property("location", args[0])
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PAUSED)
    ret, _, _ = pipeline.get_state(10 * Gst.SECOND)
    if ret != Gst.StateChangeReturn.SUCCESS:
        msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
        print("cannot play %s: %s" % (args[0],
              msg.parse_error()[0].message if msg else ret), file=sys.stderr)
        return 2
    ok, end = pipeline.query_duration(Gst.Format.DEFAULT)
    first = sink.emit("pull-preroll")
    if ok and first is not None:
        print("%s: frames %d to %d" % (args[0], first.get_buffer().offset,
                                       end - 1))
    status = 0
    flags = Gst.SeekFlags.FLUSH | Gst.SeekFlags.ACCURATE
    for position in args[1:]:
        if by_time:
            target = int(float(position) * Gst.SECOND)
            done = pipeline.seek_simple(Gst.Format.TIME, flags, target)
        else:
            target = int(position)
            done = pipeline.seek_simple(Gst.Format.DEFAULT, flags, target)
        # appsink's action signal: no GstApp typelib needed
        sample = sink.emit("pull-preroll") if done else None
        if sample is None:
            print("seek to %s failed" % position)
            status = 1
            continue
        buf = sample.get_buffer()
        print("seek to %s %s: frame %d, pts %.3f s, %d bytes" % (
            "time" if by_time else "frame", position, buf.offset,
            buf.pts / Gst.SECOND, buf.get_size()))
        if not by_time and buf.offset != target:
            status = 1
    pipeline.set_state(Gst.State.NULL)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
