#!/usr/bin/python3
"""rtframe-record.py: records N live streams with rtframesink from Python
(PyGObject), watches the bus, prints a status line every second and a summary
at the end.  Exit status: 0 when every frame was written, 2 when frames were
dropped or lost, 1 on an error.  The C twin is examples/rtframe-record.c."""
import argparse
import sys

import gi
gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--streams", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--dir", default=".")
    ap.add_argument("--caps", default="video/x-raw,format=P010_10LE,"
                    "width=2048,height=928,framerate=20/1")
    ap.add_argument("--sink-props", default="")
    args = ap.parse_args()

    Gst.init(None)
    caps = Gst.Caps.from_string(args.caps)
    ok, fps_n, fps_d = caps.get_structure(0).get_fraction("framerate")
    if not ok or fps_n <= 0:
        print("--caps needs a framerate", file=sys.stderr)
        return 1
    frames = args.seconds * fps_n // fps_d
    desc = " ".join(
        f"videotestsrc is-live=true pattern=ball num-buffers={frames} "
        f"foreground-color={0xff000000 | (0xff << (8 * (i % 3)))} ! {args.caps} ! "
        f"rtframesink name=cam{i} location=\"{args.dir}/cam{i}.raw\" "
        f"stats-interval=1000000000 {args.sink_props}"
        for i in range(args.streams))
    pipeline = Gst.parse_launch(desc)
    loop = GLib.MainLoop()
    last = {}               # stream -> latest rtframesink-stats structure
    state = {"status": 0, "misses_seen": 0}

    def status_line():
        frames = sum(s.get_uint64("frames-written")[1] for s in last.values())
        misses = sum(s.get_uint64("frames-missed")[1] for s in last.values())
        p99 = max((s.get_uint64("latency-p99")[1] for s in last.values()),
                  default=0)
        rate = sum(s.get_double("throughput-interval")[1]
                   for s in last.values())
        print(f"\rframes {frames}  {rate / 1e6:.0f} MB/s  misses {misses}  "
              f"p99 {p99 / 1e6:.1f} ms   ", end="", flush=True)

    def summary():
        print("\n\nsummary")
        print(f"{'stream':6} {'written':>8} {'dropped':>8} {'missed':>8} "
              f"{'lost':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} "
              f"{'MB/s':>8} {'engine':>9}")
        for i in range(args.streams):
            s = last.get(i)
            if s is None:
                print(f"cam{i}   (no statistics)")
                state["status"] = max(state["status"], 1)
                continue
            g = lambda f: s.get_uint64(f)[1]  # noqa: E731
            print(f"cam{i:<3} {g('frames-written'):8} {g('frames-dropped'):8} "
                  f"{g('frames-missed'):8} {g('frames-lost'):6} "
                  f"{g('latency-p50') / 1e6:8.2f} {g('latency-p99') / 1e6:8.2f} "
                  f"{g('latency-max') / 1e6:8.2f} "
                  f"{s.get_double('throughput')[1] / 1e6:8.1f} "
                  f"{s.get_string('io-engine'):>9}")
            if g("frames-dropped") or g("frames-lost"):
                state["status"] = max(state["status"], 2)

    def on_message(bus, msg):
        t = msg.type
        if t == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            name = msg.src.get_name()
            if not name.startswith("cam"):
                return True
            i = int(name[3:])
            if s.get_name() == "rtframesink-stats":
                last[i] = s.copy()
                status_line()
            elif s.get_name() == "rtframesink-deadline-missed":
                state["misses_seen"] += 1
                if state["misses_seen"] <= 5:
                    print(f"\ncam{i}: frame {s.get_uint64('frame')[1]} missed "
                          f"its deadline ({s.get_string('where')}, "
                          f"{s.get_int64('lateness')[1] / 1e6:.1f} ms late)")
        elif t == Gst.MessageType.WARNING:
            err, _ = msg.parse_warning()
            print(f"\nwarning from {msg.src.get_name()}: {err.message}",
                  file=sys.stderr)
        elif t == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print(f"\nerror from {msg.src.get_name()}: {err.message} ({dbg})",
                  file=sys.stderr)
            state["status"] = 1
            loop.quit()
        elif t == Gst.MessageType.EOS:
            summary()
            loop.quit()
        return True

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    print(f"recording {args.streams} stream(s) of {args.caps} for "
          f"{args.seconds} s")
    pipeline.set_state(Gst.State.PLAYING)
    loop.run()
    pipeline.set_state(Gst.State.NULL)
    bus.remove_signal_watch()
    return state["status"]


if __name__ == "__main__":
    sys.exit(main())
