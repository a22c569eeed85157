#!/usr/bin/python3
"""Median tables and a plot from several runs of `dmlref bench --json`.

    scripts/report/bench_report.py [--plot FILE.png] [--title TEXT] RUN.json...

Every run must hold the same cases and thread counts (run the same command
several times).  For each case and thread count the medians over the runs of
the throughput (GB/s), of the copy rate measured beside it and of their
ratio are taken.  Prints, in Markdown:

  - the machine (from the first run) and the number of runs;
  - one row per case: GB/s and ratio to copy at each thread count;
  - scaling: each thread count's throughput over the 1-thread throughput,
    for the large sequential cases and the copy.

--plot draws the medians of the cases of the largest size (2^24 unless the
runs were made with --size) as plot.py draws one run.  Standard library only
(and gnuplot for --plot).
"""

import argparse
import json
import statistics
import sys

import plot as plotting


def load(paths):
    runs = [json.load(open(p)) for p in paths]
    keys = [sorted((c["name"], c["threads"]) for c in r["cases"]) for r in runs]
    if any(k != keys[0] for k in keys):
        sys.exit("bench_report: the runs do not hold the same cases and thread counts")
    return runs


def medians(runs):
    """{(name, threads): {field: median over runs}} and the case order."""
    table, order = {}, []
    for run in runs:
        for c in run["cases"]:
            key = (c["name"], c["threads"])
            if key not in table:
                table[key] = {f: [] for f in ("median_ms", "gbps", "copy_gbps", "ratio")}
                table[key]["case"] = c
                if c["name"] not in order:
                    order.append(c["name"])
            for f in ("median_ms", "gbps", "copy_gbps", "ratio"):
                table[key][f].append(c[f])
    for v in table.values():
        for f in ("median_ms", "gbps", "copy_gbps", "ratio"):
            v[f] = statistics.median(v[f])
    return table, order


def sequential(c):
    return (c["op"] in ("gather_elements", "scatter_elements") and c["pattern"] == "seq"
            and c["layout"] == "packed" and c["size_log2"] == 24)


def report(runs, title):
    table, order = medians(runs)
    threads = runs[0]["machine"]["threads"]
    m = runs[0]["machine"]
    out = ["## %s" % title, "",
           "%s, %d CPUs, %s, OpenMP %s, policy `%s`; median of %d runs, each the median of %d reps."
           % (m["cpu_model"], m["cpus"], m["compiler"], "on" if m["openmp"] else "off",
              m.get("oob", "error"), len(runs), m["reps"]), "",
           "| case | " + " | ".join("%dT GB/s | %dT ratio" % (t, t) for t in threads) + " |",
           "|---|" + "---:|---:|" * len(threads)]
    for name in order:
        cells = []
        for t in threads:
            v = table.get((name, t))
            cells += ["%.2f" % v["gbps"], "%.2f" % v["ratio"]] if v else ["", ""]
        out.append("| %s | %s |" % (name, " | ".join(cells)))
    out += ["", "Copy rate (GB/s, 2 bytes per byte copied), median over the cases of each size:", "",
            "| size | " + " | ".join("%dT" % t for t in threads) + " |",
            "|---|" + "---:|" * len(threads)]
    for size in sorted({table[k]["case"]["size_log2"] for k in table}, reverse=True):
        row = [statistics.median(v["copy_gbps"] for (n, t), v in table.items()
                                 if t == th and v["case"]["size_log2"] == size) for th in threads]
        out.append("| 2^%d | %s |" % (size, " | ".join("%.1f" % x for x in row)))
    seq = [n for n in order if sequential(table[(n, threads[0])]["case"])]
    if seq and threads[0] == 1 and len(threads) > 1:
        out += ["", "Scaling over 1 thread (throughput at T threads / at 1 thread), 2^24 sequential cases:", "",
                "| case | " + " | ".join("%dT" % t for t in threads[1:]) + " |",
                "|---|" + "---:|" * (len(threads) - 1)]
        for n in seq + ["copy"]:
            if n == "copy":
                base = [table[(seq[0], t)]["copy_gbps"] for t in threads]
            else:
                base = [table[(n, t)]["gbps"] for t in threads]
            out.append("| %s | %s |" % (n, " | ".join("%.2f" % (b / base[0]) for b in base[1:])))
    return "\n".join(out), table, order, threads


def plot(png, title, table, order, threads, runs):
    size, big = plotting.largest_size([table[(n, threads[0])]["case"] for n in order])
    cases = [(c["name"], {t: (table[(c["name"], t)]["gbps"], table[(c["name"], t)]["copy_gbps"])
                          for t in threads}) for c in big]
    plotting.draw(png, "%s (2^%d elements, medians of %d runs)" % (title, size, runs),
                  [plotting.bench_panel(cases, threads)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", help="dmlref bench --json files")
    parser.add_argument("--plot", help="write a PNG of the cases of the largest size")
    parser.add_argument("--title", default="dmlref bench")
    args = parser.parse_args()
    text, table, order, threads = report(load(args.runs), args.title)
    print(text)
    if args.plot:
        plot(args.plot, args.title, table, order, threads, len(args.runs))


if __name__ == "__main__":
    main()
