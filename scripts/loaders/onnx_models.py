#!/usr/bin/python3
"""A dmlref vector as a one-node ONNX model: the mapping that the ONNX backend
(conformance/backends/peers/onnx_backend.py) runs and the export of the suite as ONNX
node tests (scripts/loaders/export_onnx.py) writes.

    case = onnx_models.onnx_case(vector)       # the node, its inputs, its outputs' shapes
    model = case.model()                         # an onnx.ModelProto
    expected = onnx_models.expected_outputs(vector, case)   # ONNX's outputs of the vector

Each operator maps onto one ONNX operator of opset 13:

  GATHER_ELEMENTS      GatherElements(axis = Axis) on the tensors as they are
  SCATTER_ELEMENTS     ScatterElements(axis = Axis), no reduction
  GATHER_ND, ND1       GatherND(batch_dims = BatchDimensionCount, 0 for GATHER_ND)
                       on the last InputDimensionCount input dimensions and
                       the last IndicesDimensionCount index dimensions: the
                       leading dimensions are 1s (R-GN-5), and ONNX's output,
                       indices.shape[:-1] + data.shape[b + k:], is DirectML's
                       without its leading 1s (R-GN-7)
  NONZERO_COORDINATES  NonZero on the input's last N dimensions (those left
                       out have size 1, R-NZ-5), whose int64 [N, count] output
                       is DirectML's first `count` rows transposed; DirectML's
                       UINT32 OutputCountTensor is ONNX's count, Y.shape[1]

A tensor is always the vector's logical tensor, packed row-major: strides,
broadcast and padding are DirectML's buffer layout, which ONNX has no notion
of; the loader (scripts/loaders/dmlref_vectors.py) has applied them.  Data keeps its
bits: each DirectML type is an ONNX type of the same name, and arrays are
views of the bits, so NaN payloads, -0.0 and subnormals reach ONNX as they are.

Two uses, two strictnesses:

  * export (export_case): what ONNX itself expresses, or NotExpressible with
    the reason: valid cases only, indices of a type ONNX's schema takes
    (int32 or int64; GatherND int64 only), no "oob": "clamp", no Scatter
    with duplicate targets.  The expected outputs are the vector's.
  * a backend (onnx_case plus the substitutes below): everything that maps
    exactly; the backend passes indices of other types by value and feeds
    a runtime that lacks an operator for a type an exact substitute.
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # dmlref_vectors, which tests/cross/model.py reads vectors with
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "cross"))

import model as numpy_model  # noqa: E402  (tests/cross/model.py: the independent numpy model)

# Opset 13 has everything DirectML's operators need and nothing they lack:
# GatherND's batch_dims (from opset 12), ScatterElements without a reduction
# attribute (added in opset 16; DirectML has none, R-SC-11), and every one of
# the eleven data types in all four operators' schemas.  ONNX 1.8 introduced
# it with IR version 7; both are older than everything that reads the models
# here (onnx 1.12 and later, ONNX Runtime 1.30), and stating the IR version,
# rather than taking the writer's default, keeps the files the same bytes
# whichever onnx writes them.
OPSET = 13
IR_VERSION = 7
PRODUCER = "dmlref"

# DirectML type -> (ONNX element type, numpy type of its values)
TYPES = {
    "FLOAT32": (TensorProto.FLOAT, np.float32), "FLOAT16": (TensorProto.FLOAT16, np.float16),
    "FLOAT64": (TensorProto.DOUBLE, np.float64), "INT8": (TensorProto.INT8, np.int8),
    "INT16": (TensorProto.INT16, np.int16), "INT32": (TensorProto.INT32, np.int32),
    "INT64": (TensorProto.INT64, np.int64), "UINT8": (TensorProto.UINT8, np.uint8),
    "UINT16": (TensorProto.UINT16, np.uint16), "UINT32": (TensorProto.UINT32, np.uint32),
    "UINT64": (TensorProto.UINT64, np.uint64)}
ELEMENT_TYPE = {np.dtype(numpy_type): onnx_type for onnx_type, numpy_type in TYPES.values()}

ONNX_OPERATORS = {"GATHER_ELEMENTS": "GatherElements", "SCATTER_ELEMENTS": "ScatterElements",
                  "GATHER_ND": "GatherND", "GATHER_ND1": "GatherND",
                  "NONZERO_COORDINATES": "NonZero"}


class NotExpressible(Exception):
    """ONNX cannot state this case.  `reason` is one of REASONS (what the
    export groups its skips by); the message adds the case's detail."""

    def __init__(self, reason, detail=""):
        super().__init__(reason + (": " + detail if detail else ""))
        self.reason = reason


# The reasons of export_case, in the order it checks them: a case is counted
# under the first that applies.
MUST_BE_REFUSED = "must be refused (expect_error): an ONNX node test states a valid computation"
CLAMPED = "clamps out-of-range indices (\"oob\": \"clamp\"): ONNX has no clamping mode"
UNSIGNED_INDICES = "UINT32 or UINT64 indices: ONNX's index types are int32 and int64"
GATHER_ND_INT32 = "INT32 indices for GatherND: ONNX's GatherND takes int64 indices only"
DUPLICATE_TARGETS = ("Scatter with duplicate targets (any_of): ONNX, like DirectML, "
                     "does not say which update wins")
OUT_OF_RANGE = "out-of-range indices: an error in ONNX"
REASONS = (MUST_BE_REFUSED, CLAMPED, UNSIGNED_INDICES, GATHER_ND_INT32, DUPLICATE_TARGETS,
           OUT_OF_RANGE)


def values(t):
    """Input t's logical elements as values of its own type: a view of the
    bits (no conversion), shaped as t.sizes."""
    return np.ascontiguousarray(t.array()).view(TYPES[t.dtype.name][1])


class OnnxCase:
    """One vector as one ONNX node: `op_type`, `attributes`, `inputs` (a list
    of (name, array) in the operator's input order; a backend may replace an
    array by an exact substitute), `outputs` (their names) and
    `output_shapes` (ONNX's shapes; None for NonZero's count)."""

    def __init__(self, vector, op_type, attributes, inputs, outputs, output_shapes):
        self.vector, self.op_type, self.attributes = vector, op_type, attributes
        self.inputs, self.outputs, self.output_shapes = inputs, outputs, output_shapes

    def input(self, name):
        return next(array for n, array in self.inputs if n == name)

    def replace_input(self, name, array):
        self.inputs = [(n, array if n == name else a) for n, a in self.inputs]

    def output_types(self):
        """ONNX's output element types: NonZero's are int64, the others'
        those of the data input."""
        if self.op_type == "NonZero":
            return [TensorProto.INT64]
        return [ELEMENT_TYPE[self.inputs[0][1].dtype]]

    def model(self):
        """The one-node onnx.ModelProto, for the inputs' current types.
        NonZero's count is the symbolic dimension "count", so that the
        model never states the answer."""
        node = helper.make_node(self.op_type, [n for n, _ in self.inputs], self.outputs,
                                **self.attributes)
        graph_inputs = [helper.make_tensor_value_info(n, ELEMENT_TYPE[a.dtype], list(a.shape))
                        for n, a in self.inputs]
        graph_outputs = [helper.make_tensor_value_info(n, t, [d if d is not None else "count"
                                                             for d in shape])
                         for n, t, shape in zip(self.outputs, self.output_types(),
                                                self.output_shapes)]
        graph = helper.make_graph([node], self.vector.name, graph_inputs, graph_outputs,
                                  doc_string="dmlref vector %s" % self.vector.name)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                 ir_version=IR_VERSION, producer_name=PRODUCER)

    def dmlref_outputs(self, results):
        """The vector's outputs from ONNX's (arrays in the order of
        `outputs`): arrays of the output's sizes, and for NonZero its count
        (UINT32) and its rows (count x N, UINT32; the rows after them are
        undefined, R-NZ-14)."""
        v = self.vector
        if self.op_type != "NonZero":
            return [np.asarray(results[0]).reshape(v.outputs[0].sizes)]
        y = np.asarray(results[0])
        return [np.array([y.shape[1]], dtype=np.uint32), y.T.astype(np.uint32)]


def onnx_case(v):
    """The ONNX node of a valid vector, its inputs in their own types (an
    index tensor of any of DirectML's four index types as it is; ONNX's
    schemas take int32 and int64, so a backend converts the others)."""
    t, a = v.tensors, v.attributes
    op_type = ONNX_OPERATORS[v.operator]
    if op_type == "NonZero":
        inp = t["InputTensor"]
        N = t["OutputCoordinatesTensor"].sizes[-1]
        x = values(inp).reshape(inp.sizes[inp.rank - N:])
        return OnnxCase(v, op_type, {}, [("X", x)], ["Y"], [[N, None]])
    data, indices = values(t["InputTensor"]), values(t["IndicesTensor"])
    if op_type == "GatherElements":
        return OnnxCase(v, op_type, {"axis": a["Axis"]}, [("data", data), ("indices", indices)],
                        ["output"], [list(indices.shape)])
    if op_type == "ScatterElements":
        return OnnxCase(v, op_type, {"axis": a["Axis"]},
                        [("data", data), ("indices", indices),
                         ("updates", values(t["UpdatesTensor"]))],
                        ["output"], [list(data.shape)])
    m, q, b = a["InputDimensionCount"], a["IndicesDimensionCount"], a.get("BatchDimensionCount", 0)
    I, X = data.shape[data.ndim - m:], indices.shape[indices.ndim - q:]
    k = X[-1]
    # DirectML reads input batch β for output batch β, and the indices may
    # have fewer batches than the input (R-GN-6); ONNX's batches must be
    # equal, so the data is the input's first batches, which are all it reads
    data = data.reshape(I)[tuple(slice(0, n) for n in X[:b])]
    return OnnxCase(v, op_type, {"batch_dims": b},
                    [("data", data), ("indices", indices.reshape(X))],
                    ["output"], [list(X[:-1]) + list(I[b + k:])])


def duplicate_targets(v):
    """True when a Scatter's expected output has an element that several
    updates write (marked any_of, R-SC-10)."""
    out = v.tensors["OutputTensor"]
    return out.expected is not None and any(isinstance(e, tuple) for e in out.expected)


def export_case(v):
    """The OnnxCase of a vector that ONNX expresses as it is, and its
    expected outputs (ONNX's arrays, in the order of case.outputs); else
    NotExpressible with the first reason of REASONS that applies."""
    if v.expect_error is not None:
        raise NotExpressible(MUST_BE_REFUSED, v.expect_error["status"])
    if v.oob == "clamp":
        raise NotExpressible(CLAMPED)
    if v.operator != "NONZERO_COORDINATES":
        index_type = v.tensors["IndicesTensor"].dtype.name
        if index_type in ("UINT32", "UINT64"):
            raise NotExpressible(UNSIGNED_INDICES, index_type)
        if v.operator in ("GATHER_ND", "GATHER_ND1") and index_type != "INT64":
            raise NotExpressible(GATHER_ND_INT32)
    if v.operator == "SCATTER_ELEMENTS" and duplicate_targets(v):
        raise NotExpressible(DUPLICATE_TARGETS)
    case = onnx_case(v)
    return case, expected_outputs(v, case)


def expected_outputs(v, case):
    """The vector's expected outputs as ONNX gives them.  Outputs stated by
    their digest alone (the large cases) have no elements to copy, so every
    output is computed by the independent numpy model (tests/cross/model.py) and
    taken only when the loader finds it equal, bit for bit, to what the
    vector states: its elements and digests, the golden answer (a NonZero
    vector's permitted variant, subnormals flushed, is not ONNX's IEEE
    answer)."""
    try:
        computed = numpy_model.compute(v)
    except numpy_model.ModelRefusal as refusal:
        raise NotExpressible(OUT_OF_RANGE, str(refusal)) from None
    buffers = [t.pack(np.asarray(out).astype(t.dtype.np_uint).reshape(-1))
               for t, out in zip(v.outputs, computed)]
    mismatch = v.check_outputs(buffers, variants=False)
    if mismatch is not None:
        raise ValueError("%s: the numpy model's outputs are not the vector's: %s"
                         % (v.name, mismatch))
    if case.op_type == "NonZero":
        count, rows = computed
        y = np.ascontiguousarray(rows[: int(count[0])].T.astype(np.int64))
        return [y]
    out = np.ascontiguousarray(computed[0]).view(TYPES[v.outputs[0].dtype.name][1])
    return [out.reshape(case.output_shapes[0])]


def outputs_agree(v, case, results):
    """None when ONNX's outputs (arrays in the order of case.outputs) are the
    vector's golden answer, bit for bit, as the loader judges it; else the
    loader's Mismatch or a message."""
    if case.op_type == "NonZero":
        y = np.asarray(results[0])
        if y.dtype != np.int64 or y.ndim != 2 or y.shape[0] != case.output_shapes[0][0]:
            return "Y is %s %s, not int64 [%d, count]" % (y.dtype, list(y.shape),
                                                         case.output_shapes[0][0])
    elif list(np.asarray(results[0]).shape) != case.output_shapes[0]:
        return "output has the shape %s, not %s" % (list(np.asarray(results[0]).shape),
                                                   case.output_shapes[0])
    outputs = case.dmlref_outputs(results)
    if case.op_type == "NonZero":
        count, rows = outputs
        coords = v.tensors["OutputCoordinatesTensor"]
        M, N = coords.sizes[-2], coords.sizes[-1]
        if rows.shape[0] > M:
            return "%d rows, the output holds %d" % (rows.shape[0], M)
        rows = np.concatenate([rows, np.zeros((M - rows.shape[0], N), dtype=np.uint32)])
        outputs = [count, rows]
    buffers = []
    for t, out in zip(v.outputs, outputs):
        out = np.ascontiguousarray(out)
        if out.dtype.itemsize != t.dtype.esize:
            return "%s: elements of %d bytes, not %d" % (t.name, out.dtype.itemsize, t.dtype.esize)
        buffers.append(t.pack(out.view(t.dtype.np_uint).reshape(-1)))
    return v.check_outputs(buffers, variants=False)


# ---------------------------------------------------------------------------
# Exact substitutes, for a runtime that lacks an operator for a type

def bit_view(name):
    """Substitute: the same bits as another integer type of the same width.
    Exact for a data move (the gathers and Scatter copy bits, D12), and for
    NonZero between integer types (an integer is zero iff all its bits are),
    never for a float's NonZero (-0.0 is zero, NaN is not)."""
    numpy_type = TYPES[name][1]
    return ("%s bits" % name.lower(), lambda a: a.view(numpy_type))


def widened(name):
    """Substitute: the same values in a wider type of the same kind; exact for
    NonZero (zero stays zero, a non-zero value stays non-zero: -0.0, NaN and
    subnormals included when a float widens to a float)."""
    numpy_type = TYPES[name][1]
    return ("%s values" % name.lower(), lambda a: a.astype(numpy_type))


# What each DirectML type may be fed as instead, in the order tried.
DATA_MOVE_SUBSTITUTES = {
    "FLOAT32": [bit_view("INT32"), bit_view("UINT32")],
    "FLOAT16": [bit_view("INT16"), bit_view("UINT16")],
    "FLOAT64": [bit_view("INT64"), bit_view("UINT64")],
    "INT8": [bit_view("UINT8")], "UINT8": [bit_view("INT8")],
    "INT16": [bit_view("UINT16")], "UINT16": [bit_view("INT16")],
    "INT32": [bit_view("UINT32")], "UINT32": [bit_view("INT32")],
    "INT64": [bit_view("UINT64")], "UINT64": [bit_view("INT64")],
}
NONZERO_SUBSTITUTES = {
    "FLOAT32": [widened("FLOAT64")],
    "FLOAT16": [widened("FLOAT32"), widened("FLOAT64")],
    "INT8": [bit_view("UINT8"), widened("INT32")], "UINT8": [bit_view("INT8"), widened("INT32")],
    "INT16": [bit_view("UINT16"), widened("INT32")],
    "UINT16": [bit_view("INT16"), widened("INT32")],
    "INT32": [bit_view("UINT32"), widened("INT64")],
    "UINT32": [bit_view("INT32"), widened("INT64")],
}


def substitutes(v):
    """(the input names that change together, [(description, convert)]):
    the exact substitutes for the vector's data type, in the order to try
    them.  The gathers' and Scatter's data and updates, and so their output,
    change together; a substitute's output is read back as the vector's type
    by its bits (dmlref_outputs reads bits)."""
    name = v.tensors["InputTensor"].dtype.name
    if v.operator == "NONZERO_COORDINATES":
        return ["X"], NONZERO_SUBSTITUTES.get(name, [])
    together = ["data", "updates"] if v.operator == "SCATTER_ELEMENTS" else ["data"]
    return together, DATA_MOVE_SUBSTITUTES[name]
