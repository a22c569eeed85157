#!/usr/bin/python3
"""The DirectML leg's verdict on a `dmlref check --json` report of DirectML,
or on what `dmlref fuzz` printed against it.

    directml_verdict.py REPORT.json DIFFERENCES
    directml_verdict.py --fuzz TRANSCRIPT DIFFERENCES

DIFFERENCES (conformance/backends/directml.differences) lists every case
where DirectML is known to differ from the suite, each with its class; the
classes and their minimal vectors head the file.  The leg passes when

- every case that failed or errored is listed, and still exists;
- every skip has a reason this leg explains (SKIP_REASONS): DirectML cannot
  be asked to validate below its maximum feature level, the outputs of
  out-of-range reads are undefined, and dmlref decides no answer for one
  output layout;
- every listed case is in the suite.

A listed case that passed is reported (the difference did not show, as a
race may make it) but fails nothing.

With --fuzz, every case that failed or errored in the transcript must have
a name that a "fuzz" line's pattern matches (fnmatch): the random cases
have no names of the suite, so a pattern of how they were drawn classifies
them, e.g. `*_out_of_range_clamp` for the cases that clamp out-of-range
indices.  The last line is `N passed, N failed`:
passed counts the cases that passed and the listed differences that showed.
Exit status: 0 when nothing failed, 1 otherwise, 2 when a file is unreadable.
"""
import fnmatch
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "loaders"))
from dmlref_vectors import VectorError, read_regular_file  # noqa: E402

# The skips a DirectML run may have, each with the words that start dmlref
# check's message for it and why DirectML cannot be judged there.
SKIP_REASONS = [
    ("unsupported: DirectML validates at its maximum feature level",
     "below 6_4: DirectML validates every case at its maximum level, 6_4"),
    ("accepted out-of-range indices",
     "out of range: DirectML reads or writes where the flattened offset points (R-IX-5, R-GN-6)"),
    ("a layout dmlref cannot decide",
     "an output layout dmlref does not decide (D6): no answer to hold DirectML's against"),
]


def read_text(path, errors="strict"):
    """The text of a file the user names: a regular file of at most 1 GiB
    (a FIFO or a device is refused at once, not read)."""
    try:
        return read_regular_file(path, what="reports").decode("utf-8", errors)
    except VectorError as e:
        fail(str(e))
    except UnicodeDecodeError as e:
        fail("%s: not UTF-8: %s" % (path, e))


def fail(message):
    print("directml_verdict: %s" % message, file=sys.stderr)
    sys.exit(2)


def read_differences(path):
    """{case name: class}, {class: (minimal vector, what differs)} and
    [(fuzz case pattern, class)]."""
    cases, classes, patterns = {}, {}, []
    lines = read_text(path).splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if fields[0] == "class" and len(fields) == 4:
            classes[fields[1]] = (fields[2], fields[3])
        elif fields[0] == "case" and len(fields) == 3:
            if fields[1] in cases:
                fail("%s:%d: the case %s is listed twice" % (path, number, fields[1]))
            cases[fields[1]] = fields[2]
        elif fields[0] == "fuzz" and len(fields) == 3:
            patterns.append((fields[1], fields[2]))
        else:
            fail("%s:%d: not 'class<TAB>NAME<TAB>VECTOR<TAB>TEXT', 'case<TAB>NAME<TAB>CLASS' "
                 "or 'fuzz<TAB>PATTERN<TAB>CLASS'" % (path, number))
    for name, kind in list(cases.items()) + patterns:
        if kind not in classes:
            fail("%s: the case %s names the class %s, which no class line defines"
                 % (path, name, kind))
    return cases, classes, patterns


def judge_fuzz(transcript_path, differences_path):
    """The verdict on a fuzz transcript: each difference classified."""
    _, classes, patterns = read_differences(differences_path)
    lines = read_text(transcript_path, errors="replace").splitlines()
    summary = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")
    counts = [summary.match(line) for line in lines if summary.match(line)]
    if not counts:
        fail("%s: no summary line: not what dmlref fuzz prints" % transcript_path)
    passed, unclassified, shown = int(counts[-1].group(1)), 0, {}
    for line in lines:
        found = re.match(r"^(FAIL|ERROR) case (\d+)(?: \(([^)]*)\))?: (.*)$", line)
        if not found:
            continue
        name = found.group(3) or ""
        kind = next((k for pattern, k in patterns if fnmatch.fnmatchcase(name, pattern)), None)
        if kind is None:
            unclassified += 1
            print("FAIL  case %s (%s): a difference %s does not classify: %s"
                  % (found.group(2), name or "no name", differences_path, found.group(4)))
        else:
            passed += 1
            shown[kind] = shown.get(kind, 0) + 1
    for kind in sorted(shown):
        print("directml: %d fuzz cases of class %s, as %s shows: %s"
              % (shown[kind], kind, classes[kind][0], classes[kind][1]))
    print("directml: %s skipped by dmlref fuzz (it prints why for each)" % counts[-1].group(3))
    print("%d passed, %d failed" % (passed, unclassified))
    return 1 if unclassified else 0


def main(argv):
    if len(argv) == 4 and argv[1] == "--fuzz":
        return judge_fuzz(argv[2], argv[3])
    if len(argv) != 3:
        print("usage: " + __doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 3
    report_path, differences_path = argv[1], argv[2]
    try:
        report = json.loads(read_text(report_path))
        results = report["results"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail("%s: not a dmlref check JSON report (%s)" % (report_path, e))
    cases, classes, _ = read_differences(differences_path)
    root = os.path.dirname(os.path.abspath(differences_path))
    for kind, (vector, _) in classes.items():
        if not os.path.isfile(os.path.join(root, "..", "..", vector)):
            fail("%s: the class %s names %s, which does not exist" % (differences_path, kind, vector))

    passed = failed = 0
    shown = {}
    skipped = {why: 0 for _, why in SKIP_REASONS}
    seen = set()
    for r in results:
        name, result, message = r["name"], r["result"], r.get("message", "")
        seen.add(name)
        if result == "pass":
            passed += 1
            if name in cases:
                print("directml: a listed difference did not show: %s (%s)" % (name, cases[name]))
        elif result == "skip":
            why = next((w for start, w in SKIP_REASONS if message.startswith(start)), None)
            if why is None:
                failed += 1
                print("FAIL  %s: a skip this leg does not explain: %s" % (name, message))
            else:
                skipped[why] += 1
        elif name in cases:
            passed += 1
            shown[cases[name]] = shown.get(cases[name], 0) + 1
        else:
            failed += 1
            print("FAIL  %s: a difference %s does not list: %s" % (name, differences_path, message))
    for name in sorted(set(cases) - seen):
        failed += 1
        print("FAIL  %s: listed in %s, but not in the run" % (name, differences_path))

    for kind in sorted(shown):
        print("directml: %d listed differences of class %s, as %s shows: %s"
              % (shown[kind], kind, classes[kind][0], classes[kind][1]))
    for why, count in skipped.items():
        print("directml: %d skipped, %s" % (count, why))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
