#!/usr/bin/python3
"""Time dmlref against NumPy and PyTorch on the cases of `dmlref bench`.

For every case of `dmlref bench --list` (with --quick, --size and --filter
passed on) and every thread count, three implementations are measured in the
same run, interleaved, over --rounds rounds.  A round runs dmlref under each
policy of --oob, then NumPy, then PyTorch at each thread count, so each of
dmlref's times has PyTorch's beside it, seconds apart:

  dmlref  `dmlref bench --kernels fast --filter NAME --threads LIST --reps N --oob P --json FILE`,
          a subprocess per case, policy and round; its JSON also gives the
          case's shape, axis, pattern, layout and types, which the peers
          reproduce;
  numpy   np.take_along_axis (GatherElements), np.copyto + np.put_along_axis
          (Scatter), np.take(out=) or np.take_along_axis with a broadcast index
          (GatherND with batch dimensions), np.nonzero;
  torch   torch.gather(out=), out.copy_(input) + out.scatter_() (Scatter),
          torch.index_select(out=) or torch.gather(out=) with an expanded index
          (GatherND with batch dimensions), torch.nonzero; torch.set_num_threads(T).

Bytes are counted with dmlref's logical formula (each tensor read or written
once); the peers use int64 indices (and int64 coordinates for nonzero) and are
counted with those widths.  Times and GB/s are the medians of the rounds'
medians.  The ratios dmlref/numpy and dmlref/torch are time ratios (peer time
/ dmlref time: above 1, dmlref is faster), taken in each round from the
times measured in it and reported as their median over the rounds: on a
shared host whose speed drifts, a ratio of two figures measured together
varies less than a ratio of two medians taken apart.  The JSON keeps each
round's dmlref/torch ratio too (dmlref_over_torch_rounds), and is rewritten
after every case, marked "complete": false until the last.

Usage: scripts/report/bench_peers.py [--dmlref build/dmlref] [--quick] [--threads 1,2]
           [--size LOG2] [--filter TEXT] [--rounds 5] [--reps N] [--oob error,clamp]
           [--json FILE]
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

NOTES = [
    "ratios are time ratios (peer time / dmlref time): above 1, dmlref is faster; each is the "
    "median over the rounds of the ratio of the times measured in one round",
    "the peers get int64 indices for every case (torch.gather needs int64); on the "
    "i32 cases dmlref reads 4-byte indices, and each side's GB/s counts its own index width",
    "numpy is single-threaded: it is measured once per round and reported for every thread count",
    "numpy take_along_axis and nonzero, and torch nonzero, allocate their output "
    "(no out= form); the other calls write into preallocated outputs",
    "Scatter is out of place in DirectML: the peers time a copy of the input into a "
    "preallocated output followed by the in-place scatter (put_along_axis, scatter_)",
    "strided_output for numpy: take_along_axis, then an assignment into the strided view",
    "every timed call (dmlref's and the peers') follows an untimed 64 MiB copy",
]

DTYPES = {1: (np.uint8, torch.uint8), 2: (np.float16, torch.float16),
          4: (np.float32, torch.float32), 8: (np.float64, torch.float64)}
PEER_IB = 8


def logical_bytes(c, ib, coordinate_bytes, nnz):
    """dmlref's byte count of a case with index width ib."""
    e, n = c["element_size"], c["elements"]
    if c["op"] == "gather_elements":
        return n * (2 * e + ib)
    if c["op"] == "scatter_elements":
        return n * 2 * e + n * (ib + e)
    if c["op"] == "gather_nd":
        return n * 2 * e + (n // c["slice"]) * ib
    return n * e + nnz * len(c["shape"]) * coordinate_bytes + 4


def run_dmlref(args, name, threads, oob):
    """One `dmlref bench` process for one case: {threads: result}."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    try:
        cmd = [args.dmlref, "bench", "--kernels", "fast", "--size", name.rsplit("2^", 1)[1],
               "--filter", name, "--threads", ",".join(str(t) for t in threads), "--reps",
               str(args.reps), "--oob", oob, "--json", path]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            sys.exit("bench_peers: %s failed (%d): %s" % (" ".join(cmd), proc.returncode,
                                                           proc.stderr.strip()))
        with open(path) as f:
            doc = json.load(f)
    finally:
        os.unlink(path)
    found = {c["threads"]: c for c in doc["cases"] if c["name"] == name}
    if sorted(found) != sorted(set(threads)):
        sys.exit("bench_peers: dmlref bench --filter %s did not report every thread count" % name)
    return found, doc["machine"]


# `dmlref bench` runs a 64 MiB copy before every timed call (its baseline), so
# each call starts with caches full of other data; the peers get the same
# untimed copy before each of their calls, or back-to-back calls would find
# their tensors still in a large last-level cache.
FLUSH_SRC = np.ones(1 << 24, dtype=np.float32)
FLUSH_DST = np.empty_like(FLUSH_SRC)


def time_call(fn, reps, warm_up):
    """Median seconds of `reps` calls (after one unmeasured call when warm_up),
    each after an untimed copy like the one dmlref bench alternates with."""
    if warm_up:
        fn()
    times = []
    for _ in range(reps):
        np.copyto(FLUSH_DST, FLUSH_SRC)
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def random_bits(rng, shape, es):
    """Arbitrary bit patterns of element size es, as numpy's dtype of that size."""
    count = int(np.prod(shape))
    raw = rng.integers(0, 256, size=count * es, dtype=np.uint8)
    return raw.view(DTYPES[es][0]).reshape(shape)


def axis_indices(rng, c):
    """The case's index tensor (int64, the input's shape)."""
    shape, axis, pattern = tuple(c["shape"]), c["axis"], c["pattern"]
    n = shape[axis]
    along = np.arange(n, dtype=np.int64).reshape([n if d == axis else 1 for d in range(len(shape))])
    if pattern == "seq":
        return np.ascontiguousarray(np.broadcast_to(along, shape))
    if pattern == "rev":
        return np.ascontiguousarray(np.broadcast_to(n - 1 - along, shape))
    if pattern in ("row_random", "axis_random"):
        return rng.integers(0, n, size=shape, dtype=np.int64)
    if pattern == "dup":
        return np.zeros(shape, dtype=np.int64)
    if pattern in ("row_perm", "perm"):
        return rng.permuted(np.ascontiguousarray(np.broadcast_to(along, shape)), axis=axis)
    raise ValueError("unknown pattern " + pattern)


class Peers:
    """The arrays of one case, for numpy and torch, and the calls to time."""

    def __init__(self, c):
        rng = np.random.default_rng(0x5DEECE66D)
        self.c = c
        op, es, shape = c["op"], c["element_size"], tuple(c["shape"])
        npt, tt = DTYPES[es]
        self.nnz = 0
        if op == "gather_elements":
            layout, axis = c["layout"], c["axis"]
            if layout == "transposed_input":
                base = random_bits(rng, shape[::-1], es)
                a, ta = base.T, torch.from_numpy(base).t()
            elif layout == "broadcast_input":
                line = random_bits(rng, [shape[d] if d == axis else 1 for d in range(len(shape))], es)
                a, ta = np.broadcast_to(line, shape), torch.from_numpy(line).expand(shape)
            else:
                a = random_bits(rng, shape, es)
                ta = torch.from_numpy(a)
            idx = axis_indices(rng, c)
            if layout == "strided_output":
                buf = np.zeros(shape[:-1] + (2 * shape[-1],), dtype=npt)
                out = buf[..., ::2]
            else:
                buf = np.zeros(shape, dtype=npt)
                out = buf
            tidx = torch.from_numpy(idx)
            tbuf = torch.from_numpy(np.zeros_like(buf))
            tout = tbuf[..., ::2] if layout == "strided_output" else tbuf
            if layout == "strided_output":
                def np_call():
                    out[...] = np.take_along_axis(a, idx, axis)
            else:
                def np_call():
                    np.take_along_axis(a, idx, axis)
            self.numpy = np_call
            self.torch = lambda: torch.gather(ta, axis, tidx, out=tout)
        elif op == "scatter_elements":
            axis = c["axis"]
            inp, upd = random_bits(rng, shape, es), random_bits(rng, shape, es)
            idx = axis_indices(rng, c)
            out = np.empty_like(inp)
            tin, tupd, tidx = torch.from_numpy(inp), torch.from_numpy(upd), torch.from_numpy(idx)
            tout = torch.empty_like(tin)

            def np_call():
                np.copyto(out, inp)
                np.put_along_axis(out, idx, upd, axis)

            def torch_call():
                tout.copy_(tin)
                tout.scatter_(axis, tidx, tupd)
            self.numpy, self.torch = np_call, torch_call
        elif op == "gather_nd":
            inp = random_bits(rng, shape, es)
            rows_n = shape[-2]
            tuples = c["elements"] // c["slice"]
            if c["pattern"] == "sorted":
                m = np.arange(tuples, dtype=np.int64) % rows_n
                rows = np.maximum(m - rng.integers(0, 2, size=tuples), 0)
            else:
                rows = rng.integers(0, rows_n, size=tuples, dtype=np.int64)
            out = np.empty_like(inp)
            tin, tout = torch.from_numpy(inp), torch.empty(shape, dtype=tt)
            if c["batch"]:
                idx = rows.reshape(shape[:-1] + (1,))
                tidx = torch.from_numpy(idx).expand(shape)
                self.numpy = lambda: np.take_along_axis(inp, idx, 1)
                self.torch = lambda: torch.gather(tin, 1, tidx, out=tout)
            else:
                trows = torch.from_numpy(rows)
                self.numpy = lambda: np.take(inp, rows, axis=0, out=out)
                self.torch = lambda: torch.index_select(tin, 0, trows, out=tout)
        else:
            n = c["elements"]
            keep = rng.random(n) < c["density"]
            x = np.zeros(n, dtype=npt)
            x[keep] = 1
            x = x.reshape(shape)
            self.nnz = int(keep.sum())
            tx = torch.from_numpy(x)
            self.numpy = lambda: np.nonzero(x)
            self.torch = lambda: torch.nonzero(tx)

    def peer_bytes(self):
        return logical_bytes(self.c, PEER_IB, 8, self.nnz)


def main():
    p = argparse.ArgumentParser(description="dmlref bench against NumPy and PyTorch")
    p.add_argument("--dmlref", default="build/dmlref", help="the dmlref binary (build/dmlref)")
    p.add_argument("--quick", action="store_true", help="the reduced matrix of dmlref bench --quick")
    p.add_argument("--threads", default="1,2", help="thread counts (1,2)")
    p.add_argument("--size", type=int, help="only the class of 2^SIZE elements")
    p.add_argument("--filter", help="only the cases whose name contains this text")
    p.add_argument("--rounds", type=int, default=5, help="rounds; the median is reported (5)")
    p.add_argument("--reps", type=int, help="timed runs per measurement (quick 3, else 11)")
    p.add_argument("--oob", default="error,clamp",
                   help="dmlref's out-of-range policies, each measured in every round: error "
                        "(its default: the indices are checked in a pass of their own) and clamp "
                        "(one pass, like the peers' kernels); error,clamp by default")
    p.add_argument("--json", help="write the results here")
    args = p.parse_args()
    try:
        threads = [int(t) for t in args.threads.split(",")]
        if not threads or min(threads) < 1:
            raise ValueError
    except ValueError:
        p.error("--threads takes a list of numbers from 1, such as 1,2")
    policies = args.oob.split(",")
    if not policies or any(pol not in ("error", "clamp") for pol in policies) or \
            len(set(policies)) != len(policies):
        p.error("--oob takes error, clamp or error,clamp")
    if args.rounds < 1:
        p.error("--rounds takes a number from 1")
    if args.reps is None:
        args.reps = 3 if args.quick else 11

    cmd = [args.dmlref, "bench", "--list"]
    if args.quick:
        cmd.append("--quick")
    if args.size:
        cmd += ["--size", str(args.size)]
    if args.filter:
        cmd += ["--filter", args.filter]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit("bench_peers: %s failed: %s" % (" ".join(cmd), proc.stderr.strip()))
    names = proc.stdout.split()
    if not names:
        sys.exit("bench_peers: no case matches")

    for note in NOTES:
        print("note: " + note)
    print("note: dmlref runs with the out-of-range policies " + ", ".join(policies))
    header = "%-56s %3s %5s %8s %8s %8s %8s %8s" % ("case", "T", "oob", "dmlref", "numpy", "torch",
                                                   "d/numpy", "d/torch")
    print(header + "   (GB/s; d/x = x time / dmlref time)")
    rows, machine = [], None
    for name in names:
        dm = {(pol, t): [] for pol in policies for t in threads}
        npt = []
        tt = {t: [] for t in threads}
        peers, spec = None, None
        for round_ in range(args.rounds):
            for pol in policies:
                found, machine = run_dmlref(args, name, threads, pol)
                for t in threads:
                    dm[(pol, t)].append(found[t])
            if peers is None:
                spec = found[threads[0]]
                peers = Peers(spec)
            # the arrays stay in place between rounds: one warm-up call suffices
            npt.append(time_call(peers.numpy, args.reps, round_ == 0))
            for t in threads:
                torch.set_num_threads(t)
                tt[t].append(time_call(peers.torch, args.reps, round_ == 0))
        numpy_s = statistics.median(npt)
        for pol in policies:
            for t in threads:
                runs = dm[(pol, t)]
                d_s = statistics.median(r["median_ms"] for r in runs) / 1e3
                torch_s = statistics.median(tt[t])
                d_bytes = runs[0]["bytes"]
                p_bytes = peers.peer_bytes()
                row = {
                    "name": name, "op": spec["op"], "pattern": spec["pattern"],
                    "layout": spec["layout"], "element_size": spec["element_size"],
                    "index_bytes": spec["index_bytes"], "elements": spec["elements"],
                    "threads": t, "oob": pol, "rounds": args.rounds, "reps": args.reps,
                    "dmlref_ms": d_s * 1e3, "numpy_ms": numpy_s * 1e3, "torch_ms": torch_s * 1e3,
                    "dmlref_bytes": d_bytes, "peer_bytes": p_bytes,
                    "dmlref_gbps": d_bytes / d_s / 1e9, "numpy_gbps": p_bytes / numpy_s / 1e9,
                    "torch_gbps": p_bytes / torch_s / 1e9,
                    "dmlref_over_numpy": statistics.median(
                        n_s * 1e3 / r["median_ms"] for n_s, r in zip(npt, runs)),
                    "dmlref_over_torch": statistics.median(
                        t_s * 1e3 / r["median_ms"] for t_s, r in zip(tt[t], runs)),
                    "dmlref_over_torch_rounds": [
                        round(t_s * 1e3 / r["median_ms"], 4) for t_s, r in zip(tt[t], runs)],
                    "copy_gbps": statistics.median(r["copy_gbps"] for r in runs),
                    "index_read_gbps": (statistics.median(r["index_read_gbps"] for r in runs)
                                        if runs[0].get("index_read_gbps") else None),
                    "case_sized_copy_gbps": statistics.median(
                        r["case_sized_copy_gbps"] for r in runs),
                }
                rows.append(row)
                print("%-56s %3d %5s %8.2f %8.2f %8.2f %8.2f %8.2f" % (
                    name, t, pol, row["dmlref_gbps"], row["numpy_gbps"], row["torch_gbps"],
                    row["dmlref_over_numpy"], row["dmlref_over_torch"]), flush=True)
        del peers
        if args.json:
            write_json(args.json, machine, rows, complete=False)

    summary = summarize(rows)
    print("summary:")
    for pol, ops in sorted(summary["min_dmlref_over_torch"].items()):
        for op, m in sorted(ops.items()):
            print("  %-5s %-20s min dmlref/torch %6.2f  (%s, %d thread%s)" % (
                pol, op, m["ratio"], m["case"], m["threads"], "" if m["threads"] == 1 else "s"))
    print("  dmlref slower than the fastest peer: %d of %d measurements" % (
        summary["slower_than_fastest_peer"], len(rows)))
    if args.json:
        write_json(args.json, machine, rows, complete=True)


def summarize(rows):
    """Each policy's and operator's least dmlref/torch ratio, and the count of
    measurements where a peer was faster."""
    summary = {"min_dmlref_over_torch": {}, "slower_than_fastest_peer": 0, "measurements": len(rows)}
    for r in rows:
        m = summary["min_dmlref_over_torch"].setdefault(r["oob"], {})
        if r["op"] not in m or r["dmlref_over_torch"] < m[r["op"]]["ratio"]:
            m[r["op"]] = {"ratio": r["dmlref_over_torch"], "case": r["name"], "threads": r["threads"]}
        if min(r["dmlref_over_numpy"], r["dmlref_over_torch"]) < 1:
            summary["slower_than_fastest_peer"] += 1
    return summary


def write_json(path, machine, rows, complete):
    """The run so far, replacing `path` whole: after every case, so that a run
    cut short (a time limit) keeps the cases it finished, marked incomplete."""
    doc = {"machine": dict(machine or {}, python=platform.python_version(),
                           numpy=np.__version__, torch=torch.__version__),
           "complete": complete, "notes": NOTES, "cases": rows, "summary": summarize(rows)}
    with open(path + ".part", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(path + ".part", path)


if __name__ == "__main__":
    main()
