#!/usr/bin/python3
"""A PyTorch backend for `dmlref check --exec` (the process protocol).

    dmlref check --exec '/usr/bin/python3 scripts/backends/torch_backend.py' vectors
    dmlref check --exec '/usr/bin/python3 scripts/backends/torch_backend.py --device cuda' vectors

dmlref starts this program once and writes one case per line on its stdin: a
golden vector (vectors/FORMAT.md) without the outputs' "expected" and "xxh3",
without "min_feature_level" and without "expect_error".  For each line this
program answers one line on stdout:

    {"name": NAME, "outputs": {"OutputTensor": [elements...]}}
    {"name": NAME, "status": "unsupported", "message": "..."}   (skipped)
    {"name": NAME, "status": "error", "message": "..."}         (refused / failed)

Each output is given as its logical elements in row-major order, encoded as in
FORMAT.md "Elements" (exact bits).  Nothing else is ever written on stdout;
logs go to stderr.

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
(scripts/dmlref_vectors.py), which applies strides and generators.  Data moves
(the gathers, Scatter) work on signed integer views of the raw bits (int8,
int16, int32, int64), so NaN payloads, -0.0, subnormals and unsigned types that
PyTorch lacks (uint16, uint32, uint64) pass unchanged (D12).  NonZero compares
the float view with 0, so -0.0 is zero and NaN is not (R-NZ-8, R-NZ-9).

What this program decides itself, before PyTorch sees anything:

  * validation: the descriptor rules of docs/rules.md, through the numpy model
    of tests/model.py (validation_problems), plus dmlref's output-layout
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

Options: --device cpu|cuda (default cpu), --threads N (torch.set_num_threads).
"""

import argparse
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import numpy as np  # noqa: E402

import dmlref_vectors as dv  # noqa: E402
import model  # noqa: E402  (tests/model.py: validation_problems)

torch = None  # imported in main(), after stdout is redirected

SIGNED = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
NP_FLOAT = {2: np.float16, 4: np.float32, 8: np.float64}
TORCH_FLOAT = {}  # esize -> torch float dtype, filled in main()
ALIAS_MAX_OFFSETS = 1 << 27  # dmlref decides a layout spanning at most this many offsets,
ALIAS_MAX_ELEMENTS = 1 << 24  # or having at most this many elements (D6)


class Refusal(Exception):
    """The case is invalid, or its index data is out of range: status error."""


# ---------------------------------------------------------------------------
# Reading a case

def load_case(text):
    """The Vector of one protocol line.  The line carries no expect_error, so
    an input of a case that validation refuses may have neither data nor a
    generator; the loader accepts that only in an expect_error case, so a
    placeholder expect_error is put in for reading (it is not used)."""
    quick = json.loads(text)
    if not isinstance(quick, dict):
        raise dv.VectorError("a case is a JSON object")
    op = quick.get("operator")
    op = dv.OPERATOR_ALIASES.get(op, op) if isinstance(op, str) else None
    tensors = quick.get("tensors")
    if op in dv.OPERATORS and isinstance(tensors, dict) and "expect_error" not in quick:
        inputs = dv.OPERATORS[op][0]
        if any(isinstance(tensors.get(n), dict) and "data" not in tensors[n]
               and "generator" not in tensors[n] for n in inputs):
            text = ('{"expect_error": {"status": "DMLREF_ERROR_INVALID_ARGUMENT", "rule": ""}, '
                    + text.lstrip()[1:])
    return dv.loads(text, source=str(quick.get("name", "<stdin>")), case=True)


def layout_problems(v):
    """dmlref's output check (D6, src/core/validate.c): stride 0 on a dimension of
    size > 1 aliases; otherwise the layout is injective when, with the
    dimensions sorted by stride, each stride exceeds the span of the smaller
    ones; else the offsets are compared exactly when there are at most 2^24
    elements or they span at most 2^27 offsets; beyond both dmlref does not
    decide and refuses the layout (DMLREF_ERROR_UNSUPPORTED_LAYOUT)."""
    problems = []
    for t in v.outputs:
        if t.strides is None or 0 in t.sizes:
            continue
        dims = sorted((st, s) for s, st in zip(t.sizes, t.strides) if s > 1)
        if any(st == 0 for st, _ in dims):
            problems.append(("DMLREF_ERROR_OUTPUT_ALIASING", "D6"))
            continue
        span, proven = 0, True
        for st, s in dims:
            if st <= span:
                proven = False
            span += st * (s - 1)
        if proven:
            continue
        count = dv.prod(t.sizes)
        if span + 1 > ALIAS_MAX_OFFSETS and count > ALIAS_MAX_ELEMENTS:
            problems.append(("DMLREF_ERROR_UNSUPPORTED_LAYOUT", "D6"))
            continue
        if count > span + 1:  # more elements than offsets: two share one
            problems.append(("DMLREF_ERROR_OUTPUT_ALIASING", "D6"))
            continue
        offsets = np.asarray(t.offsets())
        if len(np.unique(offsets)) != len(offsets):  # two elements, one address
            problems.append(("DMLREF_ERROR_OUTPUT_ALIASING", "D6"))
    return problems


def validate(v):
    for t in v.tensors.values():
        if t.sizes is None:
            raise Refusal("%s has no sizes" % t.name)
    problems = model.validation_problems(v)
    if not problems:
        problems = layout_problems(v)
    if problems:
        seen = []
        for p in problems:
            if p not in seen:
                seen.append(p)
        raise Refusal("invalid at feature level %s: %s" % (
            v.feature_level, "; ".join("%s (%s)" % p for p in seen)))
    for t in v.inputs:
        if not t.has_data:
            raise Refusal("%s has neither data nor a generator" % t.name)


# ---------------------------------------------------------------------------
# Tensors and indices

class Backend:
    def __init__(self, device):
        self.device = torch.device(device)

    def bits_tensor(self, t):
        """The logical elements of input t as a torch tensor of the signed
        integer type of the same size (a bit view), shaped as t.sizes."""
        bits = np.ascontiguousarray(t.array())
        return torch.from_numpy(bits.view(SIGNED[t.dtype.esize])).to(self.device)

    def index_tensor(self, values):
        return torch.from_numpy(np.ascontiguousarray(values, dtype=np.int64)).to(self.device)

    # -- operators ---------------------------------------------------------
    def run(self, v):
        """The outputs' logical elements as unsigned numpy bit arrays."""
        op = v.operator
        if op == "NONZERO_COORDINATES":
            return self.nonzero(v)
        inp_t, idx_t = v.tensors["InputTensor"], v.tensors["IndicesTensor"]
        a = v.attributes
        if op in ("GATHER_ELEMENTS", "SCATTER_ELEMENTS"):
            axis = a["Axis"]
            rule = "D1" if op == "GATHER_ELEMENTS" else "D2"
            norm = normalize(idx_t, index_values(idx_t), inp_t.sizes[axis], v.oob, rule)
            inp, idx = self.bits_tensor(inp_t), self.index_tensor(norm)
            if op == "GATHER_ELEMENTS":
                out = torch.gather(inp, axis, idx)
            else:
                out = inp.clone()
                out.scatter_(axis, idx, self.bits_tensor(v.tensors["UpdatesTensor"]))
        else:
            out = self.gather_nd(v, inp_t, idx_t)
        out_t = v.outputs[0]
        result = out.cpu().numpy().reshape(out_t.sizes)
        return [result.view(out_t.dtype.np_uint)]

    def gather_nd(self, v, inp_t, idx_t):
        a = v.attributes
        D = inp_t.rank
        m, q = a["InputDimensionCount"], a["IndicesDimensionCount"]
        b = a.get("BatchDimensionCount", 0)  # GATHER_ND is GATHER_ND1 with b = 0 (R-GN-10)
        I, X = inp_t.sizes[D - m:], idx_t.sizes[D - q:]
        k, grid = X[-1], X[:-1]  # grid: the b batch dimensions, then the index grid
        values = index_values(idx_t).reshape(X)
        columns = []
        for j in range(k):
            col = normalize(idx_t, values[..., j], I[b + j], v.oob, "D1", column=j)
            columns.append(self.index_tensor(col))
        batch = []
        for j in range(b):
            shape = [1] * len(grid)
            shape[j] = grid[j]
            batch.append(torch.arange(grid[j], device=self.device).reshape(shape))
        data = self.bits_tensor(inp_t).reshape(I)
        # Advanced indices on the first b + k dimensions, broadcast to `grid`:
        # the result is grid + I[b + k:], the slice dimensions last.
        return data[tuple(batch + columns)]

    def nonzero(self, v):
        inp_t = v.tensors["InputTensor"]
        coords_t = v.tensors["OutputCoordinatesTensor"]
        M, N = coords_t.sizes[-2], coords_t.sizes[-1]
        x = self.bits_tensor(inp_t)
        if inp_t.dtype.is_float:  # numeric zero: -0.0 is zero, NaN is not
            x = x.view(TORCH_FLOAT[inp_t.dtype.esize])
        found = torch.nonzero(x != 0)  # (count, D), row-major order
        count = found.shape[0]
        rows = found[:, inp_t.rank - N:].cpu().numpy().astype(np.uint32)
        return [np.array([count], dtype=np.uint32), Rows(rows, M, N)]


class Rows:
    """NonZero's coordinates: the `count` defined rows; the M - count rows
    after them are written as zeros (any value passes there, R-NZ-14)."""

    def __init__(self, rows, M, N):
        self.rows, self.M, self.N = rows, M, N


def index_values(t):
    """(values as int64, huge): huge marks UINT64 values above 2^63-1, which
    int64 cannot hold (their int64 view is negative); None otherwise."""
    bits = np.ascontiguousarray(t.array())
    name = t.dtype.name
    if name in ("INT32", "INT64"):
        return bits.view(SIGNED[t.dtype.esize]).astype(np.int64)
    if name == "UINT64":
        return bits.view(np.int64)  # values above 2^63-1 become negative: out of range
    return bits.astype(np.int64)  # UINT32 (validation admits no other type)


def normalize(t, values, size, oob, rule, column=None):
    """R-IX-2 (signed: -s..-1 count from the end) and R-IX-4 (the range).  Out
    of range: Refusal under the "error" policy, clamped under "clamp"."""
    signed = t.dtype.name in ("INT32", "INT64")
    norm = np.where(values < 0, values + size, values) if signed else values
    bad = (norm < 0) | (norm >= size)  # unsigned: negative only for UINT64 > 2^63-1
    if not bad.any():
        return norm
    if oob == "clamp":
        clamped = np.clip(norm, 0, size - 1)
        if not signed:  # an unsigned value is never below the range: it was huge
            clamped = np.where(norm < 0, size - 1, clamped)
        return clamped
    first = tuple(int(c) for c in np.argwhere(bad)[0])
    value = int(values[first])
    if not signed and value < 0:
        value += 1 << 64
    where = list(first) + ([column] if column is not None else [])
    valid = "%d to %d" % (-size if signed else 0, size - 1)
    raise Refusal("DMLREF_ERROR_INDEX_OUT_OF_RANGE (%s): IndicesTensor%s = %d is out of range "
                  "for a dimension of size %d (valid: %s)" % (rule, where, value, size, valid))


# ---------------------------------------------------------------------------
# Writing a reply

def encode_elements(dtype, bits):
    """JSON array text of logical elements (unsigned bits), FORMAT.md style:
    integers exact (64-bit beyond 2^53 as strings), floats as the shortest
    decimal of their double value, -0.0, "inf", "-inf", "nan" or hex NaN."""
    bits = np.ascontiguousarray(bits).reshape(-1).view(dtype.np_uint)
    if dtype.is_float:
        f = bits.view(NP_FLOAT[dtype.esize])
        with np.errstate(invalid="ignore"):  # NaNs are re-encoded below, from their bits
            values = f.astype(np.float64).tolist()  # exact: float16/32 are exact doubles
        for i in np.nonzero(~np.isfinite(f))[0].tolist():
            values[i] = dv.encode_element(dtype, int(bits[i]))
    else:
        signed = bits.view(SIGNED[dtype.esize]) if dtype.kind == "int" else bits
        values = signed.tolist()
        if dtype.esize == 8:
            if dtype.kind == "int":
                big = (signed > (1 << 53)) | (signed < -(1 << 53))
            else:
                big = bits > np.uint64(1 << 53)
            for i in np.nonzero(big)[0].tolist():
                values[i] = str(values[i])
    return json.dumps(values, separators=(",", ":"))


def encode_rows(r):
    text = ",".join(map(str, r.rows.reshape(-1).tolist()))
    tail = (r.M - r.rows.shape[0]) * r.N
    if tail:
        text = text + ("," if text else "") + ",".join(["0"] * tail)
    return "[" + text + "]"


def outputs_reply(name, v, results):
    parts = []
    for t, r in zip(v.outputs, results):
        text = encode_rows(r) if isinstance(r, Rows) else encode_elements(t.dtype, r)
        parts.append("%s:%s" % (json.dumps(t.name), text))
    return '{"name":%s,"outputs":{%s}}' % (json.dumps(name), ",".join(parts))


def status_reply(name, status, message):
    message = " ".join(str(message).split())[:2000]  # one line
    return json.dumps({"name": name, "status": status, "message": message})


# ---------------------------------------------------------------------------

def handle(backend, text):
    name = None
    try:
        try:
            quick = json.loads(text)
            name = quick.get("name") if isinstance(quick, dict) else None
        except ValueError:
            pass
        v = load_case(text)
        validate(v)
        return outputs_reply(v.name, v, backend.run(v))
    except Refusal as e:
        return status_reply(name, "error", e)
    except (dv.VectorError, ValueError) as e:
        return status_reply(name, "error", "cannot read the case: %s" % e)
    except RuntimeError as e:
        if "not implemented for" in str(e):
            return status_reply(name, "unsupported", "PyTorch %s on %s: %s"
                                % (torch.__version__, backend.device, str(e).splitlines()[0]))
        traceback.print_exc(file=sys.stderr)
        return status_reply(name, "error", "PyTorch failed: %s" % e)
    except MemoryError:
        return status_reply(name, "error", "out of memory")
    except Exception as e:  # never die on a case: answer it
        traceback.print_exc(file=sys.stderr)
        return status_reply(name, "error", "%s: %s" % (type(e).__name__, e))


def main(argv):
    global torch
    parser = argparse.ArgumentParser(description="PyTorch backend for dmlref check --exec")
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda[:N]")
    parser.add_argument("--threads", type=int, default=0, help="torch.set_num_threads")
    args = parser.parse_args(argv[1:])

    # Replies go to the original stdout; everything else (Python prints, C++
    # warnings of PyTorch) to stderr.
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    import torch as torch_module
    torch = torch_module
    TORCH_FLOAT.update({2: torch.float16, 4: torch.float32, 8: torch.float64})
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("torch_backend: --device %s, but this PyTorch (%s) has no CUDA device"
              % (args.device, torch.__version__), file=sys.stderr)
        return 2
    backend = Backend(args.device)
    print("torch_backend: PyTorch %s on %s" % (torch.__version__, backend.device), file=sys.stderr)

    for raw in sys.stdin.buffer:
        text = raw.decode("utf-8", errors="replace").strip()
        if not text:
            continue
        replies.write(handle(backend, text) + "\n")
        replies.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
