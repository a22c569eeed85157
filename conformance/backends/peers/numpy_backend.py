#!/usr/bin/python3
"""A NumPy backend for `dmlref check --exec` (the process protocol).

    dmlref check --exec '/usr/bin/python3 conformance/backends/peers/numpy_backend.py [--log FILE]' vectors

The protocol, validation and replies are process_backend.py's; this file is
the mapping onto NumPy, the library most users reach for first:

  GATHER_ELEMENTS      np.take_along_axis(input, indices, Axis)
  SCATTER_ELEMENTS     np.put_along_axis(copy of input, indices, updates, Axis);
                       with duplicate targets NumPy does not say which update
                       wins, which the vectors allow (any_of, R-SC-10)
  GATHER_ND, ND1       advanced indexing input[batch aranges..., index columns...]
                       on the last m input and q index dimensions (R-GN-9)
  NONZERO_COORDINATES  np.argwhere(input != 0), the last N columns
                       (right-aligned, R-NZ-13)

NumPy has all eleven DirectML types, so data moves on the case's own type
(its copies keep every bit: NaN payloads, -0.0, subnormals), and NonZero
compares numbers, so -0.0 is zero and NaN is not (R-NZ-8, R-NZ-9).  NumPy
counts negative indices from the end as DirectML does (R-IX-2), so they are
passed as they are.

The only mapping: UINT32 and UINT64 indices are passed as int64, which NumPy
indexes with (a UINT64 above 2^63-1 as 2^63-1: out of range either way).

Out-of-range indices are passed as they are, and NumPy's answer is the
backend's: it raises IndexError, which is answered "error" (a refusal).  That
passes a case that must be refused for its indices; a case that clamps them
("oob": "clamp") is skipped, as NumPy has no clamping mode for these
functions.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import process_backend as pb  # noqa: E402


class NumpyBackend(pb.Backend):
    program = "numpy_backend"

    def describe(self):
        return "NumPy %s" % np.__version__

    def run(self, v):
        op = v.operator
        inp_t = v.tensors["InputTensor"]
        data = pb.values(inp_t)
        try:
            if op == "NONZERO_COORDINATES":
                return pb.nonzero_outputs(v, np.argwhere(data != 0))
            idx_t = v.tensors["IndicesTensor"]
            indices = pb.index_values(idx_t, self.mappings, v.name)
            if op == "GATHER_ELEMENTS":
                out = np.take_along_axis(data, indices, v.attributes["Axis"])
            elif op == "SCATTER_ELEMENTS":
                out = data.copy()
                np.put_along_axis(out, indices, pb.values(v.tensors["UpdatesTensor"]),
                                  v.attributes["Axis"])
            else:
                I, where = pb.gather_nd_index(v, indices, np.arange)
                out = data.reshape(I)[where]
        except IndexError as e:  # NumPy's answer to an out-of-range index
            raise pb.Refusal("NumPy raised IndexError: %s" % e)
        return [out.reshape(v.outputs[0].sizes)]



if __name__ == "__main__":
    args = pb.arguments("NumPy backend for dmlref check --exec").parse_args()
    sys.exit(pb.serve(NumpyBackend, args.log))
