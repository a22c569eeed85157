#!/usr/bin/python3
"""Tests scripts/loaders/export_onnx.py: the suite as ONNX node tests.

    python3 tests/cross/test_onnx_export.py [--out DIR]

Exports vectors/ into DIR (default build/onnx-tests), then checks:

  * every exported test, read back with ONNX's own helpers (onnx.load,
    onnx.checker with shape and type inference, onnx.numpy_helper), states
    its vector (named by the model's graph): its inputs are the vector's, its
    expected outputs are the vector's golden answer bit for bit, as the
    loader (scripts/loaders/dmlref_vectors.py) judges it;
  * ONNX Runtime for Node.js (conformance/backends/peers/onnxruntime_node.py) gives
    each test's expected outputs, bit for bit: same type, shape and bytes,
    so NaN payloads and -0.0 included.  ORT 1.30 has no NonZero kernel on
    the CPU for some types (ORT_LACKS): those tests, and only those, are not
    run by it;
  * the runner fails tests that are wrong: a copy of a test with one bit of
    output_0.pb flipped, and a copy whose model has another axis;
  * a second export is the same bytes, file for file;
  * the tables docs/onnx.md shows are those the export prints.

Each check prints "ok - WHAT" or "FAIL - WHAT"; the last line is
`N passed, N failed`.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "loaders"))
sys.path.insert(0, os.path.join(ROOT, "conformance", "backends", "peers"))

import dmlref_vectors as dv  # noqa: E402
import onnx_models  # noqa: E402
import onnxruntime_node  # noqa: E402

EXPORT = [sys.executable, os.path.join(ROOT, "scripts", "loaders", "export_onnx.py")]
DOCS = os.path.join(ROOT, "docs", "onnx.md")

# The operators and input types onnxruntime-node 1.30 has no CPU kernel for,
# among the exported tests (docs/onnx.md says so too).
ORT_LACKS = {("NonZero", "int8"), ("NonZero", "int16"), ("NonZero", "uint16"),
             ("NonZero", "uint32")}


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, problems=()):
        print("%s - %s" % ("ok" if ok else "FAIL", what))
        for p in problems:
            print("    " + p)
        self.passed, self.failed = self.passed + bool(ok), self.failed + (not ok)


# ---------------------------------------------------------------------------
# The runner: one exported test folder

def read_test(folder):
    """(model, inputs, outputs) of a node test, with ONNX's helpers: the model
    checked against ONNX's schemas, the tensors as (name, array) lists."""
    model = onnx.load(os.path.join(folder, "model.onnx"))
    onnx.checker.check_model(model, full_check=True)
    data_set = os.path.join(folder, "test_data_set_0")
    tensors = {}
    for kind in ("input", "output"):
        tensors[kind] = []
        for i in range(len(getattr(model.graph, kind))):
            tensor = onnx.load_tensor(os.path.join(data_set, "%s_%d.pb" % (kind, i)))
            tensors[kind].append((tensor.name, numpy_helper.to_array(tensor)))
    return model, tensors["input"], tensors["output"]


def same_tensors(what, got, want):
    """Problems (strings) where two lists of (name, array) differ: names,
    types, shapes or any byte."""
    problems = []
    for (name, a), (want_name, b) in zip(got, want):
        a, b = np.asarray(a), np.asarray(b)
        if name != want_name:
            problems.append("%s: %s where %s is expected" % (what, name, want_name))
        elif a.dtype != b.dtype or a.shape != b.shape:
            problems.append("%s %s: %s %s, expected %s %s"
                            % (what, name, a.dtype, list(a.shape), b.dtype, list(b.shape)))
        elif a.tobytes() != b.tobytes():
            differ = np.nonzero(a.reshape(-1).view("u%d" % a.itemsize)
                                != b.reshape(-1).view("u%d" % b.itemsize))[0]
            problems.append("%s %s: %d elements differ, the first at %d"
                            % (what, name, len(differ), differ[0]))
    if len(got) != len(want):
        problems.append("%s: %d tensors, expected %d" % (what, len(got), len(want)))
    return problems


def run_test(folder, runtime):
    """(problems, kind, ran): what is wrong with one exported test (empty: it
    passes), its operator and first input's type, and whether ORT ran it
    (False when ORT lacks the kernel)."""
    model, inputs, outputs = read_test(folder)
    kind = (model.graph.node[0].op_type, str(inputs[0][1].dtype))
    v = dv.load(os.path.join(ROOT, "vectors", model.graph.name + ".json"))
    case = onnx_models.onnx_case(v)
    graph_inputs = [i.name for i in model.graph.input]
    problems = same_tensors("input", inputs, case.inputs)
    if [n for n, _ in inputs] != graph_inputs:
        problems.append("inputs %s, the model's are %s" % ([n for n, _ in inputs], graph_inputs))
    mismatch = onnx_models.outputs_agree(v, case, [a for _, a in outputs])
    if mismatch is not None:
        problems.append("the expected outputs are not the vector's: %s" % mismatch)
    try:
        results = runtime.run(model.SerializeToString(), inputs)
    except onnxruntime_node.MissingKernel:
        return problems, kind, False
    except onnxruntime_node.RuntimeFailure as e:
        return problems + ["ONNX Runtime refused it (%s): %s" % (e.stage, e)], kind, True
    names = [o.name for o in model.graph.output]
    problems += same_tensors("ONNX Runtime's output", list(zip(names, results)), outputs)
    return problems, kind, True


# ---------------------------------------------------------------------------
# The checks

def export(out_dir):
    """Runs export_onnx.py into a fresh out_dir; (exit status, its output)."""
    shutil.rmtree(out_dir, ignore_errors=True)
    p = subprocess.run(EXPORT + [out_dir, os.path.join(ROOT, "vectors")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def check_all_tests(checks, out_dir, runtime):
    """Every exported test passes; ORT runs all but those ORT_LACKS names."""
    not_run, kinds_not_run = [], set()
    for name in sorted(os.listdir(out_dir)):
        problems, kind, ran = run_test(os.path.join(out_dir, name), runtime)
        if not ran:
            kinds_not_run.add(kind)
            not_run.append(name)
        checks.check(not problems, "%s: states its vector; ONNX Runtime %s" % (
            name, "gives its outputs" if ran else "has no kernel for it"), problems)
    checks.check(kinds_not_run == ORT_LACKS,
                 "ONNX Runtime runs every test but %d, whose operator and type it has no kernel "
                 "for: %s" % (len(not_run), ", ".join("%s %s" % k for k in sorted(kinds_not_run))),
                 ["expected exactly: %s" % ", ".join("%s %s" % k for k in sorted(ORT_LACKS))]
                 if kinds_not_run != ORT_LACKS else [])


def flipped_output(folder, copy):
    """A copy of a test with one bit of output_0.pb flipped: the file's last
    byte, which belongs to the last element (raw_data is the TensorProto's
    last field)."""
    shutil.copytree(folder, copy)
    path = os.path.join(copy, "test_data_set_0", "output_0.pb")
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data[-1] ^= 1
    with open(path, "wb") as f:
        f.write(data)


def other_axis(folder, copy):
    """A copy of a GatherElements test of square 2-D tensors with its axis
    changed (so the model still runs, to another answer); False when the
    test is not one."""
    model, inputs, _ = read_test(folder)
    node = model.graph.node[0]
    data, indices = inputs[0][1], inputs[1][1]
    if node.op_type != "GatherElements" or data.shape != indices.shape or data.ndim != 2 \
            or data.shape[0] != data.shape[1]:
        return False
    axis = node.attribute[0].i
    if np.array_equal(np.take_along_axis(data, indices, axis).view("u%d" % data.itemsize),
                      np.take_along_axis(data, indices, 1 - axis).view("u%d" % data.itemsize)):
        return False
    node.attribute[0].i = 1 - axis
    shutil.copytree(folder, copy)
    onnx.save(model, os.path.join(copy, "model.onnx"))
    return True


def check_runner_fails_wrong_tests(checks, out_dir, runtime):
    names = sorted(os.listdir(out_dir))
    with tempfile.TemporaryDirectory() as scratch:
        first = next(n for n in names if n.startswith("test_dmlref_gather_elements_float32"))
        flipped_output(os.path.join(out_dir, first), os.path.join(scratch, "flipped"))
        problems = run_test(os.path.join(scratch, "flipped"), runtime)[0]
        checks.check(len(problems) == 2, "a copy of %s with one bit of output_0.pb flipped "
                     "fails, against the vector and against ONNX Runtime" % first, problems)
        wrong = next((n for n in names if other_axis(os.path.join(out_dir, n),
                                                      os.path.join(scratch, "axis"))), None)
        problems = run_test(os.path.join(scratch, "axis"), runtime)[0] if wrong else []
        checks.check(wrong is not None and problems,
                     "a copy of %s with the other axis fails" % wrong, problems)


def files(folder):
    """{relative path: bytes} of every file under folder."""
    found = {}
    for root, _, names in os.walk(folder):
        for name in names:
            with open(os.path.join(root, name), "rb") as f:
                found[os.path.relpath(os.path.join(root, name), folder)] = f.read()
    return found


def check_docs(checks, printed):
    """docs/onnx.md holds the tables export_onnx.py prints, line for line."""
    tables = [line for line in printed.splitlines() if line.startswith("|") or not line]
    page = ""
    if os.path.exists(DOCS):
        with open(DOCS) as f:
            page = f.read()
    missing = [line for line in tables if line and line not in page.splitlines()]
    together = "\n".join(tables).strip() in page
    problems = ["not on the page as printed: " + line for line in missing[:5]]
    if not missing and not together:
        problems.append("the tables' lines are there, but not together as printed")
    checks.check(not problems, "docs/onnx.md shows the export's tables as it prints them",
                 problems)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "onnx-tests"))
    args = parser.parse_args(argv[1:])
    checks = Checks()
    status, printed = export(args.out)
    print(printed, end="")
    checks.check(status == 0, "export_onnx.py %s vectors" % args.out)
    if status != 0:
        print("%d passed, %d failed" % (checks.passed, checks.failed))
        return 1
    # The second export runs beside the checks of the first.
    again = args.out + "-again"
    shutil.rmtree(again, ignore_errors=True)
    second = subprocess.Popen(EXPORT + [again, os.path.join(ROOT, "vectors")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    runtime = onnxruntime_node.OnnxRuntimeNode()
    try:
        check_all_tests(checks, args.out, runtime)
        check_runner_fails_wrong_tests(checks, args.out, runtime)
    finally:
        runtime.close()
    second.wait()
    a, b = files(args.out), files(again)
    differ = sorted(set(a) ^ set(b)) + sorted(p for p in set(a) & set(b) if a[p] != b[p])
    checks.check(second.returncode == 0 and not differ,
                 "a second export is the same %d files, byte for byte" % len(a), differ[:5])
    check_docs(checks, printed)
    print("%d passed, %d failed" % (checks.passed, checks.failed))
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
