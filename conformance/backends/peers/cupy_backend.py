#!/usr/bin/python3
"""A CuPy backend for `dmlref check --exec` (the process protocol).

    dmlref check --exec 'python3 conformance/backends/peers/cupy_backend.py [--gpu N] [--log FILE]' vectors

The protocol, validation and replies are process_backend.py's; this file is
the mapping onto CuPy, NumPy's interface on an NVIDIA GPU:

  GATHER_ELEMENTS      cupy.take_along_axis(input, indices, Axis)
  SCATTER_ELEMENTS     cupy.put_along_axis(copy of input, indices, updates, Axis)
  GATHER_ND, ND1       advanced indexing input[batch aranges..., index columns...]
                       on the last m input and q index dimensions (R-GN-9)
  NONZERO_COORDINATES  cupy.argwhere(input), the last N columns (right-aligned,
                       R-NZ-13)

CuPy has all eleven DirectML types, so data moves on the case's own type, and
indices are passed as they are, with their own type (INT32, INT64, UINT32,
UINT64: CuPy indexes with unsigned arrays too) and their own values: this
backend maps nothing.  take_along_axis and put_along_axis are advanced
indexing with cupy.arange on the other axes; CuPy turns each index into an
int64 and reduces it modulo its axis (Python's modulo), so negative indices
count from the end as DirectML's do (R-IX-2).  NonZero is argwhere's own test,
input != 0, so -0.0 is zero and NaN is not (R-NZ-8, R-NZ-9).

Out-of-range indices are passed as they are, and CuPy's answer is the
backend's: CuPy does not raise, it wraps every index around its axis
("Differences between CuPy and NumPy", "Out-of-bounds indices").  A UINT64
from 2^63 is reduced as a negative int64 where several index arrays are
combined (take_along_axis on two or more dimensions, GatherND) and as an
unsigned number where one array indexes a 1-D input: out of range either way.
The outputs go to the harness, which skips them in a case that must be
refused for its indices.  CuPy has no clamping mode for these functions
(cupy.take has no mode; cupy.put's "clip" clips indices into the flattened
array, not along an axis), so a case that clamps them ("oob": "clamp") is
passed as it is too, and its wrapped outputs are judged against the clamped
expectations (the log notes each such case; see
docs/conformance/differences/cupy-gpu/).

Subnormals: CuPy compiles its kernels with -ftz=true, so single-precision
arithmetic and comparisons in them flush subnormals to zero.  The gathers and
Scatter copy elements (a load and a store, no arithmetic): on an NVIDIA H100
(CuPy 14.2) they keep subnormals, NaN payloads and -0.0 bit for bit in every
float type.  NonZero's input != 0 is a comparison: for FLOAT32 it counts
subnormals as zero, which R-NZ-10 permits (the vectors' variant
subnormals_flushed); FLOAT16 and FLOAT64 subnormals count as non-zero.

Duplicate Scatter targets: "the value that is actually stored is undefined"
("Differences between CuPy and NumPy", "Duplicate values in indices"); the
vectors accept any of the competing updates (any_of, R-SC-10).

Options: --gpu N (the CUDA device, default 0), --log FILE (process_backend.py).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import process_backend as pb  # noqa: E402

cupy = None  # imported in make_backend(), after stdout is redirected


class CupyBackend(pb.Backend):
    program = "cupy_backend"

    def __init__(self, gpu):
        super().__init__()
        self.gpu = gpu
        cupy.cuda.Device(gpu).use()

    def describe(self):
        runtime = cupy.cuda.runtime
        name = runtime.getDeviceProperties(self.gpu)["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)

        def version(v):
            return "%d.%d" % (v // 1000, v % 1000 // 10)
        return "CuPy %s, CUDA runtime %s, driver API %s, NumPy %s, GPU %d (%s)" % (
            cupy.__version__, version(runtime.runtimeGetVersion()),
            version(runtime.driverGetVersion()), np.__version__, self.gpu, name)

    def run(self, v):
        op = v.operator
        data = cupy.asarray(pb.values(v.tensors["InputTensor"]))
        if op == "NONZERO_COORDINATES":
            return pb.nonzero_outputs(v, cupy.asnumpy(cupy.argwhere(data)))
        if v.oob == "clamp":
            self.mappings.note(v.name, "\"oob\": \"clamp\": CuPy has no clamping mode; "
                               "indices passed as they are (CuPy wraps them)")
        indices = cupy.asarray(pb.values(v.tensors["IndicesTensor"]))
        if op == "GATHER_ELEMENTS":
            out = cupy.take_along_axis(data, indices, v.attributes["Axis"])
        elif op == "SCATTER_ELEMENTS":
            out = data.copy()
            cupy.put_along_axis(out, indices, cupy.asarray(pb.values(v.tensors["UpdatesTensor"])),
                                v.attributes["Axis"])
        else:
            I, where = pb.gather_nd_index(v, indices, cupy.arange)
            out = data.reshape(I)[where]
        return [cupy.asnumpy(out).reshape(v.outputs[0].sizes)]



def main(argv):
    parser = pb.arguments("CuPy backend for dmlref check --exec")
    parser.add_argument("--gpu", type=int, default=0, help="the CUDA device (default 0)")
    args = parser.parse_args(argv[1:])

    def make_backend():
        global cupy
        try:
            import cupy as cupy_module
            cupy = cupy_module
            return CupyBackend(args.gpu)
        except Exception as e:  # no CuPy, no CUDA, no such device
            print("cupy_backend: CuPy cannot run here: %s: %s"
                  % (type(e).__name__, " ".join(str(e).split())), file=sys.stderr)
            return 2

    return pb.serve(make_backend, args.log)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
