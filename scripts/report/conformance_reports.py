#!/usr/bin/python3
"""The conformance reports of docs/conformance/: written, judged, rerun.

    python3 scripts/report/conformance_reports.py write [--dmlref D] [--cases DIR] [NAME...]
    python3 scripts/report/conformance_reports.py write --command 'CMD' [--out DIR] NAME
    python3 scripts/report/conformance_reports.py check
    python3 scripts/report/conformance_reports.py rerun [--dmlref D] [--cases DIR] [NAME...]
    python3 scripts/report/conformance_reports.py summarize [--manifest FILE] [--out DIR] REPORT.json NAME

A report NAME is one `dmlref check --exec` run of a backend over the suite
(vectors/).  What is committed, in docs/conformance/, is two files:

    NAME.json  the summary: the suite it ran (the SHA-256 of vectors/MANIFEST's
               bytes and its number of cases), the backend's command and its
               library (the log's first line), the counts of each verdict,
               in all and per operator, and every case that did not simply
               pass, with its verdict and dmlref check's message
    NAME.log   the backend's own log: its library, and every mapping it made

A case the summary does not list passed.  What the run printed, its JSON
report of every case (with times) and its JUnit report are build artifacts,
written beside the backend's log into the --cases folder (default
build/conformance/) as NAME.txt, NAME.cases.json and NAME.xml.

`write` runs the backends that run on this machine (REPORTS below) and
rewrites their summaries and logs in docs/conformance/.  `write --command
'CMD' NAME` does the same for any backend command CMD (run from the
repository's root, with `--log DIR/NAME.log` added): that is how the reports
of a GPU are made on a machine with one; `--out DIR` puts the summary and
log into DIR instead (as make check-directml does).

`check` judges the committed summaries alone, running nothing: each names a
suite; its counts add up to that suite's cases, in all, per operator and in
the cases it lists; one that names the current suite (vectors/MANIFEST)
holds its cases, operator by operator, and lists only cases of it; one that
names another suite is stale (the matrix marks it so); each has its log, and
no per-case report is committed.  It then shows that the judge refuses
doctored summaries.

`rerun` runs the backends of REPORTS into the --cases folder and compares
their summaries and logs with the committed ones (every field and line); it
then shows that the comparison fails on a copy with one verdict changed.

`summarize` turns a `dmlref check --json` report (and the NAME.log beside
it) into a summary, naming the suite of --manifest (default
vectors/MANIFEST): for a report made before summaries, with the MANIFEST of
the suite it ran (`git show COMMIT:vectors/MANIFEST > FILE`).

The last line of check and rerun is `N passed, N failed`.
"""

import argparse
import hashlib
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
DOCS = os.path.join(ROOT, "docs", "conformance")
MANIFEST = os.path.join(ROOT, "vectors", "MANIFEST")
PYTHON = "/usr/bin/python3"
FORMAT = "dmlref-conformance-summary-1"

# The reports that this machine (Debian 12, no GPU) can regenerate: name -> backend command.
REPORTS = {
    "numpy": [PYTHON, "conformance/backends/peers/numpy_backend.py"],
    "onnxruntime-node": [PYTHON, "conformance/backends/peers/onnx_backend.py",
                         "--runtime", "onnxruntime-node"],
}

# dmlref check's verdicts -> the summary's counts
VERDICTS = {"pass": "passed", "fail": "failed", "skip": "skipped", "error": "errors"}


# ---------------------------------------------------------------------------
# Suites

def suite_of(manifest_bytes):
    """The suite a MANIFEST names: {"manifest_sha256", "cases"}, and its
    cases, {name: operator} (the name is the path without .json; the
    operator, its first folder in capitals)."""
    cases = {}
    for line in manifest_bytes.decode("utf-8").splitlines():
        path = line.split("  ", 1)[1] if "  " in line else line
        name = path[:-len(".json")] if path.endswith(".json") else path
        cases[name] = name.split("/", 1)[0].upper()
    return {"manifest_sha256": hashlib.sha256(manifest_bytes).hexdigest(), "cases": len(cases)}, cases


def current_suite(manifest=MANIFEST):
    with open(manifest, "rb") as f:
        return suite_of(f.read())


# ---------------------------------------------------------------------------
# Summaries

def counts():
    return {v: 0 for v in VERDICTS.values()}


def summarize(report, name, suite, log_lines):
    """The summary of a `dmlref check --json` report."""
    backend = shlex.split(report.get("backend", {}).get("name", ""))
    if "--log" in backend[:-1]:
        at = backend.index("--log")
        del backend[at:at + 2]
    operators, listed = {}, []
    for r in report["results"]:
        operators.setdefault(r["operator"], counts())[VERDICTS[r["result"]]] += 1
        if r["result"] != "pass" or r.get("message"):
            listed.append({"name": r["name"], "result": r["result"], "message": r.get("message", "")})
    return {
        "format": FORMAT,
        "report": name,
        "suite": suite,
        "tool": "%s %s" % (report.get("tool", ""), report.get("version", "")),
        "backend": " ".join(shlex.quote(a) for a in backend),
        "library": log_lines[0] if log_lines else "",
        "summary": {v: report["summary"].get(v, 0) for v in VERDICTS.values()},
        "operators": {op: operators[op] for op in sorted(operators)},
        "cases": sorted(listed, key=lambda c: c["name"]),
    }


def dumps(summary):
    """A summary as committed: a field a line, a listed case a line."""
    d = lambda x: json.dumps(x, ensure_ascii=False)  # noqa: E731
    lines = ["{"]
    for key, value in summary.items():
        if key == "operators":
            inner = ",\n".join("    %s: %s" % (d(op), d(c)) for op, c in value.items())
            lines.append('  "operators": {\n%s\n  },' % inner)
        elif key == "cases":
            inner = ",\n".join("    " + d(c) for c in value)
            lines.append('  "cases": [\n%s\n  ]' % inner if value else '  "cases": []')
        else:
            lines.append("  %s: %s," % (d(key), d(value)))
    return "\n".join(lines) + "\n}\n"


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def is_current(summary, suite):
    return summary.get("suite", {}).get("manifest_sha256") == suite["manifest_sha256"]


def problems(summary, suite, cases):
    """Why a summary cannot stand: [] when its counts add up to the suite
    it names and, when that is the current suite (suite, cases), to it."""
    found = []
    if not isinstance(summary, dict) or summary.get("format") != FORMAT:
        return ["not a summary (no \"format\": \"%s\"): a per-case report is a build artifact" % FORMAT]
    named = summary.get("suite")
    if not (isinstance(named, dict) and isinstance(named.get("cases"), int) and
            re.fullmatch(r"[0-9a-f]{64}", str(named.get("manifest_sha256")))):
        return ["names no suite (\"suite\": {\"manifest_sha256\": 64 hex digits, \"cases\": N})"]
    total = summary.get("summary", {})
    if sorted(total) != sorted(VERDICTS.values()) or not all(isinstance(n, int) and n >= 0
                                                            for n in total.values()):
        return ["its \"summary\" is not the four counts %s" % ", ".join(VERDICTS.values())]
    if sum(total.values()) != named["cases"]:
        found.append("its counts (%s) add up to %d cases, not the %d of the suite it names"
                     % (", ".join("%d %s" % (total[v], v) for v in VERDICTS.values()),
                        sum(total.values()), named["cases"]))
    per_operator = summary.get("operators", {})
    for v in VERDICTS.values():
        added = sum(c.get(v, 0) for c in per_operator.values())
        if added != total[v]:
            found.append("its operators' %s add up to %d, its summary says %d" % (v, added, total[v]))
    listed, seen = counts(), set()
    for c in summary.get("cases", []):
        if c.get("result") not in VERDICTS or c.get("name") in seen:
            found.append("a listed case is malformed or listed twice: %r" % (c,))
            continue
        seen.add(c["name"])
        listed[VERDICTS[c["result"]]] += 1
        if c["result"] == "pass" and not c.get("message"):
            found.append("%s: a plain pass is listed (only the cases that did not simply pass are)"
                         % c["name"])
    for v in ("failed", "skipped", "errors"):
        if listed[v] != total[v]:
            found.append("it lists %d cases %s, its summary says %d" % (listed[v], v, total[v]))
    if is_current(summary, suite):
        if named["cases"] != suite["cases"]:
            found.append("it names the current suite, of %d cases, with %d"
                         % (suite["cases"], named["cases"]))
        want = {}
        for op in cases.values():
            want[op] = want.get(op, 0) + 1
        got = {op: sum(c.values()) for op, c in per_operator.items()}
        if got != want:
            op = next(o for o in sorted(set(got) | set(want)) if got.get(o) != want.get(o))
            found.append("it names the current suite, whose %s cases are %d, and counts %d"
                         % (op, want.get(op, 0), got.get(op, 0)))
        unknown = sorted(seen - set(cases))
        if unknown:
            found.append("it names the current suite and lists %s, which is not in it" % unknown[0])
    return found


def describe(summary):
    s = summary["suite"]
    return "sha256 %s, %d cases" % (s["manifest_sha256"][:12], s["cases"])


# ---------------------------------------------------------------------------
# Runs

def run_report(dmlref, name, out_dir, cases_dir, command=None):
    """Runs one backend over vectors/ (REPORTS[name] unless `command`, a
    list of arguments, is given): the per-case files go into cases_dir,
    the summary and the log into out_dir.  Returns (summary path, wall
    seconds, the run's last line).  Exit 0 (all passed) and 1 (some failed:
    a finding) are both reports; anything else is an error of the run."""
    os.makedirs(cases_dir, exist_ok=True)
    os.makedirs(out_dir, exist_ok=True)
    art = {ext: os.path.join(cases_dir, name + ext) for ext in (".txt", ".cases.json", ".xml", ".log")}
    log = os.path.relpath(art[".log"], ROOT)
    if log.startswith(".."):
        log = art[".log"]
    if os.path.exists(art[".log"]):
        os.remove(art[".log"])
    with open(MANIFEST, "rb") as f:
        suite, cases = suite_of(f.read())
    backend = " ".join(shlex.quote(a) for a in (command or REPORTS[name]) + ["--log", log])
    start = time.monotonic()
    with open(art[".txt"], "w") as txt:
        status = subprocess.call([dmlref, "check", "--exec", backend, "--json", art[".cases.json"],
                                  "--junit", art[".xml"], "vectors"], stdout=txt, cwd=ROOT)
    seconds = time.monotonic() - start
    if status not in (0, 1):
        sys.exit("conformance_reports: %s: dmlref check exited with %d (see %s)"
                 % (name, status, art[".txt"]))
    with open(art[".log"], encoding="utf-8", errors="replace") as f:
        log_lines = f.read().splitlines()
    summary = summarize(load(art[".cases.json"]), name, suite, log_lines)
    wrong = problems(summary, suite, cases)
    if wrong:
        sys.exit("conformance_reports: %s: the run is not of vectors/MANIFEST's suite: %s" % (name, wrong[0]))
    path = os.path.join(out_dir, name + ".json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(summary))
    if os.path.abspath(os.path.join(out_dir, name + ".log")) != os.path.abspath(art[".log"]):
        shutil.copyfile(art[".log"], os.path.join(out_dir, name + ".log"))
    with open(art[".txt"]) as f:
        last = (f.read().splitlines() or [""])[-1]
    return path, seconds, last


def differences(committed_dir, fresh_dir, name):
    """How report `name` in committed_dir differs from the one in
    fresh_dir: each field's first difference, and the log's."""
    found = []
    paths = [os.path.join(d, name + ".json") for d in (committed_dir, fresh_dir)]
    if not os.path.exists(paths[0]):
        return ["%s.json: not committed" % name]
    old, new = load(paths[0]), load(paths[1])
    for key in sorted(set(old) | set(new)):
        if key == "cases":
            was = {c["name"]: c for c in old.get("cases", [])}
            now = {c["name"]: c for c in new.get("cases", [])}
            for case in sorted(set(was) | set(now)):
                if was.get(case) != now.get(case):
                    found.append("%s.json: case %s: committed %s, now %s" % (
                        name, case, json.dumps(was.get(case, "passed")), json.dumps(now.get(case, "passed"))))
                    break
        elif old.get(key) != new.get(key):
            found.append("%s.json %s: committed %s, now %s" % (
                name, key, json.dumps(old.get(key)), json.dumps(new.get(key))))
    logs = [os.path.join(d, name + ".log") for d in (committed_dir, fresh_dir)]
    if not os.path.exists(logs[0]):
        found.append("%s.log: not committed" % name)
    else:
        old, new = (open(p, encoding="utf-8", errors="replace").read().splitlines() for p in logs)
        if old != new:
            line = next((i for i, (x, y) in enumerate(zip(old, new)) if x != y), min(len(old), len(new)))
            found.append("%s.log line %d: committed %r, now %r" % (
                name, line + 1, old[line] if line < len(old) else "<end>",
                new[line] if line < len(new) else "<end>"))
    return found


class Verdicts:
    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, ok, what):
        print("%s - %s" % ("ok" if ok else "FAIL", what))
        self.passed, self.failed = self.passed + bool(ok), self.failed + (not ok)

    def end(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed else 0


def rerun(dmlref, names, cases_dir):
    verdict = Verdicts()
    for name in names:
        fresh = os.path.join(cases_dir, "summaries")
        _, seconds, last = run_report(dmlref, name, fresh, cases_dir)
        print("conformance_reports: %s: %s (wall %.1f s)" % (name, last, seconds))
        found = differences(DOCS, fresh, name)
        for line in found:
            print("  " + line)
        verdict(not found, "%s: the committed summary and log are what its backend gives today" % name)
        # The comparison must be able to fail: one verdict changed in a copy.
        with tempfile.TemporaryDirectory() as tampered:
            for ext in (".json", ".log"):
                shutil.copyfile(os.path.join(DOCS, name + ext), os.path.join(tampered, name + ext))
            summary = load(os.path.join(tampered, name + ".json"))
            if summary.get("cases"):
                first = summary["cases"][0]
                first["result"] = "fail" if first["result"] != "fail" else "skip"
            else:
                summary["cases"] = [{"name": "doctored", "result": "fail", "message": "doctored"}]
            with open(os.path.join(tampered, name + ".json"), "w") as f:
                f.write(dumps(summary))
            verdict(bool(differences(tampered, fresh, name)),
                    "%s: a committed summary with one verdict changed is caught" % name)
    return verdict.end()


# ---------------------------------------------------------------------------
# The judge of the committed summaries

def committed_summaries(folder=DOCS):
    """name -> summary (or the error that kept it from being read), for
    every report of folder: its *.json but matrix.json."""
    found = {}
    for f in sorted(os.listdir(folder)):
        if f.endswith(".json") and f != "matrix.json":
            try:
                found[f[:-len(".json")]] = load(os.path.join(folder, f))
            except (OSError, ValueError) as e:
                found[f[:-len(".json")]] = e
    return found


def check():
    verdict = Verdicts()
    suite, cases = current_suite()
    reports = committed_summaries()
    for name, summary in reports.items():
        if isinstance(summary, Exception):
            verdict(False, "%s.json: unreadable: %s" % (name, summary))
            continue
        wrong = problems(summary, suite, cases)
        for line in wrong:
            print("  %s.json: %s" % (name, line))
        if wrong:
            verdict(False, "%s: refused" % name)
        elif is_current(summary, suite):
            verdict(True, "%s: names the current suite (%s); its counts add up" % (name, describe(summary)))
        else:
            verdict(True, "%s: names another suite (%s): stale; its counts add up to it"
                    % (name, describe(summary)))
        verdict(os.path.exists(os.path.join(DOCS, name + ".log")),
                "%s: its backend's log is committed" % name)
    artifacts = sorted(f for f in os.listdir(DOCS) if f.endswith((".xml", ".txt")))
    verdict(not artifacts, "no per-case report is committed (they are build artifacts)%s"
            % (": " + ", ".join(artifacts) if artifacts else ""))
    verdict(bool(reports), "docs/conformance/ holds reports")

    # The judge can refuse: a summary of the current suite that counts a
    # case too many, one that claims the current suite's digest with a case
    # more, one that lists a case the suite lacks, and one that names no
    # suite; each made from a summary of the current suite where every case
    # passed, which the judge takes.
    operators = {}
    for op in cases.values():
        operators.setdefault(op, counts())["passed"] += 1
    own = {"format": FORMAT, "report": "doctored", "suite": suite, "tool": "", "backend": "",
           "library": "", "summary": dict(counts(), passed=len(cases)), "operators": operators,
           "cases": []}
    verdict(not problems(own, suite, cases), "a summary of the current suite, every case passed, is taken")
    op = next(iter(sorted(operators)))
    doctored = json.loads(json.dumps(own))
    doctored["summary"]["passed"] += 1
    verdict(bool(problems(doctored, suite, cases)),
            "a summary of the current suite with one pass too many is refused")
    doctored = json.loads(json.dumps(own))
    doctored["suite"]["cases"] += 1
    doctored["summary"]["passed"] += 1
    doctored["operators"][op]["passed"] += 1
    verdict(bool(problems(doctored, suite, cases)),
            "a summary claiming the current suite's digest with a case more is refused")
    doctored = json.loads(json.dumps(own))
    doctored["cases"].append({"name": "no/such/case", "result": "skip", "message": "doctored"})
    doctored["summary"]["skipped"] += 1
    doctored["summary"]["passed"] -= 1
    doctored["operators"][op]["skipped"] += 1
    doctored["operators"][op]["passed"] -= 1
    verdict(bool(problems(doctored, suite, cases)),
            "a summary of the current suite listing a case it lacks is refused")
    doctored = json.loads(json.dumps(own))
    del doctored["suite"]
    verdict(bool(problems(doctored, suite, cases)), "a summary that names no suite is refused")
    return verdict.end()


# ---------------------------------------------------------------------------

def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("write", "check", "rerun", "summarize"))
    parser.add_argument("--dmlref", default=os.path.join(ROOT, "build", "dmlref"))
    parser.add_argument("--command", metavar="CMD",
                        help="write: the backend command of report NAME (one NAME), "
                             "instead of the table of backends that run here")
    parser.add_argument("--out", metavar="DIR", default=DOCS,
                        help="write, summarize: the folder of the summaries (default docs/conformance)")
    parser.add_argument("--cases", metavar="DIR", default=os.path.join(ROOT, "build", "conformance"),
                        help="write, rerun: the folder of the per-case reports (default build/conformance)")
    parser.add_argument("--manifest", metavar="FILE", default=MANIFEST,
                        help="summarize: the MANIFEST of the suite the report ran (default vectors/MANIFEST)")
    parser.add_argument("names", nargs="*", metavar="NAME", help="default: %s" % " ".join(REPORTS))
    args = parser.parse_intermixed_args(argv[1:])
    if args.action == "check":
        if args.names:
            parser.error("check judges every committed report; it takes no NAME")
        return check()
    if args.action == "summarize":
        if len(args.names) != 2:
            parser.error("summarize REPORT.json NAME")
        report, name = args.names
        suite, cases = current_suite(args.manifest)
        stem = report[:-len(".json")] if report.endswith(".json") else report
        log = (stem[:-len(".cases")] if stem.endswith(".cases") else stem) + ".log"
        log_lines = open(log, encoding="utf-8").read().splitlines() if os.path.exists(log) else []
        summary = summarize(load(report), name, suite, log_lines)
        wrong = problems(summary, suite, cases)
        if wrong:
            sys.exit("conformance_reports: %s: %s" % (report, wrong[0]))
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, name + ".json"), "w", encoding="utf-8") as f:
            f.write(dumps(summary))
        return 0
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
    dmlref, cases_dir = os.path.abspath(args.dmlref), os.path.abspath(args.cases)
    if args.action == "rerun":
        return rerun(dmlref, names, cases_dir)
    for name in names:
        _, seconds, last = run_report(dmlref, name, os.path.abspath(args.out), cases_dir, command)
        print("conformance_reports: %s: %s (wall %.1f s)" % (name, last, seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
