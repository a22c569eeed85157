#!/usr/bin/python3
"""A PyTorch backend for `dmlref check --exec` (the process protocol).

    dmlref check --exec '/usr/bin/python3 conformance/backends/peers/torch_backend.py' vectors
    dmlref check --exec '/usr/bin/python3 conformance/backends/peers/torch_backend.py --device cuda' vectors

The protocol, validation and replies are process_backend.py's; this file is
the mapping onto PyTorch.

How each operator maps onto PyTorch:

  GATHER_ELEMENTS      torch.gather(input, Axis, indices)
  SCATTER_ELEMENTS     input.clone().scatter_(Axis, indices, updates); with
                       duplicate targets PyTorch does not say which update
                       wins, which the vectors allow (any_of, R-SC-10)
  GATHER_ND, ND1       advanced indexing input[batch aranges..., tuple columns...]
                       on the last m input and q index dimensions (R-GN-9)
  NONZERO_COORDINATES  torch.nonzero(input != 0), the last N columns
                       (right-aligned, R-NZ-13), rows past the count zero

Everything is computed on logical (packed) tensors built by the loader
(scripts/loaders/dmlref_vectors.py), which applies strides and generators.  Data moves
(the gathers, Scatter) work on signed integer views of the raw bits (int8,
int16, int32, int64), so NaN payloads, -0.0, subnormals and unsigned types that
PyTorch lacks (uint16, uint32, uint64) pass unchanged (D12).  NonZero compares
the float view with 0, so -0.0 is zero and NaN is not (R-NZ-8, R-NZ-9).

What this program decides itself, before PyTorch sees anything:

  * validation: the descriptor rules of docs/rules.md, through the numpy model
    of tests/cross/model.py (validation_problems), plus dmlref's output-layout
    decision D6 (aliasing outputs refused; the layouts dmlref leaves
    undecided, more than 2^24 elements spanning more than 2^27 offsets, are
    refused too, as dmlref does).  An invalid case gets status "error".
  * indices: PyTorch has no negative indices in gather/scatter and only int64
    index tensors, so indices are normalised here (R-IX-2) and range-checked
    (R-IX-4).  Out of range under the default policy ("oob" absent or
    "error"): status "error" (D1, D2), which also keeps a CUDA device from
    asserting.  Under "oob": "clamp": clamped into [0, s-1].  A UINT64 index
    above 2^63-1, which int64 cannot hold, is out of range for every tensor
    (sizes are below 2^32, R-IX-3), so it is handled as any other
    out-of-range index and never reaches PyTorch.

A PyTorch operation that is "not implemented for" a dtype on the chosen device
is answered "unsupported"; any other failure is "error".

Options: --device cpu|cuda (default cpu), --threads N (torch.set_num_threads),
--log FILE (process_backend.py).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import process_backend as pb  # noqa: E402

torch = None  # imported in make_backend(), after stdout is redirected


class TorchBackend(pb.Backend):
    program = "torch_backend"

    def __init__(self, device):
        super().__init__()
        self.device = torch.device(device)
        self.float_types = {2: torch.float16, 4: torch.float32, 8: torch.float64}

    def describe(self):
        return "PyTorch %s on %s" % (torch.__version__, self.device)

    def unsupported(self, exc):
        if isinstance(exc, RuntimeError) and "not implemented for" in str(exc):
            return "PyTorch %s on %s: %s" % (torch.__version__, self.device,
                                             str(exc).splitlines()[0])
        return None

    def bits_tensor(self, t):
        """The logical elements of input t as a torch tensor of the signed
        integer type of the same size (a bit view), shaped as t.sizes."""
        if t.dtype.kind == "uint" and t.dtype.esize > 1:
            self.mappings.note(self.case, "%s data moved as int%d bits (PyTorch lacks the type)"
                               % (t.dtype.name, t.dtype.bits))
        return torch.from_numpy(pb.bits(t, signed=True)).to(self.device)

    def index_tensor(self, values):
        return torch.from_numpy(np.ascontiguousarray(values, dtype=np.int64)).to(self.device)

    def indices(self, v, idx_t, values, size, rule, column=None):
        """Normalised, range-checked int64 indices: PyTorch takes no negative
        index in gather and scatter_, and an out-of-range one raises on the
        CPU and device-asserts on CUDA, so it must never reach PyTorch."""
        if (values < 0).any():
            self.mappings.note(self.case, "negative indices counted from the end here (R-IX-2)")
        if pb.out_of_range(idx_t, values, size).any() and v.oob == "clamp":
            self.mappings.note(self.case, "out-of-range indices clamped here (\"oob\": \"clamp\")")
        return self.index_tensor(pb.normalize(idx_t, values, size, v.oob, rule, column))

    # -- operators ---------------------------------------------------------
    def run(self, v):
        self.case = v.name
        op = v.operator
        if op == "NONZERO_COORDINATES":
            x = self.bits_tensor(v.tensors["InputTensor"])
            if v.tensors["InputTensor"].dtype.is_float:  # numeric zero: -0.0 is zero, NaN is not
                x = x.view(self.float_types[v.tensors["InputTensor"].dtype.esize])
            return pb.nonzero_outputs(v, torch.nonzero(x != 0).cpu().numpy())
        inp_t, idx_t = v.tensors["InputTensor"], v.tensors["IndicesTensor"]
        values = pb.index_values(idx_t, self.mappings, v.name)
        if op in ("GATHER_ELEMENTS", "SCATTER_ELEMENTS"):
            axis = v.attributes["Axis"]
            rule = "D1" if op == "GATHER_ELEMENTS" else "D2"
            idx = self.indices(v, idx_t, values, inp_t.sizes[axis], rule)
            inp = self.bits_tensor(inp_t)
            if op == "GATHER_ELEMENTS":
                out = torch.gather(inp, axis, idx)
            else:
                out = inp.clone()
                out.scatter_(axis, idx, self.bits_tensor(v.tensors["UpdatesTensor"]))
        else:
            out = self.gather_nd(v, inp_t, idx_t, values)
        return [out.cpu().numpy().reshape(v.outputs[0].sizes)]

    def gather_nd(self, v, inp_t, idx_t, values):
        I, X, k, b = pb.gather_nd_shapes(v)
        grid = X[:-1]  # the b batch dimensions, then the index grid
        values = values.reshape(X)
        columns = [self.indices(v, idx_t, values[..., j], I[b + j], "D1", column=j)
                   for j in range(k)]
        batch = []
        for j in range(b):
            shape = [1] * len(grid)
            shape[j] = grid[j]
            batch.append(torch.arange(grid[j], device=self.device).reshape(shape))
        data = self.bits_tensor(inp_t).reshape(I)
        # Advanced indices on the first b + k dimensions, broadcast to `grid`:
        # the result is grid + I[b + k:], the slice dimensions last.
        return data[tuple(batch + columns)]


def main(argv):
    parser = pb.arguments("PyTorch backend for dmlref check --exec")
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda[:N]")
    parser.add_argument("--threads", type=int, default=0, help="torch.set_num_threads")
    args = parser.parse_args(argv[1:])

    def make_backend():
        global torch
        import torch as torch_module
        torch = torch_module
        if args.threads:
            torch.set_num_threads(args.threads)
        if args.device.startswith("cuda") and not torch.cuda.is_available():
            print("torch_backend: --device %s, but this PyTorch (%s) has no CUDA device"
                  % (args.device, torch.__version__), file=sys.stderr)
            return 2
        return TorchBackend(args.device)

    return pb.serve(make_backend, args.log)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
