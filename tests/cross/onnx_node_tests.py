#!/usr/bin/python3
"""Cross-checks dmlref against ONNX's own node tests.

    python3 tests/cross/onnx_node_tests.py [-v] [--dmlref PATH] [--onnx-data DIR] [OUT_DIR]

Converts the node tests of Debian's libonnx-testdata for the ONNX operators
that have a DirectML counterpart (GatherElements, ScatterElements and the
deprecated Scatter, GatherND, NonZero) into dmlref golden vectors whose
`expected` outputs are ONNX's, writes them (and a MANIFEST) to OUT_DIR (default:
a temporary folder, removed when everything passed), and checks each one twice:
with `dmlref verify` (build/dmlref, when it exists), which recomputes the case
with the C reference and compares it with ONNX's data, and with the numpy model
of tests/cross/model.py.  Cases DirectML cannot express (a reduction, a data type it
lacks, ...) are skipped with the reason.  The last line is
`N passed, N failed[, N skipped]`; the exit status is 0 only if none failed.

The mapping to DirectML:
  GatherElements, ScatterElements, Scatter -> GATHER_ELEMENTS / SCATTER_ELEMENTS,
      a negative axis normalised; duplicate Scatter targets become any_of
      with every competing update (R-SC-10), ONNX's value among them.
  GatherND (batch_dims b) -> GATHER_ND1 with InputDimensionCount = data rank,
      IndicesDimensionCount = indices rank, BatchDimensionCount = b, every
      tensor padded with leading 1s to a common DimensionCount D, the output
      shaped as DirectMLX does (R-GN-7).
  NonZero -> NONZERO_COORDINATES with OutputCountTensor {1} and
      OutputCoordinatesTensor {M, N} (M = element count, N = rank): the first
      `count` rows are ONNX's [rank, count] output transposed, the rest null.
  ONNX int64 indices stay INT64; a bool tensor becomes UINT8 (one byte, 0 or 1,
      as ONNX Runtime's DirectML backend binds it).
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts", "loaders"))
sys.path.insert(0, HERE)
import dmlref_vectors as dv  # noqa: E402
import model  # noqa: E402  (tests/cross/model.py)

NODE_DIR = "/usr/share/libonnx-testdata/data/node"

# numpy dtype -> DirectML dtype
DML_DTYPE = {np.dtype(k): v for k, v in {
    "float32": "FLOAT32", "float16": "FLOAT16", "float64": "FLOAT64", "int8": "INT8",
    "int16": "INT16", "int32": "INT32", "int64": "INT64", "uint8": "UINT8",
    "uint16": "UINT16", "uint32": "UINT32", "uint64": "UINT64", "bool": "UINT8"}.items()}

OP_NAMES = {"GatherElements": "GATHER_ELEMENTS", "ScatterElements": "SCATTER_ELEMENTS",
            "Scatter": "SCATTER_ELEMENTS", "GatherND": "GATHER_ND1",
            "NonZero": "NONZERO_COORDINATES"}


class Skip(Exception):
    """DirectML cannot express this ONNX case."""


class ConversionError(Exception):
    """ONNX's data contradicts the semantics (a failure, not a skip)."""


# ---------------------------------------------------------------------------
# Tensors

def bits_of(array):
    """Row-major element bit patterns of a numpy array, as Python ints."""
    if array.dtype == np.bool_:
        array = array.astype(np.uint8)
    array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    return array.view("<u%d" % array.dtype.itemsize).reshape(-1).tolist()


def dml_dtype(array, what):
    name = DML_DTYPE.get(array.dtype)
    if name is None:
        raise Skip("%s has type %s, which DirectML lacks" % (what, array.dtype))
    return dv.DTYPES[name]


def tensor_json(dtype, sizes, bits=None, expected=None):
    """A vector's tensor object; `expected` entries are bits, None or tuples."""
    t = {"dtype": dtype.name, "sizes": list(sizes)}
    if bits is not None:
        t["data"] = [dv.encode_element(dtype, b) for b in bits]
    if expected is not None:
        t["expected"] = [None if e is None else
                         {"any_of": [dv.encode_element(dtype, a) for a in e]} if isinstance(e, tuple)
                         else dv.encode_element(dtype, e) for e in expected]
        if all(isinstance(e, int) for e in expected):
            t["xxh3"] = "%016x" % digest(dtype, expected)
    return t


def digest(dtype, bits):
    return dv.xxh3_64(np.array(bits, dtype=dtype.np_uint).tobytes())


def padded(shape, rank):
    return [1] * (rank - len(shape)) + list(shape)


def check_rank(rank, what):
    if not 1 <= rank <= 8:
        raise Skip("%s has rank %d; DirectML tensors have 1 to 8 dimensions" % (what, rank))


def attribute(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


# ---------------------------------------------------------------------------
# Operators

def convert_gather_elements(node, inputs, outputs):
    data, indices = inputs
    (out,) = outputs
    check_rank(data.ndim, "data")
    axis = attribute(node, "axis", 0)
    axis = axis + data.ndim if axis < 0 else axis
    if any(indices.shape[d] != data.shape[d] for d in range(data.ndim) if d != axis):
        raise Skip("indices %s smaller than data %s off the axis: DirectML requires equal "
                   "sizes (D5)" % (indices.shape, data.shape))
    dt = dml_dtype(data, "data")
    return {"attributes": {"Axis": axis}, "tensors": {
        "InputTensor": tensor_json(dt, data.shape, bits_of(data)),
        "IndicesTensor": tensor_json(dml_dtype(indices, "indices"), indices.shape, bits_of(indices)),
        "OutputTensor": tensor_json(dml_dtype(out, "output"), out.shape, expected=bits_of(out))}}


def convert_scatter(node, inputs, outputs):
    data, indices, updates = inputs
    (out,) = outputs
    reduction = attribute(node, "reduction", b"none")
    reduction = reduction.decode() if isinstance(reduction, bytes) else reduction
    if reduction != "none":
        raise Skip("reduction %r: DirectML's Scatter has none (R-SC-11)" % reduction)
    check_rank(data.ndim, "data")
    axis = attribute(node, "axis", 0)
    axis = axis + data.ndim if axis < 0 else axis
    if any(indices.shape[d] != data.shape[d] for d in range(data.ndim) if d != axis):
        raise Skip("indices %s smaller than data %s off the axis: DirectML requires equal "
                   "sizes (D5)" % (indices.shape, data.shape))
    size = data.shape[axis]
    idx = indices.astype(np.int64)
    if ((idx < -size) | (idx >= size)).any():
        raise Skip("out-of-range indices: ONNX leaves them undefined")
    # Every update that targets each output element, in update order.
    target = list(np.indices(indices.shape))
    target[axis] = np.where(idx < 0, idx + size, idx)
    flat = np.ravel_multi_index(target, data.shape).reshape(-1)
    update_bits, out_bits = bits_of(updates), bits_of(out)
    competing = {}
    for u, t in enumerate(flat.tolist()):
        competing.setdefault(t, []).append(update_bits[u])
    expected = list(out_bits)
    for t, alternatives in competing.items():
        if len(alternatives) > 1:
            alternatives = tuple(dict.fromkeys(alternatives))  # unique bit patterns, in order
            if out_bits[t] not in alternatives:
                raise ConversionError("ONNX's output element %d is none of its competing updates" % t)
            expected[t] = alternatives if len(alternatives) > 1 else alternatives[0]
    dt = dml_dtype(data, "data")
    return {"attributes": {"Axis": axis}, "tensors": {
        "InputTensor": tensor_json(dt, data.shape, bits_of(data)),
        "IndicesTensor": tensor_json(dml_dtype(indices, "indices"), indices.shape, bits_of(indices)),
        "UpdatesTensor": tensor_json(dml_dtype(updates, "updates"), updates.shape, update_bits),
        "OutputTensor": tensor_json(dml_dtype(out, "output"), out.shape, expected=expected)}}


def convert_gather_nd(node, inputs, outputs):
    data, indices = inputs
    (out,) = outputs
    b = attribute(node, "batch_dims", 0)
    m, q = data.ndim, indices.ndim
    if q < 1 or m < 1:
        raise Skip("a scalar data or indices tensor")
    k = indices.shape[-1]
    r = m - b - k
    D = max(m, q, q - 1 + r)
    check_rank(D, "the common DimensionCount")
    want = tuple(indices.shape[:-1]) + tuple(data.shape[b + k:])
    if out.shape != want:
        raise ConversionError("ONNX's output shape %s, expected %s" % (out.shape, want))
    out_sizes = [1] * (D - (q - 1 + r)) + list(indices.shape[:-1]) + list(data.shape[m - r:])
    dt = dml_dtype(data, "data")
    return {"attributes": {"InputDimensionCount": m, "IndicesDimensionCount": q,
                           "BatchDimensionCount": b}, "tensors": {
        "InputTensor": tensor_json(dt, padded(data.shape, D), bits_of(data)),
        "IndicesTensor": tensor_json(dml_dtype(indices, "indices"), padded(indices.shape, D),
                                     bits_of(indices)),
        "OutputTensor": tensor_json(dml_dtype(out, "output"), out_sizes, expected=bits_of(out))}}


def convert_nonzero(node, inputs, outputs):
    (x,) = inputs
    (coords,) = outputs
    check_rank(x.ndim, "the input")
    dt = dml_dtype(x, "the input")
    if dt.esize == 8:
        raise Skip("a 64-bit NonZero input: DirectML has none (R-NZ-7)")
    M, N = x.size, x.ndim
    count = coords.shape[1]
    if coords.shape[0] != N or (coords < 0).any() or (coords > 0xFFFFFFFF).any():
        raise ConversionError("ONNX's output %s does not fit {rank, count} UINT32 coordinates"
                              % (coords.shape,))
    rows = coords.T.reshape(-1).astype(np.uint32).tolist()  # [count, rank], row-major
    u32 = dv.DTYPES["UINT32"]
    return {"tensors": {
        "InputTensor": tensor_json(dt, x.shape, bits_of(x)),
        "OutputCountTensor": tensor_json(u32, [1], expected=[count]),
        "OutputCoordinatesTensor": tensor_json(u32, [M, N], expected=rows + [None] * ((M - count) * N))}}


CONVERT = {"GatherElements": convert_gather_elements, "ScatterElements": convert_scatter,
           "Scatter": convert_scatter, "GatherND": convert_gather_nd, "NonZero": convert_nonzero}


# ---------------------------------------------------------------------------
# Driver

def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def onnx_cases(node_dir):
    """(test name, node, data set folder) for every node test of our operators."""
    for test in sorted(os.listdir(node_dir)):
        path = os.path.join(node_dir, test, "model.onnx")
        if not os.path.exists(path):
            continue
        graph = onnx.load(path).graph
        if len(graph.node) != 1 or graph.node[0].op_type not in CONVERT:
            continue
        for data_set in sorted(glob.glob(os.path.join(node_dir, test, "test_data_set_*"))):
            yield test, graph.node[0], data_set


def convert(test, node, data_set):
    """(relative path, vector object) of one ONNX test data set."""
    n_in = len(glob.glob(os.path.join(data_set, "input_*.pb")))
    n_out = len(glob.glob(os.path.join(data_set, "output_*.pb")))
    inputs = [read_pb(os.path.join(data_set, "input_%d.pb" % i)) for i in range(n_in)]
    outputs = [read_pb(os.path.join(data_set, "output_%d.pb" % i)) for i in range(n_out)]
    body = CONVERT[node.op_type](node, inputs, outputs)
    operator = OP_NAMES[node.op_type]
    first = body["tensors"]["InputTensor"]
    suffix = "" if data_set.endswith("test_data_set_0") else "_" + os.path.basename(data_set)[-5:]
    name = "%s/%s/%dd/onnx_%s%s" % (operator.lower(), first["dtype"].lower(), len(first["sizes"]),
                                     test, suffix)
    notes = "converted from ONNX node test %s (%s, onnx %s)" % (test, node.op_type, onnx.__version__)
    if any(a.dtype == np.bool_ for a in inputs + outputs):
        notes += "; bool as UINT8"
    vector = {"format": dv.FORMAT, "name": name, "operator": operator}
    if "attributes" in body:
        vector["attributes"] = body["attributes"]
    vector["tensors"] = body["tensors"]
    vector["notes"] = notes
    return "%s/%s%s.json" % (operator.lower(), test, suffix), vector


def run_dmlref(binary, path):
    """(passed, message) of `dmlref verify path`."""
    proc = subprocess.run([binary, "verify", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    # Its own summary line would read like ours; keep the lines that explain.
    lines = [l for l in proc.stdout.splitlines() if l.strip() and " passed, " not in l]
    if proc.returncode != 0 and not lines:
        lines = ["exit status %d" % proc.returncode]
    return proc.returncode == 0, "; ".join(lines)


def main(argv):
    args = argv[1:]
    verbose = "-v" in args
    args = [a for a in args if a != "-v"]
    binary, node_dir = os.path.join(ROOT, "build", "dmlref"), NODE_DIR
    while args and args[0] in ("--dmlref", "--onnx-data"):
        if len(args) < 2:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
        if args[0] == "--dmlref":
            binary = args[1]
        else:
            node_dir = args[1]
        args = args[2:]
    if len(args) > 1:
        print("usage:" + __doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    temporary = not args
    out_dir = tempfile.mkdtemp(prefix="dmlref-onnx-") if temporary else args[0]
    have_binary = os.access(binary, os.X_OK)
    counts = {"pass": 0, "fail": 0, "skip": 0}

    def report(result, what, message=""):
        counts[result] += 1
        if result == "fail" or verbose or (result == "skip" and message):
            print("%s %s%s" % (result.upper(), what, ": " + message if message else ""))

    written = []
    for test, node, data_set in onnx_cases(node_dir):
        what = "%s/%s" % (test, os.path.basename(data_set))
        try:
            rel, vector = convert(test, node, data_set)
        except Skip as reason:
            report("skip", what, str(reason))
            continue
        except ConversionError as e:
            report("fail", what, str(e))
            continue
        path = os.path.join(out_dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(dv.dumps(vector) + "\n")
        written.append((what, path))
    if not written:
        print("no ONNX node tests found under %s" % node_dir)
        counts["fail"] += 1
    dv.write_manifest(out_dir)

    for what, path in written:
        try:
            result, message = model.check_vector(dv.load(path))
        except (dv.VectorError, ValueError) as e:
            result, message = "fail", "%s: %s" % (type(e).__name__, e)
        report(result, "model " + what, message)
        if have_binary:
            ok, message = run_dmlref(binary, path)
            report("pass" if ok else "fail", "dmlref " + what, message)
        else:
            report("skip", "dmlref " + what)
    if not have_binary:
        print("note: %s not found: only the numpy model checked the vectors" % binary)

    line = "%d passed, %d failed" % (counts["pass"], counts["fail"])
    if counts["skip"]:
        line += ", %d skipped" % counts["skip"]
    if temporary and not counts["fail"]:
        shutil.rmtree(out_dir)
    else:
        print("vectors in %s" % out_dir)
    print(line)
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
