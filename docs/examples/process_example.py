#!/usr/bin/python3
"""A minimal process backend for `dmlref check --exec` (docs/conformance.md):
GATHER_ELEMENTS on packed FLOAT32 tensors from FL 3_0; everything else is
answered "unsupported" (skipped).

    build/dmlref check --exec 'python3 docs/examples/process_example.py' vectors/gather_elements
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "loaders"))
import dmlref_vectors as dv  # noqa: E402


class Reply(Exception):
    """Ends a case with a status ("unsupported" or "error") and a message."""


def check(v):
    """Unsupported cases, then the rules of docs/rules.md this operator needs."""
    if v.operator != "GATHER_ELEMENTS" or dv.FEATURE_LEVELS.index(v.feature_level) < 3:  # 3_0
        raise Reply("unsupported", "only GATHER_ELEMENTS, from FL 3_0")
    inp, idx, out = v.tensors["InputTensor"], v.tensors["IndicesTensor"], v.tensors["OutputTensor"]
    if inp.dtype.name != "FLOAT32" or any(t.strides is not None for t in (inp, idx, out)):
        raise Reply("unsupported", "only packed FLOAT32 tensors")
    if idx.dtype.name not in ("INT32", "INT64", "UINT32", "UINT64"):
        raise Reply("error", "IndicesTensor: %s is not an index type (R-IX-1)" % idx.dtype.name)
    for t in (inp, idx, out):
        n, al = t.element_count, t.alignment
        if not 1 <= t.rank <= 8 or n == 0 or n > 0xFFFFFFFF or t.total_bytes < t.min_bytes \
                or t.total_bytes // t.dtype.esize > 0xFFFFFFFF \
                or t.flags & ~(0 if t.is_output else 1) or (al and (al & (al - 1) or al < 16)):
            raise Reply("error", "%s: bad sizes, total size, flags or alignment (R-TD)" % t.name)
    if out.dtype is not inp.dtype or not inp.rank == idx.rank == out.rank \
            or v.attributes["Axis"] >= inp.rank or out.sizes != idx.sizes \
            or any(a != b for d, (a, b) in enumerate(zip(inp.sizes, idx.sizes)) if d != v.attributes["Axis"]):
        raise Reply("error", "the tensors or Axis do not fit together (R-GE-1..4)")


def gather_elements(v):
    """R-GE-6: Output[o] = Input[o with o[Axis] replaced by Indices[o]], bit for bit."""
    inp, idx, out = v.tensors["InputTensor"], v.tensors["IndicesTensor"], v.tensors["OutputTensor"]
    axis = v.attributes["Axis"]
    size, strides = inp.sizes[axis], dv.packed_strides(inp.sizes)
    data, indices = inp.bits(), idx.bits()  # logical elements as bit patterns
    result = []
    for o in range(out.element_count):
        k = dv.bits_to_value(idx.dtype, int(indices[o]))  # INT32/INT64 may be negative
        if k < 0 and idx.dtype.kind == "int":
            k += size  # R-IX-2
        if not 0 <= k < size:
            raise Reply("error", "IndicesTensor element %d is out of range (D1)" % o)
        coord = list(dv.unravel(o, idx.sizes))
        coord[axis] = k
        bits = int(data[sum(c * s for c, s in zip(coord, strides))])
        result.append(dv.encode_element(out.dtype, bits))  # "nan", "0x7fc00001", -0.0, ...
    return {"OutputTensor": result}


def answer(line):
    name = json.loads(line).get("name")
    try:
        # case=True: the outputs come without "expected".  A case that must
        # be refused comes with its input data unless its shapes cannot hold
        # any; without it the loader raises VectorError, answered below as a
        # refusal.
        v = dv.loads(line, case=True)
        check(v)
        return {"name": name, "outputs": gather_elements(v)}
    except Reply as r:
        return {"name": name, "status": r.args[0], "message": r.args[1]}
    except (dv.VectorError, ValueError) as e:
        return {"name": name, "status": "error", "message": str(e).replace("\n", " ")}


for line in sys.stdin:
    if line.strip():
        print(json.dumps(answer(line)), flush=True)  # exactly one line per case
