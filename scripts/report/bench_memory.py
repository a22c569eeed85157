#!/usr/bin/python3
"""Peak memory of `dmlref eval` and `dmlref verify` on large generated cases.

For each operator, a case whose inputs come from generators and whose
tensors total about --mib MiB (768 by default) is written to a scratch
folder; `dmlref eval` computes it (its outputs become digests), then `dmlref
verify` checks the result.  Each command's peak resident set (the kernel's
ru_maxrss of that child, from os.wait4) is printed beside the tensors' own
bytes, as a ratio:

  case                       tensors_MiB  eval_MiB  eval_x  verify_MiB  verify_x

Scatter's output keeps its elements whenever targets are written by several
updates (any of them may stay, D4), and eval lists those targets' candidates:
its case uses one update per target, so what is measured is the copy and the
duplicate search, not a list of candidates.

Usage: scripts/report/bench_memory.py [--dmlref build/dmlref] [--mib 768]
           [--threads N] [--limit X]
--limit X judges each command of each case: at most X times the tensors'
bytes passes; the last line is then "N passed, N failed", and the exit
status 1 when any failed.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

MIB = 1 << 20


def cases(mib):
    """(name, vector, tensor bytes) for each operator, about mib MiB each."""
    rows = 4096
    out = []
    # GatherElements FLOAT32, INT64 indices: 4 + 8 + 4 bytes per element
    cols = mib * MIB // (rows * 16)
    out.append(("gather_elements", {
        "operator": "GATHER_ELEMENTS", "attributes": {"Axis": 1},
        "tensors": {
            "InputTensor": {"dtype": "FLOAT32", "sizes": [rows, cols],
                            "generator": {"kind": "bits", "seed": 1}},
            "IndicesTensor": {"dtype": "INT64", "sizes": [rows, cols],
                              "generator": {"kind": "index", "seed": 2, "low": [-cols],
                                            "high": [cols - 1]}},
            "OutputTensor": {"dtype": "FLOAT32", "sizes": [rows, cols], "xxh3": "0" * 16}}},
        rows * cols * 16))
    # Scatter FLOAT32 along axis 0 of [rows, cols]: one update row (INT64
    # indices of one value per column) into the input copied to the output
    cols = mib * MIB // (rows * 8 + 12)
    out.append(("scatter_elements", {
        "operator": "SCATTER_ELEMENTS", "attributes": {"Axis": 0},
        "tensors": {
            "InputTensor": {"dtype": "FLOAT32", "sizes": [rows, cols],
                            "generator": {"kind": "bits", "seed": 3}},
            "IndicesTensor": {"dtype": "INT64", "sizes": [1, cols],
                              "generator": {"kind": "index", "seed": 4, "low": [0],
                                            "high": [rows - 1]}},
            "UpdatesTensor": {"dtype": "FLOAT32", "sizes": [1, cols],
                              "generator": {"kind": "bits", "seed": 5}},
            "OutputTensor": {"dtype": "FLOAT32", "sizes": [rows, cols], "xxh3": "0" * 16}}},
        rows * cols * 8 + cols * 12))
    # GatherND: rows of 4096 FLOAT32, a sixth of the bytes, picked by INT64
    # one-coordinate tuples
    width = 4096
    inrows = max(16, mib * MIB // (6 * width * 4))
    tuples = (mib * MIB - inrows * width * 4) // (width * 4 + 8)
    out.append(("gather_nd", {
        "operator": "GATHER_ND", "attributes": {"InputDimensionCount": 2, "IndicesDimensionCount": 2},
        "tensors": {
            "InputTensor": {"dtype": "FLOAT32", "sizes": [inrows, width],
                            "generator": {"kind": "bits", "seed": 6}},
            "IndicesTensor": {"dtype": "INT64", "sizes": [tuples, 1],
                              "generator": {"kind": "index", "seed": 7, "low": [-inrows],
                                            "high": [inrows - 1]}},
            "OutputTensor": {"dtype": "FLOAT32", "sizes": [tuples, width], "xxh3": "0" * 16}}},
        inrows * width * 4 + tuples * 8 + tuples * width * 4))
    # NonZero of a FLOAT32 [rows, cols] at half density: 4 + 2 x 4 bytes per element
    cols = mib * MIB // (rows * 12)
    out.append(("nonzero_coordinates", {
        "operator": "NONZERO_COORDINATES", "attributes": {},
        "tensors": {
            "InputTensor": {"dtype": "FLOAT32", "sizes": [rows, cols],
                            "generator": {"kind": "sparse", "seed": 8, "density": 500000}},
            "OutputCountTensor": {"dtype": "UINT32", "sizes": [1], "xxh3": "0" * 16},
            "OutputCoordinatesTensor": {"dtype": "UINT32", "sizes": [rows * cols, 2],
                                        "xxh3": "0" * 16}}},
        rows * cols * 12 + 4))
    return out


def peak(cmd):
    """(exit status, peak RSS in bytes) of one command."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace").strip()
    proc.stderr.close()
    if proc.returncode != 0:
        sys.exit(f"bench_memory: {' '.join(cmd)}: exit {proc.returncode}: {err}")
    return usage.ru_maxrss * 1024  # Linux: KiB


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dmlref", default="build/dmlref")
    ap.add_argument("--mib", type=int, default=768)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--limit", type=float)
    args = ap.parse_args()
    worst = 0.0
    ratios = []
    print(f"{'case':<22} {'tensors_MiB':>11} {'eval_MiB':>9} {'eval_x':>7} {'verify_MiB':>10} {'verify_x':>8}")
    with tempfile.TemporaryDirectory() as scratch:
        for name, body, tensor_bytes in cases(args.mib):
            case = os.path.join(scratch, name + ".json")
            done = os.path.join(scratch, name + ".eval.json")
            vector = {"format": "dmlref-vector-1", "name": "memory/" + name, **body}
            vector["feature_level"] = "6_4"
            with open(case, "w") as f:
                json.dump(vector, f)
            eval_rss = peak([args.dmlref, "eval", "--threads", str(args.threads), case, "-o", done])
            verify_rss = peak([args.dmlref, "verify", "--threads", str(args.threads), done])
            ex, vx = eval_rss / tensor_bytes, verify_rss / tensor_bytes
            worst = max(worst, ex, vx)
            ratios += [ex, vx]
            print(f"{name:<22} {tensor_bytes / MIB:>11.1f} {eval_rss / MIB:>9.1f} {ex:>7.3f} "
                  f"{verify_rss / MIB:>10.1f} {vx:>8.3f}")
    print(f"worst peak RSS / tensors: {worst:.3f}")
    if args.limit is not None:
        failed = sum(1 for x in ratios if x > args.limit)
        print(f"at most {args.limit} times the tensors: {len(ratios) - failed} passed, {failed} failed")
        sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
