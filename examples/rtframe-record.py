#!/usr/bin/python3
"""rtframe-record.py: records N live streams with rtframesink from Python
(PyGObject), watches the bus, prints a status line every second and a summary
at the end.  Exit status as rtframe-record's: 0 when every frame was
written, 1 on an error, 2 on bad input (nothing recorded), 3 when frames were
dropped or lost.  SIGINT (Ctrl-C) and SIGTERM end the recording with EOS (the
files closed, the summary printed); a second one stops at once.  The
recorder program users deploy is recorder/ (docs/deploying.md).

With --trigger it records events: the sinks receive every frame but write
only when triggered - by Enter or SIGUSR1 (now), or --event T (T seconds in,
repeatable) - each event keeping --pre-record seconds from before the
trigger and --post-record seconds after it, in cam<N>-event-%05d.raw; every
stream is given the same running time.  SIGUSR2 stops a recording now."""
import argparse
import os
import time
import signal
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
    ap.add_argument("--trigger", action="store_true",
                    help="record events only (Enter, SIGUSR1, --event)")
    ap.add_argument("--event", type=float, action="append", default=[],
                    help="--trigger: a trigger T seconds in (repeat)")
    ap.add_argument("--pre-record", type=float, default=2.0)
    ap.add_argument("--post-record", type=float, default=5.0)
    args = ap.parse_args()
    if args.event and not args.trigger:
        print("--event needs --trigger", file=sys.stderr)
        return 2

    Gst.init(None)
    caps = Gst.Caps.from_string(args.caps)
    ok, fps_n, fps_d = caps.get_structure(0).get_fraction("framerate")
    if not ok or fps_n <= 0:
        print("--caps needs a framerate", file=sys.stderr)
        return 2
    frames = args.seconds * fps_n // fps_d
    # --trigger: the sinks hold --pre-record seconds and write only events
    name, recording = (("-event-%05d", "record=false pre-record-time="
                        f"{int(args.pre_record * Gst.SECOND)}")
                       if args.trigger else ("", ""))
    desc = " ".join(
        f"videotestsrc is-live=true pattern=ball num-buffers={frames} "
        f"foreground-color={0xff000000 | (0xff << (8 * (i % 3)))} ! {args.caps} ! "
        f"rtframesink name=cam{i} location=\"{args.dir}/cam{i}{name}.raw\" "
        f"stats-interval=1000000000 {recording} {args.sink_props}"
        for i in range(args.streams))
    try:
        # a partial pipeline is an error too (a typo in --sink-props)
        pipeline = Gst.parse_launch_full(desc, None,
                                         Gst.ParseFlags.FATAL_ERRORS)
    except GLib.Error as e:
        print(f"rtframe-record.py: {e.message}", file=sys.stderr)
        return 2
    loop = GLib.MainLoop()
    last = {}               # stream -> latest rtframesink-stats structure
    state = {"status": 0, "misses_seen": 0, "stopping": False,
             "tick": time.monotonic(), "bytes": 0}

    def status_line():
        frames = sum(s.get_uint64("frames-written")[1] for s in last.values())
        misses = sum(s.get_uint64("frames-missed")[1] for s in last.values())
        p99 = max((s.get_uint64("latency-p99")[1] for s in last.values()),
                  default=0)
        # bytes written since the last line over the time since
        now, written = time.monotonic(), sum(
            s.get_uint64("bytes-written")[1] for s in last.values())
        rate = (written - state["bytes"]) / max(now - state["tick"], 1e-3)
        state["tick"], state["bytes"] = now, written
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
                state["status"] = max(state["status"], 3)
                continue
            g = lambda f: s.get_uint64(f)[1]  # noqa: E731
            print(f"cam{i:<3} {g('frames-written'):8} {g('frames-dropped'):8} "
                  f"{g('frames-missed'):8} {g('frames-lost'):6} "
                  f"{g('latency-p50') / 1e6:8.2f} {g('latency-p99') / 1e6:8.2f} "
                  f"{g('latency-max') / 1e6:8.2f} "
                  f"{s.get_double('throughput')[1] / 1e6:8.1f} "
                  f"{s.get_string('io-engine'):>9}")
            if g("frames-dropped") or g("frames-lost"):
                state["status"] = max(state["status"], 3)

    sinks = [pipeline.get_by_name(f"cam{i}") for i in range(args.streams)]

    def emit_all(signal_name, running_time):
        # every camera's sink gets the same instant
        for i, sink in enumerate(sinks):
            if not sink.emit(signal_name, running_time):
                print(f"\ncam{i}: {signal_name} refused", file=sys.stderr)

    def trigger(*_):
        clock = pipeline.get_clock()
        if clock is None:
            return True
        now = clock.get_time() - pipeline.get_base_time()
        print(f"\ntrigger at {now / 1e9:.3f} s")
        emit_all("start-recording", now)
        emit_all("stop-recording", now + int(args.post_record * Gst.SECOND))
        return True

    def stop_now(*_):
        emit_all("stop-recording", Gst.CLOCK_TIME_NONE)
        return True

    def on_stdin(source, cond):
        if not sys.stdin.readline():
            return False            # no terminal (EOF): the other triggers
        return trigger()

    if args.trigger:
        GLib.io_add_watch(sys.stdin.fileno(), GLib.PRIORITY_DEFAULT,
                          GLib.IOCondition.IN | GLib.IOCondition.HUP, on_stdin)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, trigger)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR2, stop_now)
        def timed_event(at):
            # at `at` of the pipeline's running time, not of the program's
            # (a loaded machine may take most of a second to reach PLAYING)
            clock = pipeline.get_clock()
            now = clock.get_time() - pipeline.get_base_time() if clock \
                else None
            if now is None or now < at:
                wait = 20 if now is None else (at - now) // Gst.MSECOND + 1
                GLib.timeout_add(wait, timed_event, at)
                return False
            trigger()
            return False

        for t in args.event:
            GLib.timeout_add(int(t * 1000), timed_event, int(t * Gst.SECOND))
        print(f"events: Enter or kill -USR1 {os.getpid()} to trigger, "
              f"kill -USR2 {os.getpid()} to stop")

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
            elif not args.trigger and s.get_name().startswith(
                    "rtframesink-recording-"):
                pass                # a plain recording is no event
            elif s.get_name() == "rtframesink-recording-started":
                print(f"\ncam{i}: event {s.get_uint64('number')[1]} started "
                      f"in {s.get_string('location')} "
                      f"({s.get_uint64('prerecorded-frames')[1]} frames from "
                      "before the trigger)")
            elif s.get_name() == "rtframesink-recording-stopped":
                print(f"\ncam{i}: event {s.get_uint64('number')[1]} stopped "
                      f"({s.get_string('reason')}): "
                      f"{s.get_uint64('frames')[1]} frames, "
                      f"{s.get_uint64('prerecorded-frames')[1]} of them held")
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

    def on_stop_signal(name):
        # EOS through every camera: the sinks write what they hold, close
        # their files and give back the preallocated tail; again: now
        if state["stopping"]:
            print(f"\n{name} again: stopping now", file=sys.stderr)
            state["status"] = max(state["status"], 1)
            loop.quit()
            return True
        state["stopping"] = True
        print(f"\nstopping ({name}): every camera ends its recording")
        pipeline.send_event(Gst.Event.new_eos())
        return True

    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT,
                         on_stop_signal, "SIGINT")
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM,
                         on_stop_signal, "SIGTERM")
    def tick():
        # one line a second, not one a camera's message (a rate over the
        # moments between two cameras' messages is no rate)
        if last:
            status_line()
        return True

    GLib.timeout_add_seconds(1, tick)
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
