#!/usr/bin/python3
"""A JAX backend for `dmlref check --exec` (the process protocol).

    dmlref check --exec 'python3 conformance/backends/peers/jax_backend.py --device gpu [--log FILE]' vectors
    dmlref check --exec 'python3 conformance/backends/peers/jax_backend.py --device cpu' vectors

The protocol, validation and replies are process_backend.py's; this file is
the mapping onto JAX (jax.numpy on XLA), on the device --device names (gpu,
the default, or cpu: JAX_PLATFORMS is set to it before JAX is imported).

How each operator maps onto JAX:

  GATHER_ELEMENTS      jnp.take_along_axis(input, indices, Axis)
  SCATTER_ELEMENTS     jnp.put_along_axis(input, indices, updates, Axis,
                       inplace=False), which is input.at[index tuple].set(updates)
  GATHER_ND, ND1       advanced indexing input[batch aranges..., index columns...]
                       on the last m input and q index dimensions (R-GN-9)
  NONZERO_COORDINATES  jnp.argwhere(input), the last N columns (right-aligned,
                       R-NZ-13)

JAX is configured with jax_enable_x64 (jax.config.update before anything is
made): without it JAX has no 64-bit types and turns INT64, UINT64 and FLOAT64
arrays into 32-bit ones, values and all.  With it JAX has all eleven DirectML
types, so data moves on the case's own type and indices are passed as they
are, with their own type (INT32, INT64, UINT32, UINT64: JAX indexes with
unsigned arrays too) and their own values: nothing is mapped for a valid case
under the default policy.  NonZero is argwhere's own test, input != 0, so -0.0
is zero and NaN is not (R-NZ-8, R-NZ-9).

Negative indices: JAX counts them from the end, as DirectML does (R-IX-2).

Out-of-range indices are passed as they are, and JAX's answer is the
backend's.  JAX never raises for them; under each function's default mode
(jax.numpy.ndarray.at) take_along_axis gives a fill value (mode "fill": NaN
for floats, the most negative value for signed integers, the largest for
unsigned ones), advanced indexing, input[index tuple], clamps the index (its
default promises indices in bounds, and XLA's gather clamps), and
put_along_axis drops the update ("drop").  Those outputs go to the harness,
which skips them in a case that must be refused for its indices.  For a case
that clamps them ("oob": "clamp") the backend asks JAX for its own clamping
mode, mode="clip" ("clamp out of bounds indices into valid range"):
take_along_axis and put_along_axis take it, and GatherND uses
input.at[index tuple].get(mode="clip"), the same gather as input[index tuple]
with the mode named.  That is the one mapping this backend makes, and it is
logged.

JAX converts every index array to int32 (for axes below 2^31 elements) before
the gather or scatter, wrapping modulo 2^32: take_along_axis before it counts
negative indices from the end, advanced indexing and .at after.  So a 64-bit
index outside int32, or a UINT32 index from 2^31, reaches XLA as another
number (2^32 + 1 as 1, in range; 2^31 as -2^31), whatever the mode: under
mode="clip" such an index is clamped to the wrong end, or not at all.  That is
JAX's doing and is reported as it comes
(docs/conformance/differences/jax-gpu/).

Subnormals: a gather or scatter copies bits, and the NonZero test compares
with zero; whether XLA's kernels flush subnormals there shows in the outputs
(flushed NonZero counts are a permitted variant, R-NZ-10; a flushed copy
fails, D12).  On an NVIDIA H100 (JAX 0.11.2) neither flushes: the copies keep
subnormals, NaN payloads and -0.0 bit for bit, in FLOAT16, FLOAT32 and
FLOAT64, and argwhere counts subnormals as non-zero.

Duplicate Scatter targets: JAX applies every update, in an order it calls
implementation-defined and possibly nondeterministic (jax.numpy.ndarray.at);
the vectors accept any of the competing updates (any_of, R-SC-10).

Options: --device gpu|cpu (default gpu), --log FILE (process_backend.py).
XLA_PYTHON_CLIENT_PREALLOCATE is set to false unless given, so that several
backends (dmlref check --jobs) can share a GPU.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import process_backend as pb  # noqa: E402

jax = jnp = None  # imported in make_backend(), after stdout is redirected


class JaxBackend(pb.Backend):
    program = "jax_backend"

    def __init__(self, device):
        super().__init__()
        self.device = device

    def describe(self):
        import jaxlib
        try:
            platform = " ".join(str(self.device.client.platform_version).split())
        except AttributeError:
            platform = "platform version unknown"
        return "JAX %s, jaxlib %s, jax_enable_x64 on, device %s (%s; %s)" % (
            jax.__version__, jaxlib.__version__, self.device, self.device.device_kind, platform)

    def put(self, a):
        return jax.device_put(np.ascontiguousarray(a), self.device)

    def mode(self, v):
        """JAX's out-of-range mode for the case: its default for the strict
        policy, its own clamping mode for "oob": "clamp"."""
        if v.oob == "clamp":
            self.mappings.note(v.name, "\"oob\": \"clamp\" run with JAX's mode=\"clip\"")
            return "clip"
        return None

    def run(self, v):
        op = v.operator
        data = self.put(pb.values(v.tensors["InputTensor"]))
        if op == "NONZERO_COORDINATES":
            return pb.nonzero_outputs(v, np.asarray(jnp.argwhere(data)))
        indices = self.put(pb.values(v.tensors["IndicesTensor"]))
        mode = self.mode(v)
        if op == "GATHER_ELEMENTS":
            out = jnp.take_along_axis(data, indices, v.attributes["Axis"], mode=mode)
        elif op == "SCATTER_ELEMENTS":
            updates = self.put(pb.values(v.tensors["UpdatesTensor"]))
            out = jnp.put_along_axis(data, indices, updates, v.attributes["Axis"],
                                     inplace=False, mode=mode)
        else:
            out = self.gather_nd(v, data, indices, mode)
        return [np.asarray(out).reshape(v.outputs[0].sizes)]

    def gather_nd(self, v, data, indices, mode):
        I, where = pb.gather_nd_index(v, indices, lambda n: self.put(np.arange(n)))
        if mode is None:
            return data.reshape(I)[where]
        return data.reshape(I).at[where].get(mode=mode)


def main(argv):
    parser = pb.arguments("JAX backend for dmlref check --exec")
    parser.add_argument("--device", default="gpu", choices=("gpu", "cpu"),
                        help="gpu (default: JAX's CUDA platform) or cpu")
    args = parser.parse_args(argv[1:])

    def make_backend():
        global jax, jnp
        os.environ["JAX_PLATFORMS"] = "cuda" if args.device == "gpu" else "cpu"
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        try:
            import jax as jax_module
            jax = jax_module
            jax.config.update("jax_enable_x64", True)  # INT64, UINT64, FLOAT64 (above)
            import jax.numpy as jnp_module
            jnp = jnp_module
            device = jax.devices()[0]
        except Exception as e:  # no JAX, or no such platform
            print("jax_backend: --device %s: JAX cannot run here: %s: %s"
                  % (args.device, type(e).__name__, " ".join(str(e).split())), file=sys.stderr)
            return 2
        return JaxBackend(device)

    return pb.serve(make_backend, args.log)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
