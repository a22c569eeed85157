#!/usr/bin/python3
"""The conformance matrix of docs/conformance/README.md and its picture.

    python3 scripts/report/conformance_matrix.py write     rewrites the matrix and matrix.svg
    python3 scripts/report/conformance_matrix.py check     compares them with what they would be

Rows are the behaviours that matter to a backend engineer; each row is a set
of the suite's cases, chosen by what the vector holds (below, ROWS), not by
hand.  Columns are the implementations whose reports (the summaries of
scripts/report/conformance_reports.py) are in docs/conformance/
(IMPLEMENTATIONS).  A cell gives, from the report, how many of the row's
cases passed, failed (errors included) and were skipped (a case the summary
does not list passed), then the differences that explain its cases that did
not simply pass, and what the implementation does there, in words, from
docs/conformance/matrix.json, which also lists every difference found,
classified, with its minimal vector and the case names (globs) it explains.

A report names the suite it ran (the SHA-256 of vectors/MANIFEST and its
number of cases).  A column whose report names another suite than the
committed one is STALE: its cells say so and give no counts, the first row
gives its counts over the suite it ran, and matrix.json's "columns", which
`write` rewrites beside the current suite's digest, marks it "stale": true.

The matrix is written between the lines `<!-- matrix -->` and
`<!-- /matrix -->` of the README; `check` fails when the page, the picture
or matrix.json's "suite" and "columns" are not what the reports, the vectors
and matrix.json give today, when a report is refused
(conformance_reports.problems: its counts do not add up to the suite it
names), or when a report has a failed case that no difference of its
implementation explains.
"""

import fnmatch
import html
import json
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "loaders"))

import numpy as np  # noqa: E402

import dmlref_vectors as dv  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "scripts", "report"))
import conformance_reports as cr  # noqa: E402

DOCS = os.path.join(ROOT, "docs", "conformance")
PAGE = os.path.join(DOCS, "README.md")
PICTURE = os.path.join(DOCS, "matrix.svg")
NOTES = os.path.join(DOCS, "matrix.json")
BEGIN, END = "<!-- matrix -->", "<!-- /matrix -->"

# column: (report file name, heading)
IMPLEMENTATIONS = [
    ("directml-lavapipe", "DirectML 1.15.4 (lavapipe)"),
    ("directml-nvidia", "DirectML 1.15.4 (NVIDIA H200)"),
    ("numpy", "NumPy"),
    ("onnxruntime-node", "ONNX Runtime (CPU)"),
    ("onnx-reference", "onnx.reference"),
    ("torch-cpu", "PyTorch CPU"),
    ("torch-cuda", "PyTorch CUDA"),
    ("jax-gpu", "JAX GPU"),
    ("cupy-gpu", "CuPy GPU"),
]

# the kinds of difference: "dmlref's policy" is a case that asks for
# dmlref's own portable policy where DirectML leaves the answer undefined
KINDS = ("bug", "documented difference", "permitted variant", "dmlref's policy")


# ---------------------------------------------------------------------------
# What each row holds

def index_tensor(v):
    return v.tensors.get("IndicesTensor")


def float_bits(t, test):
    """True when input t is a float tensor with data and some element's
    bits pass test(bits, dtype)."""
    if t is None or not t.dtype.is_float or not t.has_data:
        return False
    return bool(test(np.asarray(t.array()).reshape(-1), t.dtype).any())


def is_nan(u, dtype):
    e, m = {2: (5, 10), 4: (8, 23), 8: (11, 52)}[dtype.esize]
    u = u.astype(np.uint64)
    exp = (u >> np.uint64(m)) & np.uint64((1 << e) - 1)
    return (exp == np.uint64((1 << e) - 1)) & ((u & np.uint64((1 << m) - 1)) != 0)


def is_subnormal(u, dtype):
    e, m = {2: (5, 10), 4: (8, 23), 8: (11, 52)}[dtype.esize]
    u = u.astype(np.uint64)
    exp = (u >> np.uint64(m)) & np.uint64((1 << e) - 1)
    return (exp == 0) & ((u & np.uint64((1 << m) - 1)) != 0)


def is_negative_zero(u, dtype):
    return u.astype(np.uint64) == np.uint64(1 << (8 * dtype.esize - 1))


def is_payload_nan(u, dtype):
    """A NaN other than the canonical quiet one of FORMAT.md ("nan")."""
    canonical = {2: 0x7e00, 4: 0x7fc00000, 8: 0x7ff8000000000000}[dtype.esize]
    return is_nan(u, dtype) & (u.astype(np.uint64) != np.uint64(canonical))


def has_negative_index(v):
    t = index_tensor(v)
    if t is None or t.dtype.name not in ("INT32", "INT64") or not t.has_data:
        return False
    bits = np.asarray(t.array())
    return bool((bits.view({4: np.int32, 8: np.int64}[t.dtype.esize]) < 0).any())


def moved_data(v):
    """The inputs whose elements a gather or Scatter copies."""
    if v.operator == "NONZERO_COORDINATES":
        return []
    return [v.tensors[n] for n in ("InputTensor", "UpdatesTensor") if n in v.tensors]


def has_any_of(v):
    out = v.tensors["OutputTensor"]
    return out.expected is not None and any(isinstance(x, tuple) for x in out.expected)


def laid_out(v, broadcast):
    """A tensor with strides other than packed: with a stride 0 (broadcast)
    or without (strided, padded, permuted)."""
    for t in v.tensors.values():
        if t.strides is None or t.sizes is None:
            continue
        packed = [dv.prod(t.sizes[i + 1:]) for i in range(len(t.sizes))]
        zero = any(st == 0 and s > 1 for s, st in zip(t.sizes, t.strides))
        if zero == broadcast and list(t.strides) != packed and (broadcast or not zero):
            return True
    return False


def valid(v):
    return v.expect_error is None


def out_of_range_error(v):
    return v.expect_error is not None and v.expect_error["status"] == "DMLREF_ERROR_INDEX_OUT_OF_RANGE"


# row id -> (title, rule ids, selector)
ROWS = [
    ("negative", "negative indices", "R-IX-2", lambda v: valid(v) and has_negative_index(v)),
    ("oob", "out-of-range indices (refused, D1/D2)", "R-IX-4, D1, D2", out_of_range_error),
    ("clamp", "out-of-range indices, `\"oob\": \"clamp\"`", "R-IX-5",
     lambda v: v.oob == "clamp"),
    ("index64", "64-bit indices (INT64, UINT64)", "R-IX-1",
     lambda v: valid(v) and index_tensor(v) is not None and index_tensor(v).dtype.esize == 8),
    ("strides", "strides, padding, permuted layouts", "R-TD-4, R-TD-5",
     lambda v: valid(v) and laid_out(v, broadcast=False)),
    ("broadcast", "broadcast inputs (stride 0)", "R-TD-6",
     lambda v: valid(v) and laid_out(v, broadcast=True)),
    ("nonzero-signed-zero-nan", "NonZero: -0.0 and NaN", "R-NZ-8, R-NZ-9",
     lambda v: valid(v) and v.operator == "NONZERO_COORDINATES" and float_bits(
         v.tensors["InputTensor"], lambda u, d: is_negative_zero(u, d) | is_nan(u, d))),
    ("nonzero-subnormal", "NonZero: subnormals", "R-NZ-10",
     lambda v: valid(v) and bool(v.variants)),
    ("copy-subnormal", "subnormals copied", "D12",
     lambda v: valid(v) and any(float_bits(t, is_subnormal) for t in moved_data(v))),
    ("copy-nan", "NaN payloads copied", "D12",
     lambda v: valid(v) and any(float_bits(t, is_payload_nan) for t in moved_data(v))),
    ("duplicates", "Scatter: duplicate targets", "R-SC-10",
     lambda v: valid(v) and v.operator == "SCATTER_ELEMENTS" and has_any_of(v)),
    ("large", "large tensors (2^20 elements or more)", "",
     lambda v: valid(v) and any(t.sizes and dv.prod(t.sizes) >= 1 << 20 for t in v.tensors.values())),
    ("invalid", "invalid descriptors (refused)", "R-TD, R-GE, R-SC, R-GN, R-NZ",
     lambda v: v.expect_error is not None and not out_of_range_error(v)),
] + [
    ("op-" + op.lower(), op, "", (lambda op: lambda v: valid(v) and v.operator == op)(op))
    for op in dv.OPERATORS
] + [
    ("dtype-" + name.lower(), name, "R-TD-1",
     (lambda name: lambda v: valid(v) and v.tensors["InputTensor"].dtype.name == name)(name))
    for name in ("FLOAT64", "FLOAT32", "FLOAT16", "INT64", "INT32", "INT16", "INT8",
                 "UINT64", "UINT32", "UINT16", "UINT8")
]


def rows_of_cases():
    """row id -> the names of its cases, over the committed suite."""
    members = {row[0]: [] for row in ROWS}
    for root, dirs, files in os.walk(os.path.join(ROOT, "vectors")):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(".json") or root == os.path.join(ROOT, "vectors"):
                continue
            v = dv.load(os.path.join(root, f))
            for row_id, _, _, select in ROWS:
                if select(v):
                    members[row_id].append(v.name)
    return members


# ---------------------------------------------------------------------------
# Cells

class Report:
    """One column: the summary, whether it ran the committed suite, and
    its listed cases, name -> (result, message); a case of the current
    suite it does not list passed."""

    def __init__(self, summary, suite):
        self.summary = summary
        self.stale = not cr.is_current(summary, suite)
        self.results = {c["name"]: (c["result"], c["message"]) for c in summary.get("cases", [])}

    def result(self, case):
        return self.results.get(case, ("pass", ""))


def load_reports(suite, cases):
    """implementation -> Report, for the reports present, and the problems
    of those refused (conformance_reports.problems)."""
    reports, problems = {}, []
    for name, _ in IMPLEMENTATIONS:
        path = os.path.join(DOCS, name + ".json")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
        wrong = cr.problems(summary, suite, cases)
        if wrong:
            problems += ["%s.json: refused: %s" % (name, w) for w in wrong]
            continue
        reports[name] = Report(summary, suite)
    return reports, problems


def tally(report, cases):
    """Counts of pass, fail (errors included) and skip over `cases`, and of
    the passes that matched a permitted variant."""
    counts = {"pass": 0, "fail": 0, "skip": 0, "variant": 0}
    for c in cases:
        result, message = report.result(c)
        counts["fail" if result == "error" else result] += 1
        counts["variant"] += result == "pass" and "permitted variant" in message
    return counts


def explains(difference, case):
    return any(fnmatch.fnmatchcase(case, pattern) for pattern in difference["cases"])


def cell(counts, total, behaviour, cited):
    if not total:
        return "-"
    words = "%d/%d pass" % (counts["pass"], total)
    if counts["variant"]:
        words += " (%d as a permitted variant)" % counts["variant"]
    if counts["fail"]:
        words += ", **%d fail**" % counts["fail"]
    if counts["skip"]:
        words += ", %d skip" % counts["skip"]
    if cited:
        words += " " + " ".join("[%s](#%s)" % (d["id"], d["id"]) for d in cited)
    if behaviour:
        words += "<br>" + behaviour
    return words


def stale_words(report):
    s = report.summary
    counted = ", ".join("%d %s" % (s["summary"][v], w) for v, w in (
        ("passed", "pass"), ("failed", "fail"), ("skipped", "skip"), ("errors", "error"))
        if s["summary"][v] or v == "passed")
    return "**STALE**: ran another suite (%s): %s there" % (cr.describe(s), counted)


def matrix(members, reports, notes, suite, suite_cases):
    """The markdown of the matrix, and the problems that make it wrong: a
    failed case that no difference of its implementation explains (in
    every report, stale or not)."""
    problems = []
    shown = [(n, h) for n, h in IMPLEMENTATIONS if n in reports]
    for name, _ in shown:
        own = [d for d in notes["differences"] if d["implementation"] == name]
        for case, (result, _) in sorted(reports[name].results.items()):
            if result in ("fail", "error") and not any(explains(d, case) for d in own):
                problems.append("%s: %s %s, and no difference in matrix.json explains it"
                                % (name, case, result))
    lines = ["| behaviour (rule) | cases | " + " | ".join(
                 h + (" (**STALE**)" if reports[n].stale else "") for n, h in shown) + " |",
             "|---|---|" + "---|" * len(shown)]
    everything = sorted(suite_cases)
    lines.append("| the suite (vectors/MANIFEST, sha256 %s) | %d | %s |" % (
        suite["manifest_sha256"][:12], suite["cases"], " | ".join(
            stale_words(reports[n]) if reports[n].stale else
            cell(tally(reports[n], everything), len(everything), None, [])
            for n, _ in shown)))
    for row_id, title, rules, _ in ROWS:
        cases = members[row_id]
        cells = []
        for name, _ in shown:
            report = reports[name]
            behaviour = notes["behaviours"].get(row_id, {}).get(name)
            if report.stale:
                cells.append("-" if not cases else "*stale*" + ("<br>" + behaviour if behaviour else ""))
                continue
            unusual = [c for c in cases if c in report.results]
            cited = [d for d in notes["differences"] if d["implementation"] == name
                     and any(explains(d, c) for c in unusual)]
            cells.append(cell(tally(report, cases), len(cases), behaviour, cited))
        heading = "%s (%s)" % (title, rules) if rules else title
        lines.append("| %s | %d | %s |" % (heading, len(cases), " | ".join(cells)))
    return "\n".join(lines), problems


# ---------------------------------------------------------------------------
# The picture

def picture(members, reports):
    """An SVG grid: a square per row and implementation, green when every
    case of the row passed, red when one failed, amber when some were
    skipped and none failed, light green when all passed, some as a
    permitted variant, light grey when the row holds no case; a stale
    column (its report ran another suite) is dark grey, STALE in its
    heading and "stale" in every square."""
    shown = [(n, h) for n, h in IMPLEMENTATIONS if n in reports]
    label_w, cell_w, cell_h, head_h = 300, 140, 22, 60
    width, height = label_w + cell_w * len(shown) + 10, head_h + cell_h * len(ROWS) + 56
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    for i, (name, heading) in enumerate(shown):
        x = label_w + i * cell_w + cell_w // 2
        # the heading's words in brackets on a line of their own, then STALE
        lines = [(w if n == 0 else "(" + w, "black") for n, w in enumerate(heading.split(" ("))]
        lines += [("STALE", "#b00020")] if reports[name].stale else []
        for k, (words, colour) in enumerate(reversed(lines)):
            out.append('<text x="%d" y="%d" text-anchor="middle" font-weight="bold" fill="%s">%s</text>'
                       % (x, head_h - 8 - 14 * k, colour, html.escape(words)))
    for j, (row_id, title, _, _) in enumerate(ROWS):
        y = head_h + j * cell_h
        out.append('<text x="6" y="%d">%s</text>' % (y + 15, html.escape(title.replace("`", ""))))
        cases = members[row_id]
        for i, (name, _) in enumerate(shown):
            counts = tally(reports[name], cases)
            if not cases:
                colour, text = "#dddddd", "-"
            elif reports[name].stale:
                colour, text = "#9e9e9e", "stale"
            elif counts["fail"]:
                colour, text = "#e57373", "%d fail" % counts["fail"]
            elif counts["skip"]:
                colour, text = "#ffd54f", "%d skip" % counts["skip"]
            elif counts["variant"]:
                colour, text = "#aed581", "%d ok, %d variant" % (counts["pass"], counts["variant"])
            else:
                colour, text = "#81c784", "%d ok" % counts["pass"]
            x = label_w + i * cell_w
            out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="white"/>'
                       % (x, y, cell_w, cell_h, colour))
            out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>'
                       % (x + cell_w // 2, y + 15, text))
    y = head_h + len(ROWS) * cell_h + 24
    out.append('<text x="6" y="%d">green: all passed; red: some failed (errors included); '
               'amber: some skipped, none failed; light green: all passed, some as a '
               'permitted variant</text>' % y)
    out.append('<text x="6" y="%d">dark grey, stale: the report ran another suite '
               '(vectors/MANIFEST changed since); rerun it to fill the column</text>' % (y + 16))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------

def differences_table(notes):
    lines = ["| id | implementation | what differs | kind | minimal vector |", "|---|---|---|---|---|"]
    for d in notes["differences"]:
        lines.append("| <a id=\"%s\"></a>[%s](%s) | %s | %s | %s | [%s](%s) |" % (
            d["id"], d["id"], d["readme"], d["implementation"], d["what"], d["kind"],
            os.path.basename(d["vector"]), d["vector"]))
    return "\n".join(lines)


def columns(reports, suite):
    """matrix.json's generated part: the current suite, and each column's
    report, the suite it ran, and whether that makes it stale."""
    return {"suite": suite,
            "columns": [{"report": n, "heading": h, "stale": reports[n].stale,
                         "suite": reports[n].summary["suite"]}
                        for n, h in IMPLEMENTATIONS if n in reports]}


def render():
    """The page's block, the picture, matrix.json as it should be, the
    problems, and a proof that the check of failures can fail: the problems
    with one difference that explains a failure of a current column left
    out of matrix.json (None when none does)."""
    with open(NOTES, encoding="utf-8") as f:
        notes = json.load(f)
    suite, suite_cases = cr.current_suite()
    members = rows_of_cases()
    reports, problems = load_reports(suite, suite_cases)
    table, unexplained = matrix(members, reports, notes, suite, suite_cases)
    problems += unexplained
    without_one = None
    for d in notes["differences"]:
        report = reports.get(d["implementation"])
        failed = [c for c, (r, _) in (report.results.items() if report and not report.stale else [])
                  if r in ("fail", "error") and explains(d, c)]
        if failed:
            fewer = dict(notes, differences=[x for x in notes["differences"] if x is not d])
            without_one = (d["id"], matrix(members, reports, fewer, suite, suite_cases)[1])
            break
    for d in notes["differences"]:
        for path in (d["vector"], d["readme"]):
            if not os.path.exists(os.path.join(DOCS, path.split("#")[0])):
                problems.append("difference %s: no file %s" % (d["id"], path))
        if d["kind"] not in KINDS:
            problems.append("difference %s: kind %r is not one of %s"
                            % (d["id"], d["kind"], ", ".join(KINDS)))
    stale = [h for n, h in IMPLEMENTATIONS if n in reports and reports[n].stale]
    note = ["", "STALE columns (%s): their reports ran another suite than vectors/MANIFEST's, "
            "and are not counted against it; rerun them to fill the column "
            "(the commands are below)." % ", ".join(stale)] if stale else []
    block = "\n".join([BEGIN, table] + note + ["", "Differences found, each with the smallest vector "
                       "that shows it:", "", differences_table(notes), END])
    generated = dict(notes, **columns(reports, suite))
    text = json.dumps(generated, indent=2, ensure_ascii=False) + "\n"
    return block, picture(members, reports), text, problems, without_one


def main(argv):
    if len(argv) != 2 or argv[1] not in ("write", "check"):
        sys.exit("usage: conformance_matrix.py write|check")
    block, svg, notes_text, problems, without_one = render()
    with open(PAGE) as f:
        page = f.read()
    if BEGIN not in page or END not in page:
        sys.exit("conformance_matrix: %s has no %s ... %s lines" % (PAGE, BEGIN, END))
    start, stop = page.index(BEGIN), page.index(END) + len(END)
    new_page = page[:start] + block + page[stop:]
    if argv[1] == "write":
        with open(PAGE, "w") as f:
            f.write(new_page)
        with open(PICTURE, "w") as f:
            f.write(svg)
        with open(NOTES, "w", encoding="utf-8") as f:
            f.write(notes_text)
        for p in problems:
            print("conformance_matrix: " + p, file=sys.stderr)
        return 1 if problems else 0
    checks = [(page == new_page, "docs/conformance/README.md's matrix is what the reports give"),
              (os.path.exists(PICTURE) and open(PICTURE).read() == svg,
               "docs/conformance/matrix.svg is what the reports give"),
              (open(NOTES, encoding="utf-8").read() == notes_text,
               "docs/conformance/matrix.json's \"suite\" and \"columns\" are the current suite "
               "and the suite each report ran (stale: another)")]
    checks += [(False, p) for p in problems]
    if without_one:
        checks.append((bool(without_one[1]), "without the difference %s, the cases it explains "
                       "are found unexplained" % without_one[0]))
    if not problems:
        checks.append((True, "every report's counts add up to the suite it names; every failed "
                             "case is explained by a difference of its implementation; every "
                             "difference has its vector, page and kind"))
    failed = 0
    for ok, what in checks:
        print("%s - %s" % ("ok" if ok else "FAIL", what))
        failed += not ok
    print("%d passed, %d failed" % (len(checks) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
