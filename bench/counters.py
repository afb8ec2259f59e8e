#!/usr/bin/env python3
"""What the kernel did at a run's slow moments: /proc/vmstat, XFS's
/proc/fs/xfs/stat and the CPU times of /proc/stat, sampled every 100 ms.

  bench/counters.py record OUT.jsonl
      samples until killed (SIGTERM, SIGINT): a line a sample, its wall
      time and every counter that changed since the one before
  bench/counters.py around OUT.jsonl T0 SECONDS T [T ...]
      for each moment T (seconds after the epoch time T0, e.g. a frame's
      offer_s in rtframe-bench's CSV, T0 the wall time of the round's
      start), the samples from 0.6 s before to 0.3 s after it, each with
      the counters that rose more than in 99% of the run's samples (T0 to
      T0 + SECONDS) and more than 3x their median, and the CPU's system,
      iowait and steal time in ticks.  Root (XFS's statistics); T0 can be
      taken when the bench prints its round's first second ("1.0 s]", on
      stderr): docs/performance.md has the commands

docs/performance.md, "A fault of the bench's own": the long run's slow
moments on RAM were the tmpfs under the loop device allocating huge pages
(vm.thp_file_alloc), found this way.
"""
import json
import signal
import sys
import time

CPU_FIELDS = ["user", "nice", "sys", "idle", "iowait", "irq", "softirq",
              "steal"]


def read_counters():
    counters = {}
    with open("/proc/vmstat") as f:
        for line in f:
            name, value = line.split()
            counters["vm." + name] = int(value)
    try:
        with open("/proc/fs/xfs/stat") as f:
            for line in f:
                fields = line.split()
                for i, value in enumerate(fields[1:]):
                    counters["xfs.%s.%d" % (fields[0], i)] = int(value)
    except OSError:
        pass                    # no XFS loaded
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu "):
                for name, value in zip(CPU_FIELDS, line.split()[1:]):
                    counters["cpu." + name] = int(value)
    return counters


def record(path):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(path, "w") as out:
        before = read_counters()
        try:
            while True:
                time.sleep(0.1)
                now = time.time()
                after = read_counters()
                delta = {k: v - before.get(k, 0) for k, v in after.items()
                         if v != before.get(k, 0)}
                out.write(json.dumps({"t": now, "d": delta}) + "\n")
                out.flush()
                before = after
        except KeyboardInterrupt:
            pass


def around(path, t0, seconds, moments):
    with open(path) as f:
        samples = [json.loads(line) for line in f]
    samples = [s for s in samples if t0 <= s["t"] <= t0 + seconds]
    if not samples:
        sys.exit("counters.py: no samples from %.3f to %.3f in %s"
                 % (t0, t0 + seconds, path))
    usual = {}
    for name in {k for s in samples for k in s["d"]}:
        values = sorted(s["d"].get(name, 0) for s in samples)
        # a counter that is 0 in 99% of the samples shows at its first rise
        usual[name] = max(values[int(len(values) * 0.99)],
                          3 * values[len(values) // 2])
    for moment in moments:
        print("== %.1f s" % moment)
        for s in samples:
            at = s["t"] - t0
            if not moment - 0.6 <= at <= moment + 0.3:
                continue
            rose = sorted(((v, k) for k, v in s["d"].items()
                           if v > usual[k] and not k.startswith("vm.nr_")),
                          reverse=True)
            print("  %6.1f s  cpu sys %d iowait %d steal %d | %s" % (
                at, s["d"].get("cpu.sys", 0), s["d"].get("cpu.iowait", 0),
                s["d"].get("cpu.steal", 0),
                " ".join("%s=%d" % (k, v) for v, k in rose[:10]) or "-"))


def main(argv):
    if len(argv) == 3 and argv[1] == "record":
        record(argv[2])
    elif len(argv) >= 6 and argv[1] == "around":
        around(argv[2], float(argv[3]), float(argv[4]),
               [float(t) for t in argv[5:]])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
