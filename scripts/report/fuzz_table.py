#!/usr/bin/python3
"""Runs `dmlref fuzz` on every faulty plug-in of conformance/backends and
makes the table of docs/fuzz.md: for each plug-in, the exit status, the cases
run until the first failure, the shapes and element counts of the shrunk
vector, the backend runs the shrink took, and the failure the shrunk vector
shows.

    python3 scripts/report/fuzz_table.py [--check DOC | --write DOC] [--work DIR] DMLREF BACKENDS_DIR

Every plug-in runs with the same options (OPTIONS below; the plug-in that
hangs gets a shorter --timeout), two at a time.  The table goes to stdout;
--write puts it into DOC between the lines FUZZ_TABLE_BEGIN and
FUZZ_TABLE_END; --check compares it with what DOC has there (exit 1 when
they differ).  --work keeps each run's output (<name>.log, <name>.rc) and
shrunk vectors (<name>/) in DIR, for tests/cli/test_fuzz.sh.
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile

SEED, CASES = 1, 300
OPTIONS = ["--seed", str(SEED), "--cases", str(CASES), "--shrink", "1", "--timeout", "10"]
SHORT_TIMEOUT = {"hangs_on_scatter_duplicates": "1"}  # every hang costs the whole timeout
BEGIN = "<!-- FUZZ_TABLE_BEGIN: python3 scripts/report/fuzz_table.py --write docs/fuzz.md build/dmlref build/backends -->"
END = "<!-- FUZZ_TABLE_END -->"


def run(dmlref, library, work):
    name = os.path.basename(library)[len("faulty_"):-len(".so")]
    options = list(OPTIONS)
    if name in SHORT_TIMEOUT:
        options[options.index("--timeout") + 1] = SHORT_TIMEOUT[name]
    out = os.path.join(work, name)
    proc = subprocess.run([dmlref, "fuzz", "--backend", library, "--out", out] + options,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(out + ".log", "w") as f:
        f.write(proc.stdout)
    with open(out + ".rc", "w") as f:
        f.write("%d\n" % proc.returncode)
    return name, proc.returncode, proc.stdout, options


def gist(message):
    """The failure without its JSON path, up to its first ';'."""
    message = re.sub(r"^\$\.tensors\.[A-Za-z]+\.expected\[\d+\]: ", "", message)
    message = message.split("; ")[0]
    m = re.match(r"(refused a valid case: DMLREF_[A-Z_]+)", message)
    return m.group(1) if m else message


def row(name, rc, log, options, work):
    first = re.search(r"^(FAIL|ERROR) case (\d+) ", log, re.M)
    shrunk = re.search(r"^    shrunk in (\d+) runs to ([^:]+): [^:]*: (.*)$", log, re.M)
    summary = log.strip().splitlines()[-1] if log.strip() else ""
    timeout = options[options.index("--timeout") + 1]
    label = "`%s`" % name + (" (--timeout %s)" % timeout if name in SHORT_TIMEOUT else "")
    if not first:
        return "| %s | %d | none in %d (%s) | | | | |" % (label, rc, CASES, summary)
    cells = [label, str(rc), str(int(first.group(2)) + 1)]
    if shrunk:
        vector = json.load(open(shrunk.group(2)))
        shapes, counts = [], []
        for tensor, t in vector["tensors"].items():
            shapes.append("%s %s" % (tensor.replace("Tensor", ""), t["sizes"]))
            counts.append(str(math.prod(t["sizes"])))
        cells += ["; ".join(shapes), " + ".join(counts), shrunk.group(1),
                  gist(shrunk.group(3)).replace("|", "\\|")]
    else:
        cells += ["not shrunk", "", "", ""]
    return "| " + " | ".join(cells) + " |"


def table(dmlref, backends, work):
    libraries = sorted(glob.glob(os.path.join(backends, "faulty_*.so")))
    if not libraries:
        sys.exit("fuzz_table.py: no faulty_*.so in %s (make backends)" % backends)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda lib: run(dmlref, lib, work), libraries))
    lines = ["`dmlref fuzz --backend build/backends/faulty_<name>.so %s`, every plug-in of "
             "[conformance/backends](../conformance/backends/naive_backend.c):" % " ".join(OPTIONS),
             "",
             "| plug-in | exit | cases to the first failure | shrunk vector: sizes | elements "
             "| shrink runs | failure of the shrunk vector |",
             "|---|---|---|---|---|---|---|"]
    lines += [row(name, rc, log, options, work) for name, rc, log, options in results]
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dmlref")
    p.add_argument("backends")
    p.add_argument("--work")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--check")
    group.add_argument("--write")
    a = p.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="fuzz-table-")
    os.makedirs(work, exist_ok=True)
    text = table(os.path.abspath(a.dmlref), a.backends, work)
    sys.stdout.write(text)
    doc = a.check or a.write
    if not doc:
        return 0
    content = open(doc).read()
    start, end = content.find(BEGIN), content.find(END)
    if start < 0 or end < start:
        sys.exit("fuzz_table.py: %s lacks the lines %s and %s" % (doc, BEGIN, END))
    before, current = content[:start + len(BEGIN) + 1], content[start + len(BEGIN) + 1:end]
    if a.write:
        with open(doc, "w") as f:
            f.write(before + text + content[end:])
        return 0
    if current != text:
        import difflib
        sys.stderr.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                   doc, "dmlref fuzz now"))
        print("fuzz_table.py: the table of %s is not what dmlref fuzz reports "
              "(python3 scripts/report/fuzz_table.py --write %s ...)" % (doc, doc), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
