#!/usr/bin/python3
"""The conformance matrix on a suite that grew: columns not rerun are STALE.

    python3 tests/cross/test_matrix.py

In a temporary copy of the reports, the matrix's scripts and vectors/, a
vector is added to the suite (its file and its MANIFEST line), and then:

  - the matrix check fails on the grown suite until the matrix is written
    again (matrix.json names the suite it was made from);
  - written again, every column is STALE, since no report was rerun: in
    matrix.json ("stale": true, beside the grown suite's digest), in the
    README's block (STALE in every heading, no counts in any cell) and in
    matrix.svg; and the check passes;
  - a report claiming the grown suite's digest whose counts do not add up
    to it is refused, by the matrix check and by conformance_reports.py
    check;
  - a report of the grown suite whose counts add up (as a rerun in which
    the new case passed would give) fills its column again, with counts
    that add up to every row's cases, while the others stay STALE.

The verdicts on the page are shown to fail: on a matrix.json with one
column not marked stale, on a block with counts in a stale column, as the
matrix printed before columns could be stale (e.g. 721/722 pass), and on
one whose current column counts a case too few.
Prints each verdict, ends with "N passed, N failed"; exits 1 when one failed.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "loaders"))
import dmlref_vectors as dv  # noqa: E402

PYTHON = "/usr/bin/python3"
SOURCE = "gather_elements/float16/1d/axis0_int32_packed"   # copied as the new vector
ADDED = "gather_elements/float16/1d/zz_added_axis0_int32_packed"
RERUN = "numpy"                                              # the report "rerun"

passed = failed = 0


def verdict(ok, what, detail=""):
    global passed, failed
    print("%s - %s" % ("ok" if ok else "FAIL", what))
    if not ok and detail:
        print("  " + detail.strip().replace("\n", "\n  "))
    passed, failed = passed + bool(ok), failed + (not ok)


def copy_tree(tmp):
    for rel in ("scripts/report/conformance_matrix.py", "scripts/report/conformance_reports.py",
                "scripts/loaders/dmlref_vectors.py", "docs/directml.md"):
        os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
        shutil.copyfile(os.path.join(ROOT, rel), os.path.join(tmp, rel))
    shutil.copytree(os.path.join(ROOT, "vectors"), os.path.join(tmp, "vectors"))
    shutil.copytree(os.path.join(ROOT, "docs", "conformance"), os.path.join(tmp, "docs", "conformance"))


def grow(tmp):
    """Adds ADDED, a copy of SOURCE under its own name, to the copy's suite."""
    with open(os.path.join(tmp, "vectors", SOURCE + ".json"), encoding="utf-8") as f:
        text = f.read()
    text = text.replace('"name": "%s"' % SOURCE, '"name": "%s"' % ADDED, 1)
    with open(os.path.join(tmp, "vectors", ADDED + ".json"), "w", encoding="utf-8") as f:
        f.write(text)
    manifest = os.path.join(tmp, "vectors", "MANIFEST")
    with open(manifest, encoding="utf-8") as f:
        lines = f.read().splitlines()
    lines.append("%016x  %s.json" % (dv.xxh3_64(text.encode("utf-8")), ADDED))
    lines.sort(key=lambda line: line.split("  ", 1)[1])
    with open(manifest, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return dv.check_manifest(os.path.join(tmp, "vectors"))


def suite_of(manifest):
    """The suite a report names: the SHA-256 of its MANIFEST's bytes, and
    the number of its cases (lines)."""
    with open(manifest, "rb") as f:
        data = f.read()
    return {"manifest_sha256": hashlib.sha256(data).hexdigest(), "cases": data.count(b"\n")}


def run(tmp, script, *args):
    p = subprocess.run([PYTHON, os.path.join(tmp, "scripts", "report", script)] + list(args),
                       capture_output=True, text=True, cwd=tmp)
    return p.returncode, p.stdout + p.stderr


def block_of(tmp):
    with open(os.path.join(tmp, "docs", "conformance", "README.md"), encoding="utf-8") as f:
        page = f.read()
    return page[page.index("<!-- matrix -->"):page.index("<!-- /matrix -->")]


def table(block):
    """The matrix's headings and rows (cells split), from the README block."""
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in block.splitlines() if line.startswith("| ")]
    end = next(i for i, r in enumerate(rows) if r[0] == "id")
    return rows[0], [r for r in rows[1:end] if not r[0].startswith("---")]


CELL = re.compile(r"^(\d+)/(\d+) pass(?: \(\d+ as a permitted variant\))?(?:, \*\*(\d+) fail\*\*)?"
                  r"(?:, (\d+) skip)?(?: |<br>|$)")


def cells_add_up(block):
    """Problems with the block: a stale column with counts, a current one
    whose counts do not add up to its row's cases. [] when none."""
    headings, rows = table(block)
    stale = [h.endswith("(**STALE**)") for h in headings]
    found = []
    for row in rows:
        n = int(row[1])
        for col, text in enumerate(row[2:], 2):
            if stale[col]:
                if row is rows[0]:
                    ok = text.startswith("**STALE**: ran another suite")
                else:
                    ok = text == "-" if n == 0 else text.startswith("*stale*")
                if not ok:
                    found.append("%s, %s: a stale column shows %r" % (headings[col], row[0], text[:40]))
                continue
            if n == 0:
                if text != "-":
                    found.append("%s, %s: %r for a row without cases" % (headings[col], row[0], text))
                continue
            m = CELL.match(text)
            if not m or int(m.group(2)) != n or sum(int(g or 0) for g in (m.group(1), m.group(3),
                                                                           m.group(4))) != n:
                found.append("%s, %s: %r does not add up to the row's %d cases"
                             % (headings[col], row[0], text[:40], n))
    return found


def with_cell(block, title, column, text):
    """The block with the cell of row `title` and column `column` replaced."""
    lines = block.splitlines()
    for i, line in enumerate(lines):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells[0] == title:
            cells[column] = text
            lines[i] = "| " + " | ".join(cells) + " |"
    return "\n".join(lines)


def all_stale(notes, suite, but=()):
    """Problems with matrix.json's generated part: the suite is not the
    grown one, or a column other than `but` is not marked stale."""
    found = [] if notes.get("suite") == suite else ["matrix.json names the suite %s" % notes.get("suite")]
    for c in notes.get("columns", []):
        if c["stale"] != (c["report"] not in but):
            found.append("matrix.json: column %s is %s"
                         % (c["report"], "stale" if c["stale"] else "not stale"))
    if not notes.get("columns"):
        found.append("matrix.json has no columns")
    return found


def main():
    with tempfile.TemporaryDirectory(prefix="dmlref-matrix-") as tmp:
        copy_tree(tmp)
        docs = os.path.join(tmp, "docs", "conformance")
        wrong = grow(tmp)
        verdict(not wrong, "a vector added to the copy's suite, its MANIFEST line with it", "\n".join(wrong))
        suite = suite_of(os.path.join(tmp, "vectors", "MANIFEST"))

        status, out = run(tmp, "conformance_matrix.py", "check")
        verdict(status != 0 and "matrix.json's \"suite\"" in out,
                "the matrix check fails on the grown suite until the matrix is written again", out)

        status, out = run(tmp, "conformance_matrix.py", "write")
        verdict(status == 0, "conformance_matrix.py write on the grown suite", out)
        with open(os.path.join(docs, "matrix.json"), encoding="utf-8") as f:
            notes = json.load(f)
        wrong = all_stale(notes, suite)
        verdict(not wrong, "matrix.json: every column is stale, beside the grown suite (%d cases)"
                % suite["cases"], "\n".join(wrong))
        block = block_of(tmp)
        headings, _ = table(block)
        verdict(all(h.endswith("(**STALE**)") for h in headings[2:]) and len(headings) > 2,
                "README.md: every column's heading says STALE", " | ".join(headings))
        wrong = cells_add_up(block)
        verdict(not wrong, "README.md: no stale column shows counts", "\n".join(wrong[:5]))
        with open(os.path.join(docs, "matrix.svg"), encoding="utf-8") as f:
            svg = f.read()
        verdict(svg.count(">STALE</text>") == len(headings) - 2,
                "matrix.svg: every column's heading says STALE")
        status, out = run(tmp, "conformance_matrix.py", "check")
        verdict(status == 0, "the matrix check passes on the matrix written again", out)

        # The verdicts above can fail: one column not marked stale, and a
        # stale column's cell with counts, as the matrix printed before.
        doctored = json.loads(json.dumps(notes))
        doctored["columns"] = doctored.get("columns") or [{"report": RERUN, "stale": True}]
        doctored["columns"][0]["stale"] = False
        verdict(bool(all_stale(doctored, suite)), "a matrix.json with a column not marked stale is caught")
        n = int(next(r for r in table(block)[1] if r[0] == "GATHER_ELEMENTS")[1])
        old = with_cell(block, "GATHER_ELEMENTS", 2, "%d/%d pass" % (n - 1, n))
        verdict(bool(cells_add_up(old)), "a block with %d/%d pass in a column not rerun is caught"
                % (n - 1, n))

        # A report claiming the grown suite whose counts do not add up.
        path = os.path.join(docs, RERUN + ".json")
        with open(path, encoding="utf-8") as f:
            committed = json.load(f)
        bad = json.loads(json.dumps(committed))
        bad["suite"] = dict(suite)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(bad, f, indent=1)
        status, out = run(tmp, "conformance_matrix.py", "check")
        verdict(status != 0 and "%s.json: refused" % RERUN in out,
                "the matrix check refuses a report claiming the grown suite's digest with "
                "counts that do not add up to it", out)
        status, out = run(tmp, "conformance_reports.py", "check")
        short = "add up to %d cases, not the %d" % (suite["cases"] - 1, suite["cases"])
        verdict(status != 0 and short in out,
                "conformance_reports.py check refuses it too", out)

        # The report as a rerun in which the new case passed gives it.
        good = json.loads(json.dumps(committed))
        good["suite"] = dict(suite)
        good["summary"]["passed"] += 1
        good["operators"][ADDED.split("/")[0].upper()]["passed"] += 1
        with open(path, "w", encoding="utf-8") as f:
            json.dump(good, f, indent=1)
        status, out = run(tmp, "conformance_matrix.py", "write")
        verdict(status == 0, "conformance_matrix.py write with %s rerun" % RERUN, out)
        with open(os.path.join(docs, "matrix.json"), encoding="utf-8") as f:
            notes = json.load(f)
        wrong = all_stale(notes, suite, but=(RERUN,))
        verdict(not wrong, "matrix.json: the column rerun is current, every other stale", "\n".join(wrong))
        block = block_of(tmp)
        wrong = cells_add_up(block)
        headings, rows = table(block)
        verdict(not wrong and sum(not h.endswith("(**STALE**)") for h in headings[2:]) == 1,
                "README.md: the column rerun counts every row's cases, the others are STALE",
                "\n".join(wrong[:5]))
        column = headings.index(next(h for h in headings if not h.endswith("(**STALE**)") and h != "cases"
                                     and h != headings[0]))
        row = next(r for r in rows if r[0] == "GATHER_ELEMENTS")
        m = CELL.match(row[column])
        fewer = row[column].replace(m.group(1) + "/", "%d/" % (int(m.group(1)) - 1), 1)
        verdict(bool(cells_add_up(with_cell(block, "GATHER_ELEMENTS", column, fewer))),
                "a block whose current column shows %r against %s's %s is caught" % (fewer, row[0], row[1]))
        status, out = run(tmp, "conformance_matrix.py", "check")
        verdict(status == 0, "the matrix check passes", out)
    print("the matrix on a grown suite: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
