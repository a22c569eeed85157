#!/usr/bin/python3
"""An ONNX backend for `dmlref check --exec` (the process protocol): each case
becomes a one-node ONNX model, run by an ONNX runtime.

    dmlref check --exec '/usr/bin/python3 conformance/backends/peers/onnx_backend.py \
        --runtime onnxruntime-node' vectors
    dmlref check --exec '/usr/bin/python3 conformance/backends/peers/onnx_backend.py --runtime reference' \
        vectors

Runtimes:

  onnxruntime-node  ONNX Runtime for Node.js (onnxruntime-node, CPU execution
                    provider; make node-deps installs it), run by one Node
                    process, onnxruntime_server.mjs
  reference         onnx.reference.ReferenceEvaluator, ONNX's own Python
                    reference (onnx 1.13 and later)

The protocol, validation and replies are process_backend.py's; the model is
scripts/loaders/onnx_models.py's (opset 13):

  GATHER_ELEMENTS      GatherElements(axis = Axis)
  SCATTER_ELEMENTS     ScatterElements(axis = Axis); with duplicate targets
                       ONNX does not say which update wins, which the
                       vectors allow (any_of, R-SC-10)
  GATHER_ND, ND1       GatherND(batch_dims = BatchDimensionCount, 0 for
                       GATHER_ND) on the last m input and q index dimensions
                       (R-GN-9); the output is ONNX's with DirectML's leading 1s
  NONZERO_COORDINATES  NonZero on the input's last N dimensions: its int64
                       [N, count] output transposed is the coordinates' first
                       `count` rows (R-NZ-13), and count is OutputCountTensor

Every tensor is the case's logical tensor, packed (the loader applies
strides, broadcast and generators); data is given in its own type, as a view
of its bits, so NaN payloads, -0.0 and subnormals reach the runtime as they
are.  ONNX counts negative indices from the end, as DirectML does (R-IX-2),
so they are passed as they are.

The mappings, each written to the log (--log) with the first case that
needs it:

  * UINT32 and UINT64 indices are passed as int64, the same values (ONNX's
    index types are int32 and int64; a UINT64 above 2^63-1, out of range for
    every tensor, as 2^63-1, out of range too: process_backend.index_values).
  * INT32 indices of GatherND are passed as int64, the same values (ONNX's
    GatherND takes int64 indices only).
  * A type the runtime has no kernel for, for an operator, is fed as an
    exact substitute (onnx_models.substitutes), tried in order: for the
    gathers and Scatter the same bits as an integer type of the same width
    (a data move copies bits, D12); for NonZero the same bits as the integer
    type of the other signedness (an integer is zero iff all its bits are),
    else the same values widened (a float only to a wider float: -0.0 stays
    zero, NaN and subnormals non-zero).  ONNX Runtime 1.30 has no NonZero
    for INT8, INT16, UINT16 and UINT32 on the CPU: INT8 goes as uint8 bits,
    UINT32 as int32 bits, INT16 and UINT16 as int32 values.  A type with no
    exact substitute the runtime takes is answered "unsupported".

Out-of-range indices are passed as they are, so the runtime's own behaviour
shows: ONNX calls them an error, and a runtime that refuses them answers
"error" (a refusal), which passes a case that must be refused for its
indices.  ONNX has no clamping mode, so "oob": "clamp" cases are passed as
they are too, and skipped when refused.  Any other failure of the runtime is
"error" as well; only a missing kernel with no substitute is "unsupported".
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "scripts", "loaders"))

import numpy as np  # noqa: E402

import process_backend as pb  # noqa: E402
import onnx_models  # noqa: E402  (scripts/loaders/onnx_models.py)


class RuntimeLacks(Exception):
    """The runtime has no kernel for the model's operator with its types."""


class OnnxRuntimeNodeRuntime:
    """ONNX Runtime for Node.js, through onnxruntime_node.py (RuntimeError
    when its server cannot start)."""

    name = "onnxruntime-node"

    def __init__(self):
        import onnxruntime_node
        self.module = onnxruntime_node
        self.runtime = onnxruntime_node.OnnxRuntimeNode()

    def describe(self):
        return "ONNX Runtime for Node.js %s (onnxruntime-node, CPU execution provider)" \
            % self.runtime.versions["node"]

    def run(self, model, inputs):
        try:
            return self.runtime.run(model.SerializeToString(), inputs)
        except self.module.MissingKernel as e:
            raise RuntimeLacks(str(e)) from None
        except self.module.RuntimeFailure as e:
            raise pb.Refusal("ONNX Runtime refused it (%s): %s" % (e.stage, e)) from None


class ReferenceRuntime:
    """onnx.reference.ReferenceEvaluator (onnx 1.13 and later; RuntimeError
    when this onnx has none)."""

    name = "reference"

    def __init__(self):
        import onnx
        try:
            from onnx.reference import ReferenceEvaluator
        except ImportError:
            raise RuntimeError("--runtime reference needs onnx.reference, which onnx 1.13 and "
                               "later have; this is onnx %s" % onnx.__version__) from None
        self.onnx, self.evaluator = onnx, ReferenceEvaluator

    def describe(self):
        return "onnx.reference.ReferenceEvaluator of onnx %s" % self.onnx.__version__

    def run(self, model, inputs):
        try:
            return self.evaluator(model).run(None, dict(inputs))
        except Exception as e:  # IndexError: numpy's answer to an index out of range
            raise pb.Refusal("onnx.reference refused it: %s: %s" % (type(e).__name__, e)) from None


RUNTIMES = {"onnxruntime-node": OnnxRuntimeNodeRuntime, "reference": ReferenceRuntime}


class OnnxBackend(pb.Backend):
    program = "onnx_backend"

    def __init__(self, runtime):
        super().__init__()
        self.runtime = runtime
        self.lacking = set()  # (op_type, element type) the runtime has no kernel for

    def describe(self):
        return self.runtime.describe()

    def run(self, v):
        case = onnx_models.onnx_case(v)
        if v.operator != "NONZERO_COORDINATES":
            self.index_mapping(v, case)
        return self.run_with_substitutes(v, case)

    def index_mapping(self, v, case):
        idx_t = v.tensors["IndicesTensor"]
        name = idx_t.dtype.name
        if name in ("UINT32", "UINT64"):
            indices = pb.index_values(idx_t, self.mappings, v.name)
        elif case.op_type == "GatherND" and name == "INT32":
            self.mappings.note(v.name, "INT32 indices of GatherND passed as int64 (same values; "
                               "ONNX's GatherND takes int64 only)")
            indices = case.input("indices").astype(np.int64)
        else:
            return
        case.replace_input("indices", indices.reshape(case.input("indices").shape))

    def run_with_substitutes(self, v, case):
        """The runtime's outputs, for the case's own types or, where the
        runtime lacks the operator for them, for the first exact substitute
        it takes."""
        names, candidates = onnx_models.substitutes(v)
        original = {n: case.input(n) for n in names}
        what = v.tensors["InputTensor"].dtype.name
        tried = []
        for description, convert in [(None, None)] + candidates:
            if convert is not None:
                for n, a in original.items():
                    case.replace_input(n, convert(a))
            kind = (case.op_type, case.input(names[0]).dtype.str)
            if kind in self.lacking:
                tried.append(description or what)
                continue
            try:
                results = self.runtime.run(case.model(), case.inputs)
            except RuntimeLacks:
                self.lacking.add(kind)
                tried.append(description or what)
                continue
            if description is not None:
                self.mappings.note(v.name, "%s %s fed as %s (%s has no %s kernel for %s)" % (
                    case.op_type, what, description, self.runtime.name, case.op_type, what))
            outputs = case.dmlref_outputs(results)
            if case.op_type == "NonZero":
                count, rows = outputs
                coords = v.tensors["OutputCoordinatesTensor"].sizes
                return [count, pb.Rows(rows, coords[-2], coords[-1])]
            return outputs
        raise pb.Unsupported("%s has no %s kernel for %s, nor for an exact substitute (%s)" % (
            self.runtime.name, case.op_type, what, ", ".join(tried[1:]) or "none"))


def main(argv):
    parser = pb.arguments("ONNX backend for dmlref check --exec")
    parser.add_argument("--runtime", choices=sorted(RUNTIMES), required=True,
                        help="what runs the ONNX models")
    args = parser.parse_args(argv[1:])

    def make_backend():
        try:
            return OnnxBackend(RUNTIMES[args.runtime]())
        except RuntimeError as e:  # the runtime cannot run here
            print("onnx_backend: %s" % e, file=sys.stderr)
            return 2

    return pb.serve(make_backend, args.log)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
