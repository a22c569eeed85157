#!/usr/bin/python3
"""Writes dmlref's vectors as ONNX node tests.

    python3 scripts/loaders/export_onnx.py OUTDIR PATH...

Every vector under the PATHs (files, or folders searched for *.json) that
ONNX can state as it is (scripts/loaders/onnx_models.py, export_case) becomes a
folder of OUTDIR, in the layout that ONNX's node tests have, and that ONNX
Runtime's onnx_test_runner and onnx.backend.test read:

    OUTDIR/test_dmlref_<name, / as _>/model.onnx
    OUTDIR/test_dmlref_<name, / as _>/test_data_set_0/input_<i>.pb, output_<i>.pb

model.onnx is the vector as one ONNX node (opset 13); its graph is named
after the vector.  input_<i>.pb and output_<i>.pb are TensorProtos
(onnx.numpy_helper.from_array, the elements' bytes as raw_data), named as
the model's inputs and outputs.  OUTDIR must be new or empty.  The output
is the same bytes on every run.  It ends with two tables, in Markdown: the
tests written per operator, and the vectors skipped per reason (docs/onnx.md
shows both, and make check-onnx-export holds the page to them).

This is a script on ONNX's own Python package, not a command of dmlref, so
that nothing of ONNX's format is written twice: onnx.helper and
onnx.numpy_helper make the protobufs, and onnx.checker validates every model
against ONNX's operator schemas (with shape and type inference) before it is
written.  dmlref itself stays a C99 program that needs no protobuf.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402

import dmlref_vectors as dv  # noqa: E402
import onnx_models  # noqa: E402

OPERATORS = ("GATHER_ELEMENTS", "SCATTER_ELEMENTS", "GATHER_ND", "GATHER_ND1",
             "NONZERO_COORDINATES")


def vector_files(paths):
    """The vector files under the paths, each folder's in sorted order."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            found.extend(os.path.join(path, rel) for rel in dv.suite_files(path))
        else:
            found.append(path)
    return found


def test_folder_name(vector_name):
    return "test_dmlref_" + vector_name.replace("/", "_")


def write_test(folder, case, expected):
    """One node test: the model and its one data set."""
    model = case.model()
    onnx.checker.check_model(model, full_check=True)
    data_set = os.path.join(folder, "test_data_set_0")
    os.makedirs(data_set)
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    tensors = [("input", case.inputs), ("output", list(zip(case.outputs, expected)))]
    for kind, named in tensors:
        for i, (name, array) in enumerate(named):
            with open(os.path.join(data_set, "%s_%d.pb" % (kind, i)), "wb") as f:
                f.write(numpy_helper.from_array(array, name).SerializeToString())


def export(out_dir, paths):
    """Writes the tests; returns ({operator: tests written}, {reason: vectors skipped})."""
    written = {op: 0 for op in OPERATORS}
    skipped = {reason: 0 for reason in onnx_models.REASONS}
    folders = {}
    for path in vector_files(paths):
        v = dv.load(path)
        try:
            case, expected = onnx_models.export_case(v)
        except onnx_models.NotExpressible as e:
            skipped[e.reason] += 1
            continue
        folder = test_folder_name(v.name)
        if folder in folders:
            raise ValueError("%s and %s are both %s" % (folders[folder], path, folder))
        folders[folder] = path
        write_test(os.path.join(out_dir, folder), case, expected)
        written[v.operator] += 1
    return written, skipped


def tables(written, skipped):
    """The two tables of the export's counts, in Markdown (docs/onnx.md)."""
    lines = ["| operator | ONNX operator | tests |", "|---|---|---|"]
    for op in OPERATORS:
        lines.append("| %s | %s | %d |" % (op, onnx_models.ONNX_OPERATORS[op], written[op]))
    lines.append("| all | | %d |" % sum(written.values()))
    lines += ["", "| vectors skipped | why |", "|---|---|"]
    lines += ["| %d | %s |" % (count, reason) for reason, count in skipped.items() if count]
    lines.append("| %d | all |" % sum(skipped.values()))
    return lines


def main(argv):
    if len(argv) < 3:
        print("usage: export_onnx.py OUTDIR PATH...", file=sys.stderr)
        return 2
    out_dir, paths = argv[1], argv[2:]
    if os.path.exists(out_dir) and os.listdir(out_dir):
        print("export_onnx: %s is not empty" % out_dir, file=sys.stderr)
        return 2
    os.makedirs(out_dir, exist_ok=True)
    written, skipped = export(out_dir, paths)
    print("export_onnx: %d ONNX node tests in %s (onnx %s, opset %d), %d vectors skipped"
          % (sum(written.values()), out_dir, onnx.__version__, onnx_models.OPSET,
             sum(skipped.values())))
    print("\n".join(tables(written, skipped)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (ValueError, OSError) as e:  # a vector that cannot be read is a VectorError
        print("export_onnx: %s" % e, file=sys.stderr)
        sys.exit(1)
