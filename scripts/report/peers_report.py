#!/usr/bin/python3
"""The peer comparison as a Markdown table and a plot, from the JSON of
scripts/report/bench_peers.py on one machine with both policies (--oob error,clamp):
one file, or several runs over disjoint parts of the matrix (--filter).

    scripts/report/peers_report.py [--plot FILE.png] [--title TEXT] RUN.json [RUN.json ...]
    scripts/report/peers_report.py --first-comparison RUN.json [RUN.json ...]
    scripts/report/peers_report.py --targets RUN.json [RUN.json ...]

One row per case and thread count: dmlref's GB/s under each policy, the
peers', the time ratios PyTorch/dmlref under each policy (each the median of
the rounds' ratios), and the targets: clamp at least 1.0 and error at least
0.9.  Where a target is
missed, the row says whether the memory allows it.  The floor is the time
to move the bytes the policy must move at the rates measured beside that
case in the same run: dmlref's logical bytes, and for a strided output the
bytes between its elements, which share their cache lines and move with
them, at the rate of a copy that moves as many bytes as the case
(`dmlref bench`'s case_sized_copy_gbps: a 64 MiB copy fits a large cache
that the case's tensors do not); and under error also the index tensor a
second time (D1 checks every index before anything is written) at the
faster of two rates: reading it alone after the same copy
(index_read_gbps), and dmlref's own strict pass, the index bytes over the
time its error run took beyond its clamp run (a floor may not read the
indices slower than dmlref's pass already does; where the error run took
no longer, the second read costs nothing).
PyTorch's time over that floor is the
best ratio an implementation moving those bytes could reach: where it is
below the target, the bound is physical; above it, the kernel is short of
what the memory allows, unless dmlref's own time is already within the
floor (then its ratio falls short only as the median of the rounds' ratios,
its time over PyTorch's median time is at least the estimate, and the bound
is physical too: the row says how much of the floor's time dmlref took).

Where the run kept each round's ratio, a ratio is followed by the least and
the greatest of them, [low-high], and a row short of its target counts as
short in every round when even its greatest round is below the target: the
rows a shared host's noise cannot explain.  A run cut short (bench_peers
writes its JSON after every case) is refused.

--first-comparison prints only the table of the cases of the first
comparison with PyTorch (docs/performance.md shows it for each machine),
with the same ratios and verdicts.

--targets prints the figures that docs/performance.md's table of targets
gives: dmlref's rate over the copy measured beside it (`copy_gbps`) on the
sequential GatherElements and Scatter cases and the GatherND slices of 1
KiB and more, how many cases reach 1.2x PyTorch, NonZero over PyTorch, and
how many measurements are slower than the fastest peer.

--plot draws, per thread count, each 2^24 case's GB/s for dmlref (error,
clamp), PyTorch and NumPy, through plot.py.  Standard library only (and
gnuplot for --plot).
"""

import argparse
import json
import statistics
import sys

import plot as plotting

TARGET = {"error": 0.9, "clamp": 1.0}


def load(paths):
    """The runs' machine and their rows by policy, then (case, threads)."""
    machine, rows = None, {pol: {} for pol in TARGET}
    for path in paths:
        doc = json.load(open(path))
        if not doc.get("complete", True):
            sys.exit("peers_report: %s is the part of a run that ended early" % path)
        cpu = (doc["machine"].get("cpu_model"), doc["machine"].get("cpus"))
        if machine is None:
            machine = doc["machine"]
        elif cpu != (machine.get("cpu_model"), machine.get("cpus")):
            sys.exit("peers_report: %s was measured on another machine" % path)
        for r in doc["cases"]:
            key = (r["name"], r["threads"])
            if r.get("oob") not in rows or key in rows[r["oob"]]:
                sys.exit("peers_report: %s: %s, %d thread(s): no policy, or measured twice"
                         % (path, r["name"], r["threads"]))
            rows[r["oob"]][key] = r
    if not rows["error"] or set(rows["error"]) != set(rows["clamp"]):
        sys.exit("peers_report: the runs must hold every case under both policies")
    for key, r in rows["error"].items():
        r["strict_pass_gbps"] = strict_pass_gbps(r, rows["clamp"][key])
    return machine, rows


def strict_pass_gbps(error_row, clamp_row):
    """The rate at which dmlref's strict pass read the indices: their bytes
    over the time the error run took beyond the clamp run, infinite where
    it took none."""
    extra_s = (error_row["dmlref_ms"] - clamp_row["dmlref_ms"]) / 1e3
    return second_index_bytes(error_row) / (extra_s * 1e9) if extra_s > 0 else float("inf")


def second_index_bytes(r):
    """The bytes of the strict policy's own pass over the indices."""
    if r["op"] in ("gather_elements", "scatter_elements"):
        return r["elements"] * r["index_bytes"]
    if r["op"] == "gather_nd":
        return r["dmlref_bytes"] - 2 * r["elements"] * r["element_size"]
    return 0


def gap_bytes(r):
    """The bytes between a strided output's elements: the matrix's strided
    outputs step 2 elements, so their lines hold as many bytes again."""
    return r["elements"] * r["element_size"] if r["layout"] == "strided_output" else 0


def floor_ms(r, extra):
    """The time to move dmlref's bytes (with a strided output's gaps) at the
    case-sized copy's rate and extra bytes of indices at the faster of
    reading them alone and dmlref's strict pass."""
    copy_gbps = r["case_sized_copy_gbps"]
    read_gbps = max(r.get("index_read_gbps") or copy_gbps, r.get("strict_pass_gbps", 0))
    return ((r["dmlref_bytes"] + gap_bytes(r)) / (copy_gbps * 1e6) +
            extra / (read_gbps * 1e6))


def verdict(r, policy):
    """met, bound or missed; short of the target, also PyTorch's time over
    the floor and dmlref's time over it."""
    if r["dmlref_over_torch"] >= TARGET[policy]:
        return "met", None, None
    floor = floor_ms(r, second_index_bytes(r) if policy == "error" else 0)
    best, own = r["torch_ms"] / floor, r["dmlref_ms"] / floor
    return ("bound" if best < TARGET[policy] or own <= 1 else "missed"), best, own


def ratio_cell(r, policy):
    """The ratio, its rounds' range and, short of the target, its verdict;
    and the verdict."""
    v, best, own = verdict(r, policy)
    text = "%.2f" % r["dmlref_over_torch"]
    if r.get("dmlref_over_torch_rounds"):
        text += " [%.2f-%.2f]" % (min(r["dmlref_over_torch_rounds"]),
                                  max(r["dmlref_over_torch_rounds"]))
    if v != "met":
        text += " (%s: at most %.2f" % (v, best)
        if best >= TARGET[policy]:
            text += "; dmlref in %.2f of the floor's time" % own
        text += ")"
    return text, v


# The cases of the first comparison with PyTorch, by their names in the table.
FIRST_COMPARISON = [
    ("gather_elements/axis1_seq/packed/e1_i64/2^24", "GatherElements seq, 1-byte data, INT64 idx"),
    ("gather_elements/axis1_seq/packed/e1_i32/2^24", "GatherElements seq, 1-byte, INT32 idx"),
    ("gather_elements/axis1_seq/packed/e4_i64/2^24", "GatherElements seq, 4-byte, INT64"),
    ("gather_elements/axis1_rev/packed/e4_i64/2^24", "GatherElements reversed rows, 4-byte"),
    ("gather_elements/axis1_row_random/packed/e4_i64/2^24", "GatherElements random in row, 4-byte"),
    ("scatter_elements/axis1_seq/packed/e4_i64/2^24", "Scatter seq, 4-byte, INT64"),
    ("scatter_elements/axis1_dup/packed/e4_i64/2^24", "Scatter with duplicates, 4-byte"),
    ("gather_nd/S16_sorted/packed/e4_i64/2^24", "GatherND 16-element slices, sorted"),
    ("nonzero_coordinates/rank2_d0/packed/e4/2^24", "NonZero, density 0"),
    ("nonzero_coordinates/rank2_d0.5/packed/e4/2^24", "NonZero, density 0.5"),
]


def print_first_comparison(erows, crows):
    threads = sorted({t for _, t in erows})
    print("| case (2^24 elements) | threads | dmlref GB/s (error) | dmlref GB/s (clamp) "
          "| PyTorch GB/s | dmlref/PyTorch error | dmlref/PyTorch clamp |")
    print("|---|---|---|---|---|---|---|")
    for name, label in FIRST_COMPARISON:
        for t in threads:
            if (name, t) not in erows:
                sys.exit("peers_report: the runs lack %s at %d thread(s)" % (name, t))
            e, c = erows[(name, t)], crows[(name, t)]
            print("| %s | %d | %.2f | %.2f | %.2f | %s | %s |" % (
                label, t, e["dmlref_gbps"], c["dmlref_gbps"], e["torch_gbps"],
                ratio_cell(e, "error")[0], ratio_cell(c, "clamp")[0]))


def print_targets(erows, crows):
    threads = sorted({t for _, t in erows})
    by_policy = (("error", erows), ("clamp", crows))
    over_copy = lambda r: r["dmlref_gbps"] / r["copy_gbps"]
    big = lambda name: name.endswith("/2^24")

    def per_policy_and_threads(n, value, form):
        return "   ".join(pol + " " + " / ".join(form % value(rows[(n, t)]) for t in threads)
                          for pol, rows in by_policy)

    print("dmlref over the copy at 1 thread, sequential GatherElements and Scatter (packed, 2^24):")
    print("%-44s %6s %6s" % ("case", "error", "clamp"))
    sequential = [n for n, t in erows if t == 1 and big(n) and "_seq/packed/" in n
                  and n.split("/")[0] in ("gather_elements", "scatter_elements")]
    for n in sequential:
        print("%-44s %6.2f %6.2f" % (short(n), over_copy(erows[(n, 1)]), over_copy(crows[(n, 1)])))
    print("%-44s %s" % ("least-greatest", "   ".join(
        pol + " %.2f-%.2f" % (min(over_copy(rows[(n, 1)]) for n in sequential),
                              max(over_copy(rows[(n, 1)]) for n in sequential))
        for pol, rows in by_policy)))
    print("dmlref over the copy, GatherND slices of 1 KiB and more, at %s threads:"
          % " / ".join(map(str, threads)))
    for n in sorted({n for n, _ in erows if n.startswith("gather_nd/") and big(n)
                     and ("S256" in n or "S4096" in n)}):
        print("%-44s %s" % (short(n), per_policy_and_threads(n, over_copy, "%.2f")))
    ops = ("gather_elements", "scatter_elements", "gather_nd")
    for pol, rows in by_policy:
        at_1 = [r for (n, t), r in rows.items() if t == 1 and r["op"] in ops]
        print("%s: %d of %d GatherElements, Scatter and GatherND cases at least 1.2x PyTorch at "
              "1 thread; medians %s" % (
                  pol, sum(r["dmlref_over_torch"] >= 1.2 for r in at_1), len(at_1),
                  ", ".join("%s %.2f" % (short(op), statistics.median(
                      r["dmlref_over_torch"] for r in at_1 if r["op"] == op)) for op in ops)))
    print("NonZero over PyTorch at %s threads:" % " / ".join(map(str, threads)))
    for n in sorted({n for n, _ in erows if n.startswith("nonzero_coordinates/") and big(n)}):
        print("%-44s %s" % (short(n), per_policy_and_threads(
            n, lambda r: r["dmlref_over_torch"], "%.1f")))
    for pol, rows in by_policy:
        print("%s: slower than the fastest peer on %s (of %d cases)" % (pol, ", ".join(
            "%d cases at %d thread%s" % (sum(r["dmlref_over_torch"] < 1 or r["dmlref_over_numpy"] < 1
                                             for (n, t2), r in rows.items() if t2 == t),
                                         t, "" if t == 1 else "s") for t in threads),
            len({n for n, _ in rows})))


def short_in_every_round(r, policy):
    """Whether even the row's best round is below the target (None: the run
    kept no rounds)."""
    rounds = r.get("dmlref_over_torch_rounds")
    return None if not rounds else max(rounds) < TARGET[policy]


def short(name):
    return name.replace("/packed", "").replace("/2^24", "").replace("gather_elements", "GE") \
        .replace("scatter_elements", "SC").replace("gather_nd", "GND") \
        .replace("nonzero_coordinates", "NZ")


def plot(path, title, error_rows, clamp_rows, keys):
    names = []
    for n, _ in keys:
        if n.endswith("/2^24") and n not in names:
            names.append(n)
    panels = []
    for t in sorted({t for _, t in keys}):
        e, c = [error_rows[(n, t)] for n in names], [clamp_rows[(n, t)] for n in names]
        panels.append(plotting.Panel(
            "%s, 2^24 elements" % plotting.threads_text(t), [short(n) for n in names],
            [("dmlref (error)", [r["dmlref_gbps"] for r in e]),
             ("dmlref (clamp)", [r["dmlref_gbps"] for r in c]),
             ("PyTorch", [r["torch_gbps"] for r in e]), ("NumPy", [r["numpy_gbps"] for r in e])],
            []))
    plotting.draw(path, title, panels, log_y=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", metavar="RUN.json")
    p.add_argument("--plot", help="draw the 2^24 cases here (PNG, needs gnuplot)")
    p.add_argument("--title", default="dmlref against PyTorch and NumPy")
    p.add_argument("--first-comparison", action="store_true",
                   help="only the table of the first comparison's cases")
    p.add_argument("--targets", action="store_true",
                   help="only the figures of docs/performance.md's table of targets")
    args = p.parse_args()
    m, rows = load(args.runs)
    erows, crows = rows["error"], rows["clamp"]
    keys = list(erows)
    if args.first_comparison:
        print_first_comparison(erows, crows)
        return
    if args.targets:
        print_targets(erows, crows)
        return

    print("Machine: %s, %s logical CPUs; dmlref built with %s; PyTorch %s, NumPy %s. "
          "Rounds: %d (GB/s: medians; ratios: the median of the rounds' ratios). Ratios are "
          "PyTorch's time over dmlref's (above 1, dmlref is faster); targets: clamp >= 1.0, "
          "error >= 0.9." % (
              m.get("cpu_model", "?"), m.get("cpus", "?"), m.get("compiler", "?"), m.get("torch", "?"),
              m.get("numpy", "?"), erows[keys[0]]["rounds"]))
    print()
    print("| case | T | dmlref error GB/s | dmlref clamp GB/s | PyTorch GB/s | NumPy GB/s "
          "| case-sized copy GB/s | error / PyTorch | clamp / PyTorch |")
    print("|---|---|---|---|---|---|---|---|---|")
    counts = {(pol, v): 0 for pol in TARGET for v in ("met", "bound", "missed", "steady")}
    for k in keys:
        e, c = erows[k], crows[k]
        cells = []
        for pol, r in (("error", e), ("clamp", c)):
            text, v = ratio_cell(r, pol)
            counts[(pol, v)] += 1
            if v == "missed" and short_in_every_round(r, pol):
                counts[(pol, "steady")] += 1
            cells.append(text)
        print("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s |" % (
            k[0], k[1], e["dmlref_gbps"], c["dmlref_gbps"], e["torch_gbps"], e["numpy_gbps"],
            e["case_sized_copy_gbps"], cells[0], cells[1]))
    print()
    rounds_kept = all(r.get("dmlref_over_torch_rounds") for r in list(erows.values()) +
                      list(crows.values()))
    for pol in ("clamp", "error"):
        print("- %s (target %.1f): %d of %d rows met; %d short of a physical bound "
              "(the rates measured beside it cap the ratio below the target, or dmlref's time is "
              "already within the floor they give); %d missed while the memory would allow it%s" % (
                  pol, TARGET[pol], counts[(pol, "met")], len(keys), counts[(pol, "bound")],
                  counts[(pol, "missed")],
                  ", %d of them in every round" % counts[(pol, "steady")] if rounds_kept else ""))
    if args.plot:
        plot(args.plot, args.title, erows, crows, keys)


if __name__ == "__main__":
    main()
