#!/usr/bin/python3
"""Where the time of `dmlref check` and `dmlref fuzz` goes.

`dmlref check` over a suite, once per backend and --jobs count: the wall
time of the whole command, and the backend's time, the sum of the cases'
"seconds" in its --json report (each from handing the backend its case to
its answer; conformance/conformance.h, backend_run.seconds).  What is left
is dmlref's own: reading and decoding the vectors, filling the buffers,
writing requests, comparing, reporting, starting jobs.  With J jobs the
backends run side by side, so the share outside them is
1 - backend / (J x wall).

  backend      jobs  cases   wall_s  backend_s  outside  cases_per_s  speedup

Then the least that dmlref does for any backend: `dmlref check --list`,
which reads and decodes every vector (its inputs generated) and runs no
case; and `dmlref fuzz` against the reference plug-in: random cases a
second.

Usage: scripts/report/bench_harness.py [--dmlref build/dmlref] [--backends build/backends]
           [--jobs 1,2] [--fuzz-cases 2000] [PATH ...]   (default PATH: vectors)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def timed(cmd):
    """Wall seconds of a command that must exit 0."""
    start = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"bench_harness: {' '.join(cmd)}: exit {proc.returncode}: "
                 f"{proc.stderr.strip().splitlines()[-1:] or ''}")
    return wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dmlref", default="build/dmlref")
    ap.add_argument("--backends", default="build/backends")
    ap.add_argument("--jobs", default="1,2")
    ap.add_argument("--fuzz-cases", type=int, default=2000)
    ap.add_argument("paths", nargs="*", default=["vectors"])
    args = ap.parse_args()
    jobs = [int(j) for j in args.jobs.split(",")]
    backends = [("plug-in", ["--backend", os.path.join(args.backends, "reference.so")]),
                ("process", ["--exec", os.path.join(args.backends, "reference_process")])]
    print(f"{'backend':<10} {'jobs':>4} {'cases':>6} {'wall_s':>8} {'backend_s':>9} "
          f"{'outside':>8} {'cases_per_s':>11} {'speedup':>8}")
    with tempfile.TemporaryDirectory() as scratch:
        report = os.path.join(scratch, "report.json")
        for name, flags in backends:
            first = None
            for j in jobs:
                wall = timed([args.dmlref, "check", *flags, "--jobs", str(j), "--json", report,
                              *args.paths])
                with open(report) as f:
                    results = json.load(f)["results"]
                backend = sum(r["seconds"] for r in results)
                outside = 1 - backend / (j * wall)
                first = first or wall
                print(f"{name:<10} {j:>4} {len(results):>6} {wall:>8.2f} {backend:>9.2f} "
                      f"{100 * outside:>7.1f}% {len(results) / wall:>11.0f} {first / wall:>8.2f}")
        wall = timed([args.dmlref, "check", *backends[0][1], "--list", *args.paths])
        print(f"reading and decoding the vectors alone (check --list): {wall:.2f} s")
        if args.fuzz_cases:
            wall = timed([args.dmlref, "fuzz", "--backend", os.path.join(args.backends, "reference.so"),
                          "--seed", "1", "--cases", str(args.fuzz_cases), "--out",
                          os.path.join(scratch, "fuzz")])
            print(f"fuzz against the reference plug-in: {args.fuzz_cases} cases in {wall:.2f} s, "
                  f"{args.fuzz_cases / wall:.0f} cases/s")


if __name__ == "__main__":
    main()
