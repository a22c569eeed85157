#!/usr/bin/python3
"""An independent numpy model of dmlref's five operators, and a test program
that recomputes golden vectors with it.

    python3 tests/cross/model.py [-v] DIR_OR_FILE...

Every *.json vector under the paths is loaded with scripts/loaders/dmlref_vectors.py,
recomputed here from its inputs, and its outputs are checked against the
vector's expectations (bit for bit, any_of, null, digests) with the loader's
check.  Its permitted variants are checked the same way: for NonZero on a
float input holding a subnormal element, the model recomputes the case with
every subnormal flushed to a zero of the same sign (R-NZ-10), and the vector
must state that answer as its variant "subnormals_flushed", and no variant
otherwise.  A vector that expects an error is checked the other way: the model must
find the same status and rule where it models that status (validation rules of
docs/rules.md, out-of-range indices, GATHER_ND1's index batches past the
input's), else the vector is skipped.  A folder's
MANIFEST, when present, is checked too.  The last line is
`N passed, N failed[, N skipped]`; the exit status is 0 only if none failed.

The model is written from docs/rules.md alone, as plainly as numpy allows, and
does not use dmlref.  It computes on logical arrays of raw bits (uint8, uint16,
uint32, uint64 views), so NaN payloads, -0.0 and 64-bit integers pass through
unchanged, exactly as the gathers and Scatter must copy them (D12).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "loaders"))
import dmlref_vectors as dv  # noqa: E402


class ModelRefusal(Exception):
    """The model finds the case invalid: a dmlref status name and rule id."""

    def __init__(self, status, rule, message):
        super().__init__("%s (%s): %s" % (status, rule, message))
        self.status, self.rule = status, rule


# ---------------------------------------------------------------------------
# Index values (R-IX)

SIGNED_INDEX = {"INT32": np.int32, "INT64": np.int64}


def index_values(tensor):
    """The index tensor's values as int64 numbers, shaped as the tensor.

    UINT64 values above 2^63-1 cannot be held in int64; every such value is
    out of range for any size (sizes are below 2^32, R-IX-3), so it becomes
    2^62, which is out of range as well and clamps to the top, as it should."""
    bits = tensor.array()
    name = tensor.dtype.name
    if name in SIGNED_INDEX:
        return bits.view(SIGNED_INDEX[name]).astype(np.int64)
    if name == "UINT64":
        return np.where(bits > np.uint64(2**63 - 1), np.uint64(2**62), bits).astype(np.int64)
    return bits.astype(np.int64)


def normalize(values, size, oob, rule, what):
    """R-IX-2/R-IX-4: -s..-1 count from the end; outside [-s, s-1] is out of
    range: an error (oob "error", D1/D2) or clamped into [0, s-1] ("clamp")."""
    v = np.where(values < 0, values + size, values)
    bad = (v < 0) | (v >= size)
    if bad.any():
        if oob == "clamp":
            return np.clip(v, 0, size - 1)
        first = tuple(int(c) for c in np.argwhere(bad)[0])
        raise ModelRefusal("DMLREF_ERROR_INDEX_OUT_OF_RANGE", rule,
                           "%s%s = %d is out of range for size %d"
                           % (what, list(first), int(values[first]), size))
    return v


# ---------------------------------------------------------------------------
# The operators, on logical bit arrays

def gather_elements(inp, indices, axis, oob):
    """R-GE-6: Output[o] = Input[o with o[Axis] replaced by Indices[o]]."""
    norm = normalize(indices, inp.shape[axis], oob, "D1", "IndicesTensor")
    return np.take_along_axis(inp, norm, axis)


def scatter_elements(inp, indices, updates, axis, oob):
    """R-SC-8/9: Output = Input, then Output[u with u[Axis] replaced by
    Indices[u]] = Updates[u] for every u in row-major order (the last write to
    a target wins, D4)."""
    norm = normalize(indices, inp.shape[axis], oob, "D2", "IndicesTensor")
    target = list(np.indices(indices.shape))
    target[axis] = norm
    flat_target = np.ravel_multi_index(target, inp.shape).reshape(-1)
    # The last update of each target: its first occurrence in reversed order.
    reversed_targets = flat_target[::-1]
    targets, first_in_reversed = np.unique(reversed_targets, return_index=True)
    last = len(flat_target) - 1 - first_in_reversed
    out = inp.copy().reshape(-1)
    out[targets] = updates.reshape(-1)[last]
    return out.reshape(inp.shape)


def check_batches_inside(input_sizes, indices_sizes, m, q, b):
    """R-GN-6: the b batch sizes of Indices may differ from Input's, and the
    output reads Input at its own batch coordinates, the indices'.  More
    index batches than input ones read past the input (what DirectML reads
    there is undefined): refused under every oob policy."""
    D = len(input_sizes)
    for j in range(b):
        if indices_sizes[D - q + j] > input_sizes[D - m + j]:
            raise ModelRefusal("DMLREF_ERROR_INDEX_OUT_OF_RANGE", "R-GN-6",
                               "IndicesTensor.Sizes[%d] = %d batches read past "
                               "InputTensor.Sizes[%d] = %d (batch dimension %d)"
                               % (D - q + j, indices_sizes[D - q + j], D - m + j,
                                  input_sizes[D - m + j], j))


def gather_nd(inp, indices, m, q, b, oob):
    """R-GN-9 with R-GN-7's output shape.  inp and indices are D-dimensional
    with leading 1s; the meaningful parts are the last m and q dimensions.
    The output's batch coordinates, the indices', select the input's batch
    (R-GN-6)."""
    D = inp.ndim
    check_batches_inside(inp.shape, indices.shape, m, q, b)
    I = inp.shape[D - m:]
    X = indices.shape[D - q:]
    k = X[-1]
    r = m - b - k
    data = inp.reshape(I)
    ind = indices.reshape(X)
    grid = X[:-1]  # batch (b) then the index grid (q - 1 - b)
    columns = [normalize(ind[..., j], I[b + j], oob, "D1", "IndicesTensor[..., %d]" % j)
               for j in range(k)]
    batch = [np.indices(grid)[j] for j in range(b)]
    # Advanced indices on the first b + k axes, all broadcast to `grid`: the
    # result has shape grid + I[b + k:], the untouched slice dimensions last.
    result = data[tuple(batch + columns)]
    out_shape = (1,) * (D - (q - 1 + r)) + tuple(grid) + tuple(I[m - r:])
    return result.reshape(out_shape)


SIGN_BIT = {"FLOAT16": 0x8000, "FLOAT32": 0x80000000, "FLOAT64": 1 << 63}
EXPONENT_BITS = {"FLOAT16": 0x7C00, "FLOAT32": 0x7F800000, "FLOAT64": 0x7FF0000000000000}


def flush_subnormals(bits, dtype):
    """R-NZ-10: the elements with every subnormal (exponent field 0, fraction
    not 0) replaced by a zero of the same sign; and how many there were."""
    if dtype.name not in SIGN_BIT:
        return bits, 0
    sign = bits.dtype.type(SIGN_BIT[dtype.name])
    magnitude = bits & bits.dtype.type(~SIGN_BIT[dtype.name] & dtype.mask)
    subnormal = ((bits & bits.dtype.type(EXPONENT_BITS[dtype.name])) == 0) & (magnitude != 0)
    return np.where(subnormal, bits & sign, bits), int(subnormal.sum())


def nonzero_coordinates(inp, dtype, M, N):
    """R-NZ-8..14: the count, and the M x N rows: coordinates of the non-zero
    elements in row-major order, right-aligned to the last N dimensions.
    +0.0 and -0.0 are zero; NaN, infinities and subnormals are not."""
    bits = inp
    if dtype.name in SIGN_BIT:
        bits = inp & inp.dtype.type(~SIGN_BIT[dtype.name] & dtype.mask)
    coords = np.nonzero(bits != 0)  # numpy returns them in row-major order
    count = len(coords[0])
    rows = np.zeros((M, N), dtype=np.uint32)  # rows >= count: any value (R-NZ-14)
    if count:
        rows[:count] = np.stack(coords[inp.ndim - N:], axis=1)
    return np.array([count], dtype=np.uint32), rows


def compute(v, flush=False):
    """The vector's outputs as logical bit arrays, in binding order; raises
    ModelRefusal for an out-of-range index under oob "error".  flush: NonZero
    with subnormal inputs flushed to zero (R-NZ-10)."""
    t, a = v.tensors, v.attributes
    if v.operator == "GATHER_ELEMENTS":
        out = gather_elements(t["InputTensor"].array(), index_values(t["IndicesTensor"]),
                              a["Axis"], v.oob)
        return [out]
    if v.operator == "SCATTER_ELEMENTS":
        out = scatter_elements(t["InputTensor"].array(), index_values(t["IndicesTensor"]),
                               t["UpdatesTensor"].array(), a["Axis"], v.oob)
        return [out]
    if v.operator in ("GATHER_ND", "GATHER_ND1"):
        out = gather_nd(t["InputTensor"].array(), index_values(t["IndicesTensor"]),
                        a["InputDimensionCount"], a["IndicesDimensionCount"],
                        a.get("BatchDimensionCount", 0), v.oob)  # R-GN-10: ND is ND1 with b = 0
        return [out]
    coords = t["OutputCoordinatesTensor"].sizes
    inp = t["InputTensor"].array()
    if flush:
        inp, _ = flush_subnormals(inp, t["InputTensor"].dtype)
    count, rows = nonzero_coordinates(inp, t["InputTensor"].dtype, coords[-2], coords[-1])
    return [count, rows]


def check_batches(v):
    """Raises ModelRefusal for GATHER_ND1's index batches past the input's
    (R-GN-6), as compute() would, from the sizes alone."""
    t, a = v.tensors, v.attributes
    if v.operator in ("GATHER_ND", "GATHER_ND1"):
        check_batches_inside(t["InputTensor"].sizes, t["IndicesTensor"].sizes,
                             a["InputDimensionCount"], a["IndicesDimensionCount"],
                             a.get("BatchDimensionCount", 0))


def check_index_range(v):
    """Raises ModelRefusal for an out-of-range index under oob "error", as
    compute() would, without reading the other inputs (which may be huge)."""
    t, a = v.tensors, v.attributes
    if v.operator == "NONZERO_COORDINATES":
        return
    check_batches(v)
    indices, sizes = index_values(t["IndicesTensor"]), t["InputTensor"].sizes
    if v.operator in ("GATHER_ELEMENTS", "SCATTER_ELEMENTS"):
        rule = "D1" if v.operator == "GATHER_ELEMENTS" else "D2"
        normalize(indices, sizes[a["Axis"]], v.oob, rule, "IndicesTensor")
        return
    m, b = a["InputDimensionCount"], a.get("BatchDimensionCount", 0)
    for j in range(indices.shape[-1]):
        normalize(indices[..., j], sizes[len(sizes) - m + b + j], v.oob, "D1",
                  "IndicesTensor[..., %d]" % j)


# ---------------------------------------------------------------------------
# Validation: what docs/rules.md refuses, as (status, rule) pairs

EIGHT = {"FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8"}
WIDE = EIGHT | {"FLOAT64", "INT64", "UINT64"}
INDEX_TYPES = {"INT64", "INT32", "UINT64", "UINT32"}
ALL_RANKS = set(range(1, 9))
# DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT: the least non-zero alignment (R-TD-14)
MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16

# First feature level of each operator, and the rule reported below it.
FIRST_LEVEL = {"GATHER_ELEMENTS": ("2_1", "R-GE-5"), "GATHER_ND": ("2_1", "R-GN-8"),
               "GATHER_ND1": ("3_0", "R-GN-8"), "SCATTER_ELEMENTS": ("2_0", "R-SC-12"),
               "NONZERO_COORDINATES": ("3_0", "R-NZ-6")}
TABLE_RULE = {"GATHER_ELEMENTS": "R-GE-5", "GATHER_ND": "R-GN-8", "GATHER_ND1": "R-GN-8",
              "SCATTER_ELEMENTS": "R-SC-7"}

# The statuses this model decides completely; others are not modelled.
MODELLED = {"DMLREF_ERROR_INDEX_OUT_OF_RANGE", "DMLREF_ERROR_UNSUPPORTED_OPERATOR",
            "DMLREF_ERROR_UNSUPPORTED_DATA_TYPE", "DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT",
            "DMLREF_ERROR_INVALID_SIZES", "DMLREF_ERROR_INVALID_TOTAL_SIZE",
            "DMLREF_ERROR_TENSOR_TOO_LARGE", "DMLREF_ERROR_INVALID_FLAGS",
            "DMLREF_ERROR_INVALID_ALIGNMENT", "DMLREF_ERROR_OUTPUT_ALIASING",
            "DMLREF_ERROR_DIMENSION_COUNT_MISMATCH", "DMLREF_ERROR_DATA_TYPE_MISMATCH",
            "DMLREF_ERROR_SIZE_MISMATCH", "DMLREF_ERROR_INVALID_ATTRIBUTE"}


def at_least(fl, level):
    return dv.FEATURE_LEVELS.index(fl) >= dv.FEATURE_LEVELS.index(level)


def support_row(op, fl):
    """(data ranks, data types, index ranks, index types) of the support
    tables of GatherElements/GatherND (R-GE-5, R-GN-8) and Scatter (R-SC-7)."""
    if at_least(fl, "4_1"):
        return ALL_RANKS, WIDE, ALL_RANKS, INDEX_TYPES
    if at_least(fl, "3_0"):
        return ALL_RANKS, EIGHT, ALL_RANKS, INDEX_TYPES
    if op == "SCATTER_ELEMENTS" and not at_least(fl, "2_1"):
        return {4}, {"FLOAT32", "FLOAT16"}, {4}, {"UINT32"}
    return {4}, EIGHT, {4}, {"UINT32"}


def tensor_problems(t, problems):
    """The buffer tensor model (R-TD) for one tensor."""
    if 0 in t.sizes:
        problems.append(("DMLREF_ERROR_INVALID_SIZES", "R-TD-2"))
        return
    minimum = dv.calc_buffer_tensor_size(t.dtype, t.sizes, t.strides)
    if minimum > dv.U64:
        problems.append(("DMLREF_ERROR_TENSOR_TOO_LARGE", "R-TD-10"))
    elif t.total_bytes < minimum:
        problems.append(("DMLREF_ERROR_INVALID_TOTAL_SIZE", "R-TD-9"))
    if dv.prod(t.sizes) > 0xFFFFFFFF or t.total_bytes // t.dtype.esize > 0xFFFFFFFF:
        problems.append(("DMLREF_ERROR_TENSOR_TOO_LARGE", "R-TD-13"))
    al = t.alignment
    if al and (al & (al - 1) or al < MINIMUM_BUFFER_TENSOR_ALIGNMENT):
        problems.append(("DMLREF_ERROR_INVALID_ALIGNMENT", "R-TD-14"))
    if t.flags & ~1 or (t.is_output and t.flags & 1):
        problems.append(("DMLREF_ERROR_INVALID_FLAGS", "R-TD-15"))
    if t.is_output:
        if dv.prod(t.sizes) <= 1 << 22:
            offsets = np.asarray(t.offsets())
            aliased = len(np.unique(offsets)) != len(offsets)  # two elements, one address
        else:  # too many to list: only the obvious case
            aliased = any(s > 1 and st == 0 for s, st in zip(t.sizes, t.element_strides))
        if aliased:
            problems.append(("DMLREF_ERROR_OUTPUT_ALIASING", "D6"))


def check_types_ranks(v, fl, problems):
    """Availability, and each tensor's DataType and DimensionCount."""
    op, t = v.operator, v.tensors
    first, rule = FIRST_LEVEL[op]
    if not at_least(fl, first):
        problems.append(("DMLREF_ERROR_UNSUPPORTED_OPERATOR", rule))
        return
    if op == "NONZERO_COORDINATES":
        if t["InputTensor"].dtype.name not in EIGHT:
            problems.append(("DMLREF_ERROR_UNSUPPORTED_DATA_TYPE", "R-NZ-7"))
        if t["OutputCountTensor"].dtype.name != "UINT32":
            problems.append(("DMLREF_ERROR_UNSUPPORTED_DATA_TYPE", "R-NZ-1"))
        if t["OutputCoordinatesTensor"].dtype.name != "UINT32":
            problems.append(("DMLREF_ERROR_UNSUPPORTED_DATA_TYPE", "R-NZ-2"))
        ranks = [t[n].rank for n in ("InputTensor", "OutputCountTensor", "OutputCoordinatesTensor")]
        if at_least(fl, "4_0"):
            allowed = [ALL_RANKS, ALL_RANKS, set(range(2, 9))]
        else:
            allowed = [{4, 5}] * 3
            if len(set(ranks)) > 1:
                problems.append(("DMLREF_ERROR_DIMENSION_COUNT_MISMATCH", "D10"))
        for r, ok in zip(ranks, allowed):
            if r not in ok:
                problems.append(("DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT", "R-NZ-6"))
        return
    data_ranks, data_types, index_ranks, index_types = support_row(op, fl)
    for name, tensor in t.items():
        if name == "IndicesTensor":
            if tensor.dtype.name not in index_types:
                signed_early = tensor.dtype.name in ("INT32", "INT64") and not at_least(fl, "3_0")
                problems.append(("DMLREF_ERROR_UNSUPPORTED_DATA_TYPE",
                                 "D3" if signed_early else "R-IX-1"))
            if tensor.rank not in index_ranks:
                problems.append(("DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT", TABLE_RULE[op]))
        else:
            if tensor.dtype.name not in data_types:
                problems.append(("DMLREF_ERROR_UNSUPPORTED_DATA_TYPE", TABLE_RULE[op]))
            if tensor.rank not in data_ranks:
                problems.append(("DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT", TABLE_RULE[op]))


def check_relations(v, problems):
    """Relations between tensors and attributes (R-GE, R-SC, R-GN, R-NZ)."""
    t, a = v.tensors, v.attributes
    size_mismatch = "DMLREF_ERROR_SIZE_MISMATCH"
    if v.operator in ("GATHER_ELEMENTS", "SCATTER_ELEMENTS"):
        ge = v.operator == "GATHER_ELEMENTS"
        rule = (lambda n: "R-GE-%d" % n) if ge else (lambda n: "R-SC-%d" % n)
        inp, idx, out = t["InputTensor"], t["IndicesTensor"], t["OutputTensor"]
        others = [] if ge else [t["UpdatesTensor"]]
        if len({x.rank for x in [inp, idx, out] + others}) > 1:
            problems.append(("DMLREF_ERROR_DIMENSION_COUNT_MISMATCH", rule(1)))
            return
        if ge and out.dtype is not inp.dtype:
            problems.append(("DMLREF_ERROR_DATA_TYPE_MISMATCH", "R-GE-4"))
        if not ge and not (inp.dtype is out.dtype is others[0].dtype):
            problems.append(("DMLREF_ERROR_DATA_TYPE_MISMATCH", "R-SC-2"))
        axis = a["Axis"]
        if axis >= inp.rank:
            problems.append(("DMLREF_ERROR_INVALID_ATTRIBUTE", rule(2 if ge else 3)))
            return
        if any(idx.sizes[d] != inp.sizes[d] for d in range(inp.rank) if d != axis):
            problems.append((size_mismatch, rule(3 if ge else 4)))
        elif not ge and idx.sizes[axis] > inp.sizes[axis]:  # D16: at most Input's along Axis
            problems.append((size_mismatch, "R-SC-4"))
        if ge and out.sizes != idx.sizes:
            problems.append((size_mismatch, "R-GE-4"))
        if not ge and others[0].sizes != idx.sizes:
            problems.append((size_mismatch, "R-SC-5"))
        if not ge and out.sizes != inp.sizes:
            problems.append((size_mismatch, "R-SC-6"))
    elif v.operator in ("GATHER_ND", "GATHER_ND1"):
        inp, idx, out = t["InputTensor"], t["IndicesTensor"], t["OutputTensor"]
        if len({inp.rank, idx.rank, out.rank}) > 1:
            problems.append(("DMLREF_ERROR_DIMENSION_COUNT_MISMATCH", "R-GN-1"))
            return
        if out.dtype is not inp.dtype:
            problems.append(("DMLREF_ERROR_DATA_TYPE_MISMATCH", "R-GN-1"))
        D = inp.rank
        m, q = a["InputDimensionCount"], a["IndicesDimensionCount"]
        b = a.get("BatchDimensionCount", 0)
        if not (1 <= m <= D and 1 <= q <= D):
            problems.append(("DMLREF_ERROR_INVALID_ATTRIBUTE", "R-GN-2"))
            return
        if not (b < m and b < q):
            problems.append(("DMLREF_ERROR_INVALID_ATTRIBUTE", "R-GN-3"))
            return
        k = idx.sizes[D - 1]
        if not 1 <= k <= m - b:
            problems.append((size_mismatch, "R-GN-4"))
            return
        if any(inp.sizes[i] != 1 for i in range(D - m)) or any(idx.sizes[i] != 1 for i in range(D - q)):
            problems.append((size_mismatch, "R-GN-5"))
        # R-GN-6: the b batch sizes may differ; more index batches than input
        # ones are refused at execution (check_batches_inside), not here
        r = m - b - k
        if q - 1 + r > D:
            problems.append((size_mismatch, "R-GN-7"))
        else:
            want = [1] * (D - (q - 1 + r)) + idx.sizes[D - q:D - 1] + inp.sizes[D - r:]
            if out.sizes != want:
                problems.append((size_mismatch, "R-GN-7"))
    else:
        inp, count, coords = (t["InputTensor"], t["OutputCountTensor"], t["OutputCoordinatesTensor"])
        if any(s != 1 for s in count.sizes):
            problems.append((size_mismatch, "R-NZ-1"))
        if any(s != 1 for s in coords.sizes[:-2]):
            problems.append((size_mismatch, "R-NZ-2"))
        if coords.rank >= 2:
            M, N = coords.sizes[-2], coords.sizes[-1]
            if M != dv.prod(inp.sizes):
                problems.append((size_mismatch, "R-NZ-3"))
            leading_ones = 0
            while leading_ones < inp.rank and inp.sizes[leading_ones] == 1:
                leading_ones += 1
            effective_rank = inp.rank - leading_ones  # R-NZ-4
            if not effective_rank <= N <= inp.rank:
                problems.append((size_mismatch, "R-NZ-5"))


def validation_problems(v, fl=None):
    """Every (status, rule) the model finds broken at feature level fl
    (default the vector's), without looking at index values."""
    fl = fl or v.feature_level
    problems = []
    for tensor in v.tensors.values():
        tensor_problems(tensor, problems)
    check_types_ranks(v, fl, problems)
    if not any(p[0] == "DMLREF_ERROR_INVALID_SIZES" for p in problems):
        check_relations(v, problems)
    return problems


# ---------------------------------------------------------------------------
# Test program

def check_vector(v):
    """('pass' | 'fail' | 'skip', message) for one loaded vector."""
    problems = validation_problems(v)
    if v.expect_error is not None:
        status, rule = v.expect_error["status"], v.expect_error["rule"]
        if not problems and status == "DMLREF_ERROR_INDEX_OUT_OF_RANGE":
            try:
                if all(x.has_data for x in v.inputs):
                    check_index_range(v)
                else:  # the batches need no data
                    check_batches(v)
            except ModelRefusal as refusal:
                problems.append((refusal.status, refusal.rule))
        if (status, rule) in problems:
            return "pass", "the model also refuses it: %s (%s)" % (status, rule)
        if status not in MODELLED:
            return "skip", "expects %s, which the model does not decide" % status
        return "fail", "expects %s (%s); the model finds %s" % (
            status, rule, ", ".join("%s (%s)" % p for p in problems) or "no problem")
    if problems:
        return "fail", "the vector has outputs, but the model refuses it: %s" % (
            ", ".join("%s (%s)" % p for p in problems))
    if v.min_feature_level is not None:
        lowest = next((fl for fl in dv.FEATURE_LEVELS if not validation_problems(v, fl)), None)
        if lowest != v.min_feature_level:
            return "fail", "min_feature_level is %s, the model says %s" % (v.min_feature_level, lowest)
    try:
        outputs = compute(v)
    except ModelRefusal as refusal:
        return "fail", "the vector has outputs, but the model refuses it: %s" % refusal
    buffers = [t.pack(out.astype(t.dtype.np_uint).reshape(-1)) for t, out in zip(v.outputs, outputs)]
    mismatch = v.check_outputs(buffers, variants=False)
    if mismatch is not None:
        return "fail", "model disagrees: %s" % mismatch
    return check_variants(v)


def check_variants(v):
    """('pass' | 'fail', message): the vector states exactly the variants the
    model finds, with the model's answers."""
    want = []
    if v.operator == "NONZERO_COORDINATES" and v.tensors["InputTensor"].dtype.is_float:
        _, subnormals = flush_subnormals(v.tensors["InputTensor"].array(), v.tensors["InputTensor"].dtype)
        if subnormals:
            outputs = compute(v, flush=True)
            flushed = [t.pack(out.astype(t.dtype.np_uint).reshape(-1))
                       for t, out in zip(v.outputs, outputs)]
            # a variant only where the flushed answer breaks the golden one
            if v.check_outputs(flushed, variants=False) is not None:
                want.append(("subnormals_flushed", "R-NZ-10", flushed))
    have = [(x.name, x.rule) for x in v.variants]
    if have != [(name, rule) for name, rule, _ in want]:
        return "fail", "the vector states the variants %s, the model finds %s" % (
            have or "none", [(name, rule) for name, rule, _ in want] or "none")
    for variant, (name, _, buffers) in zip(v.variants, want):
        mismatch = variant.check_outputs(buffers)
        if mismatch is not None:
            return "fail", "model disagrees: %s" % mismatch
    return "pass", "variants: %s" % ", ".join(x.name for x in v.variants) if v.variants else ""


def vector_files(paths):
    """(manifest folders, vector files) under the given paths, sorted."""
    folders, files = [], []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                if "MANIFEST" in names:
                    folders.append(root)
            files.extend(os.path.join(p, rel) for rel in dv.suite_files(p))
        else:
            files.append(p)
    return folders, files


def main(argv):
    verbose = "-v" in argv
    paths = [a for a in argv[1:] if a != "-v"]
    if not paths:
        print("usage: model.py [-v] DIR_OR_FILE...", file=sys.stderr)
        return 2
    counts = {"pass": 0, "fail": 0, "skip": 0}
    folders, files = vector_files(paths)
    for folder in folders:
        try:
            manifest = dv.check_manifest(folder)
        except (dv.VectorError, OSError) as e:
            manifest = [str(e)]
        counts["fail" if manifest else "pass"] += 1
        for problem in manifest:
            print("FAIL %s/MANIFEST: %s" % (folder, problem))
    for path in files:
        try:
            result, message = check_vector(dv.load(path))
        except (dv.VectorError, ValueError, OSError) as e:
            result, message = "fail", "%s: %s" % (type(e).__name__, e)
        counts[result] += 1
        if result == "fail" or verbose:
            print("%s %s%s" % (result.upper(), path, ": " + message if message else ""))
    line = "%d passed, %d failed" % (counts["pass"], counts["fail"])
    if counts["skip"]:
        line += ", %d skipped" % counts["skip"]
    print(line)
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
