#!/usr/bin/python3
"""Tests of scripts/loaders/dmlref_vectors.py against hostile files and vectors.

    python3 tests/cross/test_loader.py [--dmlref BUILD/dmlref]

  * a valid vector that broadcasts one float32 to 2^32-1 logical elements
    (tests/cross/loader/broadcast_4294967295_elements.json) loads, gives its input
    buffers and checks outputs in well under a second and 100 MB, with numpy
    and without it;
  * what is not a regular file (a FIFO, /dev/zero, a folder) is refused at
    once with one line, by load(), by the command line and by
    scripts/loaders/export_onnx.py, each run under a timeout;
  * the caps: a file past its limit, a case past memory_cap;
  * the number token -0 is refused wherever it is, with the message of
    dmlref's own reader (compared with it when --dmlref is given);
  * tests/cli/malformed/* and a few hundred seeded mutations of vectors (cut
    short, values of other types, huge numbers, other nesting) fail with a
    VectorError naming the source and a JSON path, and nothing else escapes.

Each check prints "ok - WHAT" or "FAIL - WHAT"; the last line is
`N passed, N failed`.
"""

import json
import os
import random
import resource
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "loaders"))

import dmlref_vectors as dv  # noqa: E402

BROADCAST = os.path.join(ROOT, "tests", "cross", "loader", "broadcast_4294967295_elements.json")
LOADER = os.path.join(ROOT, "scripts", "loaders", "dmlref_vectors.py")
EXPORT = os.path.join(ROOT, "scripts", "loaders", "export_onnx.py")
# The acceptance is a second and 100 MB; the time asserted leaves room for a
# loaded machine, and both are printed.
SECONDS, MEGABYTES = 3.0, 100


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, detail=""):
        print("%s - %s%s" % ("ok" if ok else "FAIL", what, "" if ok or not detail else ": " + detail))
        self.passed, self.failed = self.passed + bool(ok), self.failed + (not ok)


# The child measures itself: the time of loading and checking, and its peak
# resident size (ru_maxrss, KiB on Linux), the interpreter and numpy included.
MEASURE = r"""
import resource, sys, time
sys.path.insert(0, sys.argv[1])
import dmlref_vectors as dv
if sys.argv[3] == "pure":
    dv.np = None
start = time.monotonic()
v = dv.load(sys.argv[2])
inputs = v.input_buffers()
out = v.outputs[0]
good = v.check_outputs([out.pack([1.0, 1.0])])
bad = v.check_outputs([out.pack([1.0, 2.0])])
elements = v.inputs[0].bits() if dv.np is None else v.inputs[0].array()
last = elements[len(elements) - 1] if dv.np is None else elements[-1, -1]
seconds = time.monotonic() - start
print(len(inputs[0]), good is None, bad is not None, int(last) == 0x3F800000, len(v.inputs[0].bits())
      if dv.np is None else v.inputs[0].array().size, seconds,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def test_broadcast(c):
    modes = ["numpy", "pure"] if dv.np is not None else ["pure"]
    for mode in modes:
        proc = subprocess.run([sys.executable, "-c", MEASURE, os.path.join(ROOT, "scripts", "loaders"), BROADCAST,
                               mode], capture_output=True, text=True, timeout=60)
        fields = proc.stdout.split()
        what = "broadcast of 2^32-1 elements (%s)" % mode
        if proc.returncode != 0 or len(fields) != 7:
            c.check(False, what, "".join(proc.stderr.strip().splitlines()[-1:]) or proc.stdout)
            continue
        size, good, bad, last, count, seconds, mib = fields
        seconds, mib = float(seconds), int(mib)
        print("# %s: loaded and checked in %.3f s, peak %d MiB" % (what, seconds, mib))
        c.check(size == "4" and good == bad == last == "True" and count == str(2**32 - 1),
                what + ": a 4-byte buffer, outputs judged, the last element read",
                " ".join(fields))
        c.check(seconds < SECONDS, what + ": under %g s" % SECONDS, "%.3f s" % seconds)
        c.check(mib < MEGABYTES, what + ": under %d MB" % MEGABYTES, "%d MiB" % mib)
    v = dv.load(BROADCAST)
    try:
        v.inputs[0].bits() if dv.np is not None else list(v.inputs[0].bits()[:0])
        c.check(dv.np is None, "expanding the broadcast's logical elements is refused under the cap")
    except dv.VectorError as e:
        c.check("$.tensors.InputTensor: the case needs more than the memory cap" in str(e)
                and str(e).startswith(BROADCAST), "expanding the broadcast is refused: one line", str(e))


def one_line_error(proc):
    lines = proc.stderr.strip().splitlines()
    return proc.returncode == 1 and len(lines) == 1, (lines or [""])[-1]


def test_not_regular(c):
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        vector = os.path.join(tmp, "v.json")
        with open(vector, "w") as f:
            f.write(open(BROADCAST).read())
        cases = [(fifo, "a FIFO"), ("/dev/zero", "a character device"), (tmp, "a directory")]
        for path, kind in cases:
            try:
                dv.load(path)
                c.check(False, "load(%s) is refused" % kind)
            except dv.VectorError as e:
                c.check(str(e) == "%s: not a regular file (%s): vectors are read from regular files only"
                        % (path, kind), "load(%s) is refused at once" % kind, str(e))
            commands = [
                ("dmlref_vectors.py check", [sys.executable, LOADER, "check", path, vector]),
                ("dmlref_vectors.py inputs", [sys.executable, LOADER, "inputs", path, tmp]),
                ("dmlref_vectors.py check OUTPUT", [sys.executable, LOADER, "check", vector, path]),
            ]
            if path != tmp:  # export_onnx searches a folder for vectors
                commands.append(("export_onnx.py", [sys.executable, EXPORT,
                                                    os.path.join(tmp, "out-%d" % len(kind)), path]))
            for name, argv in commands:
                try:
                    proc = subprocess.run(["timeout", "20"] + argv, capture_output=True, text=True)
                except OSError as e:
                    c.check(False, "%s on %s" % (name, kind), str(e))
                    continue
                ok, line = one_line_error(proc)
                c.check(ok and ("not a regular file (%s)" % kind) in line,
                        "%s on %s: exit 1, one line" % (name, kind), "exit %d: %s" % (proc.returncode, line))
            verdict = [sys.executable, os.path.join(ROOT, "scripts", "check", "directml_verdict.py"), path, vector]
            proc = subprocess.run(["timeout", "20"] + verdict, capture_output=True, text=True)
            lines = proc.stderr.strip().splitlines()
            c.check(proc.returncode == 2 and len(lines) == 1 and ("not a regular file (%s)" % kind) in lines[0],
                    "directml_verdict.py on %s: exit 2, one line" % kind, "exit %d: %s" % (proc.returncode, lines))
        big = os.path.join(tmp, "big.json")
        with open(big, "wb") as f:
            f.write(b" " * 101)
        try:
            dv.read_regular_file(big, limit=100)
            c.check(False, "a file past the limit is refused")
        except dv.VectorError as e:
            c.check(str(e) == "%s: larger than 100 bytes" % big, "a file past the limit is refused", str(e))


def test_memory_cap(c):
    text = open(BROADCAST).read().replace('"strides": [0, 0], ', "").replace(
        '"sizes": [65535, 65537]', '"sizes": [1024, 1024]')
    try:
        dv.loads(text, source="cap.json", memory_cap=1 << 20)
        c.check(False, "a buffer past memory_cap is refused")
    except dv.VectorError as e:
        c.check(str(e).startswith("cap.json: $.tensors.InputTensor: the case needs more than the memory "
                                  "cap of 1048576 bytes: 4194304 bytes for its buffer"),
                "a buffer past memory_cap is refused, naming the tensor", str(e))
    v = dv.loads(text, source="cap.json", memory_cap=5 << 20)
    c.check(len(v.input_buffers()[0]) == 4 << 20, "the same case under a larger memory_cap loads")


MINUS_ZERO = [  # (where, old, new): the token -0 written into the doc example
    ("an INT32 element", '"dtype": "UINT32", "sizes": [2, 3], "data": [1, 2, 0, 2, 0, 0]',
     '"dtype": "INT32", "sizes": [2, 3], "data": [1, 2, -0, 2, 0, 0]'),
    ("a FLOAT32 element", "[1, 2, 3, 4, 5, 6, 7, 8, 9]", "[1, 2, 3, 4, -0, 6, 7, 8, 9]"),
    ("an attribute", '"Axis": 0', '"Axis": -0'),
    ("an expected element", "[4, 8, 3, 7, 2, 3]", "[4, 8, 3, 7, 2, -0]"),
]
DOC_EXAMPLE = os.path.join(ROOT, "vectors", "gather_elements", "float32", "2d", "doc_example.json")


def test_minus_zero(c, dmlref):
    base = open(DOC_EXAMPLE).read()
    with tempfile.TemporaryDirectory() as tmp:
        for where, old, new in MINUS_ZERO:
            text = base.replace(old, new, 1)
            if text == base:
                c.check(False, "-0 in %s: the edit applies" % where)
                continue
            path = os.path.join(tmp, "minus_zero.json")
            with open(path, "w") as f:
                f.write(text)
            at = text.index("-0")
            line = text.count("\n", 0, at) + 1
            column = at - text.rfind("\n", 0, at)
            want = ("%s: $: line %d, column %d: the number -0 is ambiguous in JSON readers: "
                    "write -0.0 (negative zero) or 0" % (path, line, column))
            try:
                dv.load(path)
                c.check(False, "-0 in %s is refused" % where)
            except dv.VectorError as e:
                c.check(str(e) == want, "-0 in %s is refused as dmlref refuses it" % where, str(e))
            if dmlref:
                proc = subprocess.run([dmlref, "eval", path], capture_output=True, text=True)
                c.check(proc.returncode == 2 and proc.stderr.strip() == want,
                        "-0 in %s: dmlref says the same" % where, proc.stderr.strip())
        for fine in ('"-0"', "-0.0", "-0e0", "1e-0"):
            text = base.replace('"notes": "', '"notes": "%s ' % fine.replace('"', "'"), 1).replace(
                "[1, 2, 3, 4, 5, 6, 7, 8, 9]", "[1, 2, 3, 4, %s, 6, 7, 8, 9]" % fine, 1)
            try:
                dv.loads(text, source="fine.json")
                c.check(fine != '"-0"', "%s is no number token -0" % fine)
            except dv.VectorError as e:
                c.check(fine == '"-0"' and "-0 is ambiguous" not in str(e),
                        "%s is no number token -0" % fine, str(e))


def mutations(text, rng):
    """Edits of a vector's text: cut short, a value of another type, huge
    numbers, other nesting, a key dropped."""
    doc = json.loads(text)
    edits = []
    n = len(text)
    for _ in range(20):
        edits.append(text[:rng.randrange(n)])
    values = ["null", "true", '"x"', "{}", "[]", "[[1]]", '{"any_of": []}', "1e308", "1e999",
              "18446744073709551616", "-9223372036854775809", "4294967296", "0.5", '"0x7fc00000"',
              "[" * 50 + "]" * 50, '"' + "a" * 300 + '"', "-1", "1.0", '"inf"', '"nan"']

    def paths(x, at):
        yield at
        if isinstance(x, dict):
            for k, v in x.items():
                yield from paths(v, at + [k])
        elif isinstance(x, list):
            for i, v in enumerate(x[:4]):
                yield from paths(v, at + [i])
    every = list(paths(doc, []))
    for _ in range(40):
        at = rng.choice(every[1:])
        copy = json.loads(text)
        parent = copy
        for k in at[:-1]:
            parent = parent[k]
        choice = rng.random()
        if choice < 0.15 and isinstance(parent, dict):
            del parent[at[-1]]
            edits.append(json.dumps(copy))
            continue
        if choice < 0.3:
            parent[at[-1]] = [parent[at[-1]]]  # one level deeper
            edits.append(json.dumps(copy))
            continue
        parent[at[-1]] = "@@"
        edits.append(json.dumps(copy).replace('"@@"', rng.choice(values)))
    return edits


def test_fuzz(c):
    """Only VectorError escapes, and each names the source and a JSON path."""
    rng = random.Random(44)
    corpus = []
    malformed = os.path.join(ROOT, "tests", "cli", "malformed")
    for name in sorted(os.listdir(malformed)):
        if name.endswith(".json"):
            with open(os.path.join(malformed, name), "rb") as f:
                corpus.append((name, f.read()))
    seeds = [DOC_EXAMPLE, BROADCAST] + [os.path.join(ROOT, "vectors", p) for p in (
        "nonzero_coordinates/float32/1d/subnormal.json", "scatter_elements/int64/3d/axis1_negative.json",
        "gather_nd1/uint8/3d/error_index_out_of_range.json")]
    for seed in seeds:
        if not os.path.exists(seed):
            continue
        text = open(seed).read()
        corpus += [("%s~%d" % (os.path.basename(seed), i), m) for i, m in enumerate(mutations(text, rng))]
    for use_numpy in ([True, False] if dv.np is not None else [False]):
        saved = dv.np
        if not use_numpy:
            dv.np = None
        leaks, unnamed, netted = [], [], []
        for name, text in corpus:
            try:
                v = dv.loads(text, source=name, memory_cap=256 << 20)
                if v.expect_error is None:
                    v.input_buffers()
                    if all(t.expected is not None or t.xxh3 is not None for t in v.outputs):
                        v.check_outputs([bytes(t.total_bytes) if t.total_bytes < 1 << 24 else b""
                                         for t in v.outputs])
            except dv.VectorError as e:
                if not str(e).startswith(name + ": $"):
                    unnamed.append("%s: %s" % (name, e))
                if "cannot be read: " in str(e):
                    netted.append("%s: %s" % (name, e))
            except Exception as e:  # noqa: BLE001 - what the test looks for
                leaks.append("%s: %s: %s" % (name, type(e).__name__, e))
        dv.np = saved
        mode = "numpy" if use_numpy else "pure Python"
        c.check(not leaks, "%d hostile vectors (%s): only VectorError escapes" % (len(corpus), mode),
                "; ".join(leaks[:5]))
        c.check(not unnamed, "%d hostile vectors (%s): each error names the file and a JSON path"
                % (len(corpus), mode), "; ".join(unnamed[:5]))
        c.check(not netted, "%d hostile vectors (%s): each error says the rule it breaks"
                % (len(corpus), mode), "; ".join(netted[:5]))


def main(argv):
    dmlref = argv[argv.index("--dmlref") + 1] if "--dmlref" in argv else None
    c = Checks()
    test_broadcast(c)
    test_not_regular(c)
    test_memory_cap(c)
    test_minus_zero(c, dmlref)
    test_fuzz(c)
    print("%d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))  # a runaway fails, not the machine
    sys.exit(main(sys.argv))
