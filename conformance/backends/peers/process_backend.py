"""What every Python backend of dmlref's process protocol shares.

A process backend (docs/conformance.md, "Process backends") is started once by
`dmlref check --exec` or `dmlref fuzz --exec` and reads one case per line on
its stdin: a golden vector (vectors/FORMAT.md) without the outputs'
"expected" and "xxh3", without "min_feature_level" and without
"expect_error".  For each line it answers one line on stdout:

    {"name": NAME, "outputs": {"OutputTensor": [elements...]}}
    {"name": NAME, "status": "unsupported", "message": "..."}   (skipped)
    {"name": NAME, "status": "error", "message": "..."}         (refused / failed)

Each output is given as its logical elements in row-major order, encoded as in
FORMAT.md "Elements" (exact bits).  Nothing else is ever written on stdout;
logs go to stderr.

This module holds everything that is not about the library under test, so a
backend is its operator mapping and nothing else:

  * reading a case (load_case) into the loader's Vector (scripts/loaders/dmlref_vectors.py),
    whose tensors give their logical elements as unsigned bit arrays, strides,
    broadcast and generators already applied;
  * validation (validate): the descriptor rules of docs/rules.md through the
    independent numpy model (tests/cross/model.py), and dmlref's output-layout
    decision D6.  DirectML's rules are not the library's to know, so every
    backend refuses what they refuse before the library sees the case;
  * indices (index_values, out_of_range, normalize): DirectML's index types
    as int64 numbers, and its range rules (R-IX-2 to R-IX-4) for backends
    whose library must not see an index out of range;
  * the log of mappings (Mappings): every way a backend changes a case to
    fit its library is written to stderr, once per kind with the first case
    that needed it, and counted when the run ends;
  * replies (encode_elements, Rows, outputs_reply, status_reply) and the
    loop (serve), which answers every line whatever happens.

A backend subclasses Backend: it names itself (describe), maps one valid case
onto its library (run), and may say which of the library's exceptions mean
"cannot do this" (unsupported) rather than a failure.
"""

import argparse
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "loaders"))
sys.path.insert(0, os.path.join(ROOT, "tests", "cross"))

import numpy as np  # noqa: E402

import dmlref_vectors as dv  # noqa: E402
import model  # noqa: E402  (tests/cross/model.py: validation_problems)

SIGNED = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
FLOAT = {2: np.float16, 4: np.float32, 8: np.float64}
INT64_MAX = (1 << 63) - 1
ALIAS_MAX_OFFSETS = 1 << 27  # dmlref decides a layout spanning at most this many offsets,
ALIAS_MAX_ELEMENTS = 1 << 24  # or having at most this many elements (D6)


class Refusal(Exception):
    """The case is invalid, or its index data is out of range: status error."""


class Unsupported(Exception):
    """The library cannot do what the case asks: status unsupported."""


# ---------------------------------------------------------------------------
# Reading and validating a case

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
    """Refusal unless the case is valid at its feature level and every input
    has data."""
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

def bits(t, signed=False):
    """The logical elements of input t, shaped as t.sizes: unsigned bits, or
    the signed integer view of the same width (for libraries that lack
    unsigned types; the bits are the same)."""
    a = np.ascontiguousarray(t.array())
    return a.view(SIGNED[t.dtype.esize]) if signed else a


def values(t):
    """The logical elements of input t as numbers of its own type (numpy has
    all eleven DirectML types)."""
    a = bits(t)
    if t.dtype.is_float:
        return a.view(FLOAT[t.dtype.esize])
    return a.view(SIGNED[t.dtype.esize]) if t.dtype.kind == "int" else a


def index_values(t, mappings=None, case=None):
    """The index tensor's values as int64 numbers, shaped as the tensor.

    UINT32 values fit int64 exactly.  A UINT64 value above 2^63-1 does not;
    it is out of range for every tensor (sizes are below 2^32, R-IX-3), so it
    becomes 2^63-1, out of range for every tensor too, and never a negative
    number that a library would count from the end."""
    a = bits(t)
    name = t.dtype.name
    if name in ("INT32", "INT64"):
        return a.view(SIGNED[t.dtype.esize]).astype(np.int64)
    if name == "UINT64":
        huge = a > np.uint64(INT64_MAX)
        if huge.any():
            if mappings is not None:
                mappings.note(case, "UINT64 indices above 2^63-1 passed as 2^63-1 "
                              "(out of range for every tensor either way, R-IX-3)")
            a = np.where(huge, np.uint64(INT64_MAX), a)
    if mappings is not None:
        mappings.note(case, "%s indices passed as int64 (same values)" % name)
    return a.astype(np.int64)


def out_of_range(t, values, size):
    """A mask of the index values outside R-IX-4's range: [-size, size-1] for
    signed index types, [0, size-1] for unsigned ones."""
    lowest = -size if t.dtype.name in ("INT32", "INT64") else 0
    return (values < lowest) | (values >= size)


def normalize(t, values, size, oob, rule, column=None):
    """R-IX-2 (signed: -s..-1 count from the end) and R-IX-4 (the range), for
    a library that must not see an index out of range.  Out of range:
    Refusal under the "error" policy (D1, D2), clamped under "clamp"."""
    bad = out_of_range(t, values, size)
    norm = np.where(values < 0, values + size, values)
    if not bad.any():
        return norm
    if oob == "clamp":
        return np.clip(norm, 0, size - 1)
    first = tuple(int(c) for c in np.argwhere(bad)[0])
    where = list(first) + ([column] if column is not None else [])
    signed = t.dtype.name in ("INT32", "INT64")
    value = int(values[first])  # a UINT64 above 2^63-1 shows as 2^63-1 (index_values)
    valid = "%d to %d" % (-size if signed else 0, size - 1)
    raise Refusal("DMLREF_ERROR_INDEX_OUT_OF_RANGE (%s): IndicesTensor%s = %d is out of range "
                  "for a dimension of size %d (valid: %s)" % (rule, where, value, size, valid))


def gather_nd_shapes(v):
    """GatherND's and GatherND1's dimensions (R-GN-9): the m input dimensions
    I and q index dimensions X that the operator uses (the last ones), the
    index depth k = X[-1], and b batch dimensions (0 for GATHER_ND, R-GN-10)."""
    a = v.attributes
    inp_t, idx_t = v.tensors["InputTensor"], v.tensors["IndicesTensor"]
    m, q = a["InputDimensionCount"], a["IndicesDimensionCount"]
    b = a.get("BatchDimensionCount", 0)
    I, X = tuple(inp_t.sizes[inp_t.rank - m:]), tuple(idx_t.sizes[idx_t.rank - q:])
    return I, X, X[-1], b


def gather_nd_index(v, indices, arange):
    """GatherND and GatherND1 as advanced indexing, for libraries with
    NumPy's: (I, where), where input.reshape(I)[where] is the output.  The
    index tuple holds an arange (made by `arange`, the library's) for each of
    the b batch dimensions, then the k index columns, all broadcast to the
    index grid X[:-1]; the result is the grid followed by I[b + k:], the
    slice dimensions."""
    I, X, k, b = gather_nd_shapes(v)
    grid = X[:-1]
    columns = indices.reshape(X)
    batch = [arange(grid[j]).reshape([grid[j] if i == j else 1 for i in range(len(grid))])
             for j in range(b)]
    return I, tuple(batch + [columns[..., j] for j in range(k)])


# ---------------------------------------------------------------------------
# The log of mappings

class Mappings:
    """Every change a backend makes to fit a case to its library, written to
    stderr the first time it is made (with the case's name) and counted; the
    counts are written when the run ends."""

    def __init__(self, program):
        self.program, self.counts, self.order = program, {}, []

    def note(self, case, text):
        if text not in self.counts:
            self.counts[text] = 0
            self.order.append(text)
            print("%s: mapping (first in %s): %s" % (self.program, case, text), file=sys.stderr)
        self.counts[text] += 1

    def summary(self):
        for text in self.order:
            print("%s: mapping made in %d cases: %s" % (self.program, self.counts[text], text),
                  file=sys.stderr)


# ---------------------------------------------------------------------------
# Writing a reply

class Rows:
    """NonZero's coordinates: the `count` defined rows (uint32, count x N);
    the M - count rows after them are written as zeros (any value passes
    there, R-NZ-14)."""

    def __init__(self, rows, M, N):
        self.rows, self.M, self.N = rows, M, N


def encode_elements(dtype, elements):
    """JSON array text of logical elements (any numpy array of dtype's width,
    read as its bits), FORMAT.md style: integers exact (64-bit beyond 2^53 as
    strings), floats as the shortest decimal of their double value, -0.0,
    "inf", "-inf", "nan" or hex NaN."""
    u = np.ascontiguousarray(elements).reshape(-1).view(dtype.np_uint)
    if dtype.is_float:
        f = u.view(FLOAT[dtype.esize])
        with np.errstate(invalid="ignore"):  # NaNs are re-encoded below, from their bits
            out = f.astype(np.float64).tolist()  # exact: float16/32 are exact doubles
        for i in np.nonzero(~np.isfinite(f))[0].tolist():
            out[i] = dv.encode_element(dtype, int(u[i]))
    else:
        signed = u.view(SIGNED[dtype.esize]) if dtype.kind == "int" else u
        out = signed.tolist()
        if dtype.esize == 8:
            if dtype.kind == "int":
                big = (signed > (1 << 53)) | (signed < -(1 << 53))
            else:
                big = u > np.uint64(1 << 53)
            for i in np.nonzero(big)[0].tolist():
                out[i] = str(out[i])
    return json.dumps(out, separators=(",", ":"))


def encode_rows(r):
    text = ",".join(map(str, np.asarray(r.rows).reshape(-1).tolist()))
    tail = (r.M - r.rows.shape[0]) * r.N
    if tail:
        text = text + ("," if text else "") + ",".join(["0"] * tail)
    return "[" + text + "]"


def nonzero_outputs(v, found):
    """NonZero's two outputs from `found`, the (count, D) coordinates of the
    non-zero elements in row-major order: the count, and the last N columns
    of each row (right-aligned, R-NZ-13)."""
    inp_t = v.tensors["InputTensor"]
    coords_t = v.tensors["OutputCoordinatesTensor"]
    M, N = coords_t.sizes[-2], coords_t.sizes[-1]
    found = np.asarray(found).reshape(-1, inp_t.rank)
    rows = found[:, inp_t.rank - N:].astype(np.uint32)
    return [np.array([found.shape[0]], dtype=np.uint32), Rows(rows, M, N)]


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
# The backend and its loop

class Backend:
    """One library.  Subclasses set `program` (the name in logs) and define
    describe() and run(v, case) -> the outputs, in the order of v.outputs,
    as numpy arrays of the output's width (any type: the bits are read) or,
    for NonZero's coordinates, Rows.  unsupported(exc) returns a message when
    the library's exception means it cannot do the case, else None."""

    program = "backend"

    def __init__(self):
        self.mappings = Mappings(self.program)

    def describe(self):
        raise NotImplementedError

    def run(self, v):
        raise NotImplementedError

    def unsupported(self, exc):
        return None

    def handle(self, text):
        name = None
        try:
            try:
                quick = json.loads(text)
                name = quick.get("name") if isinstance(quick, dict) else None
            except ValueError:
                pass
            v = load_case(text)
            validate(v)
            return outputs_reply(v.name, v, self.run(v))
        except Refusal as e:
            return status_reply(name, "error", e)
        except Unsupported as e:
            return status_reply(name, "unsupported", e)
        except (dv.VectorError, ValueError) as e:
            return status_reply(name, "error", "cannot read the case: %s" % e)
        except MemoryError:
            return status_reply(name, "error", "out of memory")
        except Exception as e:  # never die on a case: answer it
            why = self.unsupported(e)
            if why is not None:
                return status_reply(name, "unsupported", why)
            traceback.print_exc(file=sys.stderr)
            return status_reply(name, "error", "%s: %s" % (type(e).__name__, e))


def arguments(description):
    """An argument parser with the option every backend takes: --log FILE."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--log", metavar="FILE",
                        help="append the log (stderr: the library, the mappings made) to FILE; "
                             "dmlref check keeps a process's stderr to itself")
    return parser


def serve(make_backend, log=None):
    """Answers every case on stdin.  Replies go to the original stdout;
    everything else (the library's prints and warnings) to stderr, or to the
    file `log`.  make_backend() is called after that redirection, so a
    library imported there cannot write on the replies' stream; it returns a
    Backend, or an exit status when the library cannot run."""
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    if log:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 2)
        os.close(fd)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    backend = make_backend()
    if isinstance(backend, int):
        return backend
    print("%s: %s" % (backend.program, backend.describe()), file=sys.stderr)
    for raw in sys.stdin.buffer:
        text = raw.decode("utf-8", errors="replace").strip()
        if not text:
            continue
        replies.write(backend.handle(text) + "\n")
        replies.flush()
    backend.mappings.summary()
    return 0
