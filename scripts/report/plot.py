#!/usr/bin/python3
"""Charts of dmlref's timings: the one place that draws, with gnuplot.

    scripts/report/plot.py [--title TEXT] RUN.json FILE.png

draws a run of `dmlref bench --json`: the fast kernels' GB/s (logical
bytes) on the cases of the run's largest size, a bar per thread count, and
as a line per thread count the rate of the copy measured beside each case.
bench_report.py --plot (the medians of several runs) and peers_report.py
--plot (dmlref beside PyTorch and NumPy) draw through draw() as well.

Exit 0 with the PNG written; 1, with one line on standard error, when it
cannot be drawn (2 for a usage error).
Standard library only; gnuplot draws (apt-get install gnuplot-nox).
"""

import argparse
import collections
import json
import math
import os
import subprocess
import sys
import tempfile

# One chart of a picture: a group of bars per label, one bar of each group
# per series of `bars`, and each series of `lines` drawn across the groups.
# A series is (title, values), a value per label; None is a missing value.
Panel = collections.namedtuple("Panel", "title labels bars lines")


def quoted(text):
    """A gnuplot single-quoted string: quotes doubled."""
    return "'" + text.replace("'", "''") + "'"


def number(value):
    return "?" if value is None else "%.4f" % value


def draw(png, title, panels, log_y=False):
    """Draws the panels one above the other into png, under title; GB/s
    from 0, or on a logarithmic axis.  Exits with gnuplot's complaint when
    it cannot draw."""
    panels = [p for p in panels if p.labels]
    if not panels:
        sys.exit("plot: no cases to draw in %s" % png)
    groups = max(len(p.labels) for p in panels)
    per_group = max(len(p.bars) for p in panels)
    # the labels stand on end under the bars: the margin, in character
    # heights, holds the longest
    margin = math.ceil(0.45 * max(len(label) for p in panels for label in p.labels)) + 2
    width = max(800, 600 + groups * 8 * max(2, per_group))
    height = len(panels) * (560 + 16 * margin)
    with tempfile.TemporaryDirectory() as tmp:
        script = [
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {",
            "    set terminal pngcairo size %d,%d font ',9'" % (width, height),
            "} else {",
            "    set terminal png size %d,%d" % (width, height),
            "}",
            "set output " + quoted(png),
            "set datafile separator '\\t'", "set datafile missing '?'",
            "set multiplot layout %d,1 title %s noenhanced" % (len(panels), quoted(title)),
            "set ylabel 'GB/s (logical bytes)'",
            "set logscale y" if log_y else "set yrange [0:*]",
            "set grid ytics", "set key outside right top vertical",
            "set xtics rotate by 90 right noenhanced", "set bmargin %d" % margin,
            "set style data histogram", "set style histogram clustered gap 1",
            "set style fill solid 0.8 border -1", "set boxwidth 0.9",
        ]
        for i, panel in enumerate(panels):
            data = os.path.join(tmp, "panel%d.tsv" % i)
            series = panel.bars + panel.lines
            with open(data, "w") as f:
                for row, label in enumerate(panel.labels):
                    cells = [label] + [number(values[row]) for _, values in series]
                    f.write("\t".join(cells) + "\n")
            # the bars from column 2 on, the first naming the groups; then the lines
            plots = ["%s using %d%s title %s" % (quoted(data) if column == 0 else "''", 2 + column,
                                                ":xtic(1)" if column == 0 else "", quoted(name))
                     for column, (name, _) in enumerate(panel.bars)]
            plots += ["'' using 0:%d with lines lw 2 dt %d title %s"
                      % (2 + len(panel.bars) + k, 2 + k, quoted(name))
                      for k, (name, _) in enumerate(panel.lines)]
            script += ["set title %s noenhanced" % quoted(panel.title), "plot " + ", ".join(plots)]
        script.append("unset multiplot")
        gp = os.path.join(tmp, "plot.gp")
        with open(gp, "w") as f:
            f.write("\n".join(script) + "\n")
        try:
            proc = subprocess.run(["gnuplot", gp], stderr=subprocess.PIPE, text=True)
        except FileNotFoundError:
            sys.exit("plot: gnuplot is not on PATH (apt-get install gnuplot-nox)")
        if proc.returncode != 0:
            said = [line.strip() for line in proc.stderr.splitlines() if line.strip(" ^")]
            sys.exit("plot: gnuplot failed to draw %s: %s" % (png, "; ".join(said)))


def threads_text(t):
    return "%d thread%s" % (t, "" if t == 1 else "s")


def bench_panel(cases, threads):
    """The fast kernels' bars and the copy's lines: cases is a list of
    (name, {threads: (gbps, copy_gbps)}); a label is a name without its
    size, which the title gives."""
    def series(t, which):
        return [rates[t][which] if t in rates else None for _, rates in cases]
    return Panel("", [name.rsplit("/", 1)[0] for name, _ in cases],
                 [(threads_text(t), series(t, 0)) for t in threads],
                 [("copy, " + threads_text(t), series(t, 1)) for t in threads])


def largest_size(cases):
    """The cases of the largest size in cases: (size_log2, [case...])."""
    size = max(c["size_log2"] for c in cases)
    return size, [c for c in cases if c["size_log2"] == size]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run", metavar="RUN.json", help="dmlref bench --json FILE")
    parser.add_argument("png", metavar="FILE.png")
    parser.add_argument("--title", default="dmlref bench: the fast kernels")
    args = parser.parse_args()
    try:
        doc = json.load(open(args.run))
        if not doc["cases"]:
            sys.exit("plot: %s holds no cases" % args.run)
        size, big = largest_size(doc["cases"])
        rates = collections.OrderedDict()
        for c in big:
            rates.setdefault(c["name"], {})[c["threads"]] = (c["gbps"], c["copy_gbps"])
        threads = doc["machine"]["threads"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("plot: %s: not the JSON of dmlref bench --json (%s)" % (args.run, e))
    draw(args.png, "%s (2^%d elements)" % (args.title, size),
         [bench_panel(list(rates.items()), threads)])


if __name__ == "__main__":
    main()
