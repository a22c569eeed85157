#!/usr/bin/python3
"""Writes the conformance reports of docs/conformance/, or checks them.

    python3 scripts/report/conformance_reports.py write [--dmlref build/dmlref] [NAME...]
    python3 scripts/report/conformance_reports.py check [--dmlref build/dmlref] [NAME...]
    python3 scripts/report/conformance_reports.py write --command 'CMD' [--out DIR] NAME

Each report NAME is one `dmlref check --exec` run of an example backend of
conformance/backends/peers/ over the committed suite (vectors/), kept as four files:

    NAME.txt   what dmlref check printed (its summary, every case not passed)
    NAME.json  its --json report          NAME.xml  its --junit report
    NAME.log   the backend's own log: its library, and every mapping it made

`write` runs the backends that run on this machine (REPORTS below) and
rewrites their files in docs/conformance/.  `check` runs them into
build/conformance/ and compares them with the committed files: every case's
verdict and message, the text and the log must be the same; only the times
(the JSON's "seconds") may differ.  It then shows that the comparison can
fail, on a copy of each committed report with one verdict changed.  Its
last line is `N passed, N failed`.  The reports of GPU backends, made on a
machine with a GPU, are in docs/conformance/ too, and are not rerun here.

`write --command 'CMD' NAME` writes report NAME of any backend command CMD
(run from the repository's root, as `dmlref check --exec` runs it, with
`--log build/conformance/NAME.log` added), in the same four files: that is how
the GPU reports are made on a machine with a GPU; `--out DIR` writes them
into DIR instead of docs/conformance/ (as make check-directml does).  Every
`write` prints each report's summary and its wall time.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PYTHON = "/usr/bin/python3"

# The reports that this machine (Debian 12, no GPU) can regenerate: name -> backend command.
REPORTS = {
    "numpy": [PYTHON, "conformance/backends/peers/numpy_backend.py"],
    "onnxruntime-node": [PYTHON, "conformance/backends/peers/onnx_backend.py",
                         "--runtime", "onnxruntime-node"],
}


def run_report(dmlref, name, out_dir, command=None):
    """Runs one backend over vectors/ and writes its four files into out_dir;
    the backend is REPORTS[name] unless `command` (a list of arguments) is
    given.
    Exit 0 (all passed) and 1 (some failed: a finding) are both reports;
    anything else is an error of the run.  The backend's log is always
    written to build/conformance/NAME.log first, so that the command line,
    which the reports quote, is the same wherever they go."""
    paths = {ext: os.path.join(out_dir, "%s.%s" % (name, ext)) for ext in ("txt", "json", "xml", "log")}
    log = os.path.join("build", "conformance", "%s.log" % name)
    os.makedirs(os.path.join(ROOT, "build", "conformance"), exist_ok=True)
    if os.path.exists(os.path.join(ROOT, log)):
        os.remove(os.path.join(ROOT, log))
    backend = " ".join(shlex.quote(a) for a in (command or REPORTS[name]) + ["--log", log])
    start = time.monotonic()
    with open(paths["txt"], "w") as txt:
        status = subprocess.call([dmlref, "check", "--exec", backend, "--json", paths["json"],
                                  "--junit", paths["xml"], "vectors"], stdout=txt, cwd=ROOT)
    paths["seconds"] = time.monotonic() - start
    if status not in (0, 1):
        sys.exit("conformance_reports: %s: dmlref check exited with %d (see %s)"
                 % (name, status, paths["txt"]))
    if os.path.abspath(paths["log"]) != os.path.join(ROOT, log):
        shutil.copyfile(os.path.join(ROOT, log), paths["log"])
    return paths


def verdicts(path):
    """A JSON report without its times: what is compared."""
    with open(path) as f:
        report = json.load(f)
    for result in report.get("results", []):
        result.pop("seconds", None)
    return report


def text(path):
    """A text file as compared: a JUnit report's times taken out."""
    with open(path) as f:
        content = f.read()
    return re.sub(r' time="[^"]*"', "", content) if path.endswith(".xml") else content


def differences(committed_dir, fresh_dir, name):
    """The files of report `name` that differ, each with its first difference."""
    found = []
    for ext in ("txt", "xml", "log"):
        a, b = (os.path.join(d, "%s.%s" % (name, ext)) for d in (committed_dir, fresh_dir))
        if not os.path.exists(a):
            found.append("%s.%s: not committed" % (name, ext))
            continue
        old, new = text(a).splitlines(), text(b).splitlines()
        if old != new:
            line = next((i for i, (x, y) in enumerate(zip(old, new)) if x != y), min(len(old), len(new)))
            found.append("%s.%s line %d: committed %r, now %r" % (
                name, ext, line + 1, old[line] if line < len(old) else "<end>",
                new[line] if line < len(new) else "<end>"))
    a, b = (os.path.join(d, "%s.json" % name) for d in (committed_dir, fresh_dir))
    if not os.path.exists(a):
        found.append("%s.json: not committed" % name)
    else:
        old, new = verdicts(a), verdicts(b)
        if old.get("summary") != new.get("summary"):
            found.append("%s.json summary: committed %s, now %s" % (name, old.get("summary"), new.get("summary")))
        was = {r["name"]: r for r in old.get("results", [])}
        for r in new.get("results", []):
            if was.pop(r["name"], None) != r:
                found.append("%s.json: case %s now %s: %s" % (name, r["name"], r["result"], r["message"]))
                break
        if was:
            found.append("%s.json: case %s no longer run" % (name, next(iter(was))))
    return found


def check(dmlref, names):
    committed = os.path.join(ROOT, "docs", "conformance")
    fresh = os.path.join(ROOT, "build", "conformance")
    os.makedirs(fresh, exist_ok=True)
    passed = failed = 0

    def verdict(ok, what):
        nonlocal passed, failed
        print("%s - %s" % ("ok" if ok else "FAIL", what))
        passed, failed = passed + ok, failed + (not ok)

    for name in names:
        run_report(dmlref, name, fresh)
        found = differences(committed, fresh, name)
        for line in found:
            print("  " + line)
        verdict(not found, "%s: the committed report is what its backend gives today" % name)
        # The comparison must be able to fail: one verdict changed in a copy.
        with tempfile.TemporaryDirectory() as tampered:
            for ext in ("txt", "xml", "log", "json"):
                with open(os.path.join(committed, "%s.%s" % (name, ext))) as src, \
                        open(os.path.join(tampered, "%s.%s" % (name, ext)), "w") as dst:
                    dst.write(src.read())
            report = verdicts(os.path.join(tampered, "%s.json" % name))
            first = report["results"][0]
            first["result"] = "fail" if first["result"] != "fail" else "pass"
            with open(os.path.join(tampered, "%s.json" % name), "w") as f:
                json.dump(report, f)
            verdict(bool(differences(tampered, fresh, name)),
                    "%s: a committed report with one verdict changed is caught" % name)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("write", "check"))
    parser.add_argument("--dmlref", default=os.path.join(ROOT, "build", "dmlref"))
    parser.add_argument("--command", metavar="CMD",
                        help="write: the backend command of report NAME (one NAME), "
                             "instead of the table of backends that run here")
    parser.add_argument("--out", metavar="DIR", default=os.path.join(ROOT, "docs", "conformance"),
                        help="write: the folder of the reports (default docs/conformance)")
    parser.add_argument("names", nargs="*", metavar="NAME", help="default: %s" % " ".join(REPORTS))
    args = parser.parse_intermixed_args(argv[1:])
    command = None
    if args.command is not None:
        if args.action != "write" or len(args.names) != 1:
            parser.error("--command writes one report: write --command 'CMD' NAME")
        if not re.match(r"^[a-z0-9][a-z0-9.-]*$", args.names[0]):
            parser.error("a report's NAME is lower-case letters, digits, '.' and '-'")
        command = shlex.split(args.command)
    else:
        unknown = [n for n in args.names if n not in REPORTS]
        if unknown:
            parser.error("no report %s here (these run on this machine: %s)"
                         % (unknown[0], " ".join(REPORTS)))
    names = args.names or list(REPORTS)
    dmlref = os.path.abspath(args.dmlref)
    if args.action == "write":
        for name in names:
            os.makedirs(args.out, exist_ok=True)
            paths = run_report(dmlref, name, os.path.abspath(args.out), command)
            print("conformance_reports: %s: %s (wall %.1f s)"
                  % (name, text(paths["txt"]).splitlines()[-1], paths["seconds"]))
        return 0
    return check(dmlref, names)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
