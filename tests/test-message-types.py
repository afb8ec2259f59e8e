#!/usr/bin/python3
"""Every field rtframesink puts on the bus has one type wherever its name
appears, as an application in Python reads it (issue 26: get_uint64 gave
(False, 0) on recording-started's prerecorded-frames, a guint there and a
guint64 in recording-stopped; index was a guint64 in file-opened and a
guint in location-left; the monotonic times were gint64 beside
GstClockTime running times).

One recording through PyGObject, made to post every message it can
without faults: a rotated set with max-files (file-opened, -closed,
-deleted), an event with pre-record (recording-started, -stopped), a
1 us deadline (deadline-missed, late-completion), frame-messages,
buffer offsets that jump (upstream-gap), min-free-space above a quarter
of the free space (disk-space), stats-interval (stats), and the stats
property with GstBaseSink's own fields.  location-left needs a failing
disk: its types are in EXPECTED, and tests/test-spread-root.c reads it.

Usage: test-message-types.py DIR   (a scratch directory)."""
import os
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst  # noqa: E402

CAPS = "video/x-raw,format=GRAY8,width=64,height=32,framerate=20/1"
FRAME = 64 * 32
N = 60
SECOND = Gst.SECOND

# The types docs/reference.md gives the fields issue 26 named, and the
# ones every application reads
EXPECTED = {
    "frame": "guint64", "pts": "guint64", "duration": "guint64",
    "running-time": "guint64", "first-running-time": "guint64",
    "last-running-time": "guint64", "size": "guint64",
    "arrival": "guint64", "deadline": "guint64", "detected": "guint64",
    "submitted": "guint64", "completed": "guint64", "latency": "guint64",
    "device-latency": "guint64", "lateness": "gint64",
    "prerecorded-frames": "guint64", "prerecorded": "gboolean",
    "index": "guint64", "location-index": "guint", "file-index": "guint64",
    "first-frame": "guint64", "last-frame": "guint64",
    "frames": "guint64", "bytes": "guint64", "time-left": "guint64",
    "free-space": "guint64", "rendered": "guint64", "dropped": "guint64",
    "average-rate": "gdouble", "location": "gchararray",
    "state": "gchararray", "reason": "gchararray", "errno": "gint",
    "serial": "guint64", "id": "gchararray", "position": "guint64",
    "accepted": "gboolean", "passed": "gboolean", "start": "guint64",
    "stop": "guint64", "action": "gchararray", "did": "gchararray",
}

# Every message this recording must post
WANTED = [
    "rtframesink-file-opened", "rtframesink-file-closed",
    "rtframesink-file-deleted", "rtframesink-recording-started",
    "rtframesink-recording-stopped", "rtframesink-recording-request",
    "rtframesink-deadline-missed",
    "rtframesink-late-completion", "rtframesink-frame-written",
    "rtframesink-upstream-gap", "rtframesink-disk-space",
    "rtframesink-stats",
]


def walk(structure, where, seen):
    """name -> {type name: first place seen}, nested structures too"""
    for i in range(structure.n_fields()):
        name = structure.nth_field_name(i)
        gtype = structure.get_field_type(name)
        tname = GObject.type_name(gtype)
        seen.setdefault(name, {}).setdefault(tname, where)
        if tname in ("GstValueArray", "GstValueList", "GValueArray"):
            for item in structure.get_value(name) or []:
                if isinstance(item, Gst.Structure):
                    walk(item, "%s/%s" % (where, item.get_name()), seen)


def record(directory):
    pattern = os.path.join(directory, "types-%03d.raw")
    pipeline = Gst.parse_launch(
        "appsrc name=src format=time caps=%s ! rtframesink name=sink "
        "location=%s max-file-size=%d max-files=2 record=false "
        "pre-record-time=%d deadline=1000 frame-messages=true "
        "stats-interval=%d" % (CAPS, pattern, 8 * FRAME, SECOND // 4,
                               SECOND // 10))
    sink = pipeline.get_by_name("sink")
    src = pipeline.get_by_name("src")
    st = os.statvfs(directory)
    # a quarter of the free space is under the 'low' line (4 x the minimum)
    sink.set_property("min-free-space", st.f_bavail * st.f_frsize // 3)
    pipeline.set_state(Gst.State.PLAYING)
    sink.emit("start-recording", SECOND // 2)
    sink.emit("stop-recording", 2 * SECOND)
    offset = 0
    for i in range(N):
        buf = Gst.Buffer.new_wrapped(bytes([i % 256]) * FRAME)
        buf.pts = i * SECOND // 20
        buf.duration = SECOND // 20
        offset += 4 if i == 30 else 1     # frames lost upstream
        buf.offset = offset
        buf.offset_end = offset + 1
        src.emit("push-buffer", buf)
    src.emit("end-of-stream")

    bus = pipeline.get_bus()
    messages = []
    while True:
        msg = bus.timed_pop_filtered(
            20 * SECOND, Gst.MessageType.ELEMENT | Gst.MessageType.EOS
            | Gst.MessageType.ERROR)
        if msg is None:
            raise SystemExit("FAIL: no EOS within 20 s")
        if msg.type == Gst.MessageType.ERROR:
            raise SystemExit("FAIL: %s" % (msg.parse_error()[0].message,))
        if msg.type == Gst.MessageType.EOS:
            break
        s = msg.get_structure()
        if s is not None and s.get_name().startswith("rtframesink-"):
            messages.append(s.copy())
    stats = sink.get_property("stats")
    pipeline.set_state(Gst.State.NULL)
    return messages, stats


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    Gst.init(None)
    messages, stats = record(argv[1])
    seen = {}
    names = set()
    for s in messages:
        names.add(s.get_name())
        walk(s, s.get_name(), seen)
    walk(stats, "stats property", seen)
    failed = 0
    for want in WANTED:
        if want not in names:
            print("FAIL: no %s was posted" % want)
            failed += 1
    for name, types in sorted(seen.items()):
        if len(types) > 1:
            print("FAIL: %s has %d types: %s" % (name, len(types), ", ".join(
                "%s (%s)" % (t, w) for t, w in sorted(types.items()))))
            failed += 1
        elif name in EXPECTED and EXPECTED[name] not in types:
            t, w = next(iter(types.items()))
            print("FAIL: %s is a %s (%s), not the %s documented" % (
                name, t, w, EXPECTED[name]))
            failed += 1
    for name in ("rendered", "dropped", "average-rate"):
        if not stats.has_field(name):
            print("FAIL: the stats property has no %s (GstBaseSink's)" % name)
            failed += 1
    print("%d messages of %d kinds, %d field names, each of one type%s" % (
        len(messages), len(names), len(seen), "" if not failed else
        ": NO, %d failures" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
