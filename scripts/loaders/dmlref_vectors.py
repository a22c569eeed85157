#!/usr/bin/python3
"""Read dmlref golden vectors (vectors/FORMAT.md) and check outputs against them.

Standard library only; numpy is used when it can be imported (for speed), and
the python-xxhash module likewise (a pure-Python XXH3-64 is the fallback).

Both formats are read: "dmlref-vector-1" and "dmlref-vector-2", which adds
permitted variants (other whole answers DirectML allows, e.g. NonZero with
subnormals flushed to zero): :attr:`Vector.variants`.

A vector is loaded strictly: unknown or duplicate keys, a wrong ``format``,
an element that is not exactly representable in its type, a generator with bad
parameters, ... raise :class:`VectorError` with the file name and the JSON
path of the offending value.  Elements are kept as exact bit patterns
(unsigned integers), never as rounded values.

Usage (the vector is FORMAT.md's example; a real one would come from a file
with ``load(path)``)::

    >>> import dmlref_vectors as dv
    >>> v = dv.loads('''{"format": "dmlref-vector-1",
    ...   "name": "gather_elements/float32/2d/doc_example",
    ...   "operator": "GATHER_ELEMENTS", "attributes": {"Axis": 0},
    ...   "tensors": {
    ...     "InputTensor": {"dtype": "FLOAT32", "sizes": [3, 3],
    ...                     "data": [1, 2, 3, 4, 5, 6, 7, 8, 9]},
    ...     "IndicesTensor": {"dtype": "UINT32", "sizes": [2, 3],
    ...                       "data": [1, 2, 0, 2, 0, 0]},
    ...     "OutputTensor": {"dtype": "FLOAT32", "sizes": [2, 3],
    ...                      "expected": [4, 8, 3, 7, 2, 3]}}}''')
    >>> [len(b) for b in v.input_buffers()]       # binding order, total_bytes each
    [36, 24]
    >>> out = v.outputs[0]
    >>> v.check_outputs([out.pack([4.0, 8.0, 3.0, 7.0, 2.0, 3.0])]) is None
    True
    >>> print(v.check_outputs([out.pack([4.0, 8.0, 3.0, 7.0, 5.0, 3.0])]))
    OutputTensor[1, 1] (element 4): expected 0x40000000 (2.0), got 0x40a00000 (5.0); 1 wrong element

``Tensor.pack`` lays out logical elements (bit patterns, or Python numbers that
are exact in the dtype) in a buffer of the tensor's ``total_bytes``, exactly as
an implementation's output would be; an implementation under test passes its
own output buffers (``bytes``, one per output, binding order) instead.
``check_outputs`` accepts the golden answer or a permitted variant's;
``match_outputs`` also says which one the outputs show.

Command line (``python3 -m dmlref_vectors ...`` once installed with pip:
docs/loaders.md, "Installing")::

    python3 scripts/loaders/dmlref_vectors.py check VECTOR.json OUTPUT.bin...   # raw output buffers
    python3 scripts/loaders/dmlref_vectors.py inputs VECTOR.json DIR            # writes DIR/<Tensor>.bin
    python3 scripts/loaders/dmlref_vectors.py selftest                          # XXH3, numpy/pure paths
    python3 scripts/loaders/dmlref_vectors.py --version                         # dmlref's version
"""

import copy
import json
import math
import os
import re
import stat
import struct
import sys

try:
    import numpy as np
except ImportError:  # optional: every path below has a pure-Python twin
    np = None

try:
    import xxhash as _xxhash_module
except ImportError:
    _xxhash_module = None

# dmlref's version (include/dmlref.h), which the pip package takes as its own
# (scripts/loaders/pyproject.toml); make check-packaging fails when they differ.
__version__ = "0.1.0"

FORMAT = "dmlref-vector-1"  # what a vector without variants is
FORMAT_WITH_VARIANTS = "dmlref-vector-2"
FORMATS = (FORMAT, FORMAT_WITH_VARIANTS)
# The variants this reader knows (FORMAT.md, "Variants"): name -> rule id.
VARIANT_RULES = {"subnormals_flushed": "R-NZ-10"}
U64 = (1 << 64) - 1

# The C reader's caps (vectors/FORMAT.md, "Files, memory and alignment"):
# a vector file is a regular file of at most MAX_FILE_BYTES
# (DMLREF_VECTOR_MAX_FILE_BYTES), and what one case makes the reader allocate
# (the file's text, the input buffers, the scratch of placing them, logical
# elements expanded on request) stays under a memory cap, DEFAULT_MEMORY_CAP
# unless load()/loads() are given memory_cap.
MAX_FILE_BYTES = 1 << 30
DEFAULT_MEMORY_CAP = 4 << 30
MAX_TENSOR_ELEMENTS = (1 << 32) - 1  # R-TD-13
_CHUNK = 1 << 20  # logical elements generated and placed at a time


class VectorError(ValueError):
    """A vector file that does not follow vectors/FORMAT.md, or one that passes
    the reader's caps: the message is one line naming the file, the JSON path
    where there is one, and the rule."""


def _file_kind(mode):
    for test, kind in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "of another kind"


def read_regular_file(path, limit=MAX_FILE_BYTES, what="vectors", prefix=False):
    """The bytes of `path`, which must be a regular file of at most `limit`
    bytes (with prefix=True: its first `limit` bytes, however long).  Anything else (a FIFO, a device, a directory, a socket) is
    refused before it is opened and again after (the path may change in
    between), without blocking or reading from it; a VectorError says why in
    one line, as dmlref's own reader does."""
    def refuse(mode):
        raise VectorError("%s: not a regular file (%s): %s are read from regular files only"
                          % (path, _file_kind(mode), what))

    def too_large():
        raise VectorError("%s: larger than %d bytes" % (path, limit))

    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            refuse(mode)
        flags = os.O_RDONLY
        for name in ("O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC", "O_BINARY"):
            flags |= getattr(os, name, 0)
        fd = os.open(path, flags)
    except OSError as e:
        raise VectorError("%s: cannot open: %s" % (path, e.strerror or e)) from None
    with os.fdopen(fd, "rb", buffering=0) as f:
        try:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                refuse(st.st_mode)
            if prefix:
                return f.read(limit)
            if st.st_size > limit:
                too_large()
            # the size the file gave and one byte more; a file that grows
            # meanwhile is read on, up to the limit
            parts = [f.read(st.st_size + 1)]
            read = len(parts[0])
            while read <= limit and len(parts[-1]):
                parts.append(f.read(limit + 1 - read))
                read += len(parts[-1])
        except OSError as e:
            raise VectorError("%s: cannot read: %s" % (path, e.strerror or e)) from None
    if read > limit:
        too_large()
    return parts[0] if len(parts) == 1 else b"".join(parts)


class _Budget:
    """One case's memory cap: every large allocation is counted before it is
    made (vectors/FORMAT.md, "One memory cap per case")."""

    def __init__(self, cap, source):
        self.cap, self.used, self.source = cap or DEFAULT_MEMORY_CAP, 0, source

    def take(self, nbytes, path, what):
        if nbytes > self.cap - self.used:
            raise VectorError(
                "%s: %s: the case needs more than the memory cap of %d bytes: %d bytes for %s, "
                "%d in all (memory_cap sets the cap)"
                % (self.source, path, self.cap, nbytes, what, self.used + nbytes))
        self.used += nbytes

    def give_back(self, nbytes):
        self.used -= nbytes


# ---------------------------------------------------------------------------
# Data types

class DType:
    """One DirectML data type: ``name``, ``esize`` (bytes), ``kind``
    ('int', 'uint' or 'float') and, for integers, the value range."""

    def __init__(self, name, esize, kind):
        self.name, self.esize, self.kind = name, esize, kind
        self.bits = 8 * esize
        self.mask = (1 << self.bits) - 1
        if kind == "int":
            self.min, self.max = -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        elif kind == "uint":
            self.min, self.max = 0, self.mask
        else:
            self.min = self.max = None

    @property
    def is_float(self):
        return self.kind == "float"

    @property
    def np_uint(self):
        """numpy dtype holding this type's bits (little-endian unsigned)."""
        return np.dtype("<u%d" % self.esize)

    def __repr__(self):
        return self.name


DTYPES = {d.name: d for d in (
    DType("FLOAT32", 4, "float"), DType("FLOAT16", 2, "float"), DType("UINT32", 4, "uint"),
    DType("UINT16", 2, "uint"), DType("UINT8", 1, "uint"), DType("INT32", 4, "int"),
    DType("INT16", 2, "int"), DType("INT8", 1, "int"), DType("FLOAT64", 8, "float"),
    DType("UINT64", 8, "uint"), DType("INT64", 8, "int"))}

_STRUCT_FLOAT = {2: "<e", 4: "<f", 8: "<d"}
_STRUCT_UINT = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}
_CANONICAL_NAN = {2: 0x7E00, 4: 0x7FC00000, 8: 0x7FF8000000000000}
_ONE = {2: 0x3C00, 4: 0x3F800000, 8: 0x3FF0000000000000}  # floats' 1.0


def float_is_nan(esize, bits):
    """True when `bits` is a NaN of the float type of `esize` bytes."""
    exp_bits, man_bits = {2: (5, 10), 4: (8, 23), 8: (11, 52)}[esize]
    exponent = (bits >> man_bits) & ((1 << exp_bits) - 1)
    return exponent == (1 << exp_bits) - 1 and bits & ((1 << man_bits) - 1) != 0


def bits_to_value(dtype, bits):
    """The numeric value of a bit pattern: int for integers, float for floats
    (NaN payloads are lost; use the bits when they matter)."""
    if dtype.is_float:
        return struct.unpack(_STRUCT_FLOAT[dtype.esize],
                             struct.pack(_STRUCT_UINT[dtype.esize], bits))[0]
    if dtype.kind == "int" and bits >> (dtype.bits - 1):
        return bits - (1 << dtype.bits)
    return bits


def describe_bits(dtype, bits):
    """'0x40a00000 (5.0)': the bits in hex and the value, for messages."""
    return "0x%0*x (%r)" % (2 * dtype.esize, bits, bits_to_value(dtype, bits))


def float_to_bits(dtype, value):
    """The bits of Python float `value` in a float dtype; VectorError when the
    value is not exactly representable (a value is never rounded)."""
    fmt = _STRUCT_FLOAT[dtype.esize]
    if math.isnan(value):
        return _CANONICAL_NAN[dtype.esize]
    try:
        packed = struct.pack(fmt, value)  # rounds (or overflows) when inexact
    except OverflowError:
        raise VectorError("%r is out of %s's range" % (value, dtype.name)) from None
    if struct.unpack(fmt, packed)[0] != value:
        raise VectorError("%r is not exactly representable as %s" % (value, dtype.name))
    return struct.unpack(_STRUCT_UINT[dtype.esize], packed)[0]


# ---------------------------------------------------------------------------
# Strict JSON

class _Int(int):
    """A JSON integer token; keeps its text so that `-0` stays -0.0 in a float
    tensor (a binary64 parser reads "-0" as negative zero)."""
    text = "0"


def _parse_int(text):
    token = _Int(text)
    token.text = text
    return token


class _Float:
    """A JSON number token with a fraction or exponent, kept as its text."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _reject_constant(name):
    raise VectorError("$: %s is not JSON (write non-finite floats as strings)" % name)


def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise VectorError("$: key %s appears twice in one object" % json.dumps(key))
        obj[key] = value
    return obj


_BAD_CHAR_RE = re.compile("[\x00\ud800-\udfff]")
# The number token -0 outside strings (FORMAT.md, "Elements"): some JSON
# readers read it as +0, losing a float element's sign.
_MINUS_ZERO_RE = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![0-9eE.+-])(-0)(?![0-9.eE])')


def _minus_zero_at(text):
    """(line, column) of the first number token -0 in `text`, or None."""
    if "-0" not in text:
        return None
    for m in _MINUS_ZERO_RE.finditer(text):
        if m.group(1):
            at = m.start(1)
            return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    return None


def parse_json(text):
    """json.loads, strictly: no duplicate keys, no NaN/Infinity literals, no
    number token -0, no U+0000 or lone surrogate (from \\u escapes) in a
    string, and numbers kept exact (integers as int, others as their text)."""
    minus_zero = _minus_zero_at(text)
    if minus_zero:
        raise VectorError("$: line %d, column %d: the number -0 is ambiguous in JSON readers: "
                          "write -0.0 (negative zero) or 0" % minus_zero)
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates, parse_int=_parse_int,
                         parse_float=_Float, parse_constant=_reject_constant)
    except RecursionError:
        raise VectorError("$: nested too deeply") from None
    stack = [doc]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
        elif isinstance(x, str) and _BAD_CHAR_RE.search(x):
            raise VectorError("$: the string %s holds U+0000 or a lone surrogate" % ascii(x)[:60])
    return doc


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


_DECIMAL_RE = re.compile(r"(0|-?[1-9][0-9]*)\Z")  # no leading zeros, no "-0"


def _int64_like(x):
    """An integer or a decimal string (64-bit elements, seeds, bounds) -> int."""
    if _is_int(x):
        return int(x)
    if isinstance(x, str) and _DECIMAL_RE.match(x):
        return int(x)
    raise VectorError("expected an integer or a string of decimal digits, got %s" % _show(x))


def _show(x):
    if isinstance(x, (_Float, _Int)):
        return x.text if isinstance(x, _Int) else repr(x)
    return json.dumps(x) if isinstance(x, (str, bool, type(None))) else type(x).__name__


# ---------------------------------------------------------------------------
# Elements

_HEX_RE = re.compile(r"0x[0-9a-f]+\Z")


def decode_element(dtype, x):
    """The bits of one element as FORMAT.md "Elements" encodes it.

    Also accepts plain Python ints and floats (exact values only), so that
    callers can write ``Tensor.pack([1.0, 2.5])``."""
    if dtype.is_float:
        if isinstance(x, str):
            if x == "inf":
                return float_to_bits(dtype, math.inf)
            if x == "-inf":
                return float_to_bits(dtype, -math.inf)
            if x == "nan":
                return _CANONICAL_NAN[dtype.esize]
            if _HEX_RE.match(x) and len(x) == 2 + 2 * dtype.esize:
                bits = int(x, 16)
                if not float_is_nan(dtype.esize, bits):
                    raise VectorError("%s is not a NaN of %s: write the number" % (x, dtype.name))
                return bits
            raise VectorError("%s is not a %s element" % (json.dumps(x), dtype.name))
        if isinstance(x, (_Int, _Float)):
            value = float(x.text)  # Python's float() is a correctly rounded binary64 parser
        elif isinstance(x, float):
            value = x
        elif _is_int(x):
            value = float(str(x))
        else:
            raise VectorError("%s is not a %s element" % (_show(x), dtype.name))
        # An integer is never rounded, not even by the double parser: 2^53 + 1
        # is refused (a decimal with a fraction or exponent is read as a double).
        if _is_int(x) and not math.isinf(value) and int(value) != int(x):
            raise VectorError("%s is not exactly representable as %s" % (_show(x), dtype.name))
        if math.isinf(value):  # a finite decimal too large for a double
            raise VectorError("%s overflows a double; write \"inf\"" % _show(x))
        return float_to_bits(dtype, value)
    # Integers.  64-bit types also take decimal strings (exact beyond 2^53).
    if dtype.esize == 8 and isinstance(x, str):
        value = _int64_like(x)
    elif _is_int(x):
        value = int(x)
    else:
        raise VectorError("%s is not a %s element (an integer)" % (_show(x), dtype.name))
    if not dtype.min <= value <= dtype.max:
        raise VectorError("%d is out of %s's range" % (value, dtype.name))
    return value & dtype.mask


def _element_bits(dtype, e):
    """An element given to Tensor.pack: an int is a bit pattern (for integer
    types also a negative value), a float or string is decoded."""
    if np is not None and isinstance(e, np.generic):
        e = e.item()  # a numpy scalar: its Python int or float
    if _is_int(e):
        lowest = 0 if dtype.is_float else dtype.min
        if not lowest <= e <= dtype.mask:
            raise ValueError("%d does not fit %s" % (e, dtype.name))
        return int(e) & dtype.mask
    return decode_element(dtype, e)


def encode_element(dtype, bits):
    """The JSON value of an element, as FORMAT.md says dmlref writes it."""
    if dtype.is_float:
        if float_is_nan(dtype.esize, bits):
            return "nan" if bits == _CANONICAL_NAN[dtype.esize] else "0x%0*x" % (2 * dtype.esize, bits)
        value = bits_to_value(dtype, bits)
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        # repr() is the shortest decimal that a binary64 parser reads back as
        # this double, and float16/float32 values are exact doubles.
        return value
    value = bits_to_value(dtype, bits)
    if dtype.esize == 8 and abs(value) > 1 << 53:
        return str(value)
    return value


def dumps(obj, indent=""):
    """JSON text of a vector object: one key per line, arrays on one line."""
    if isinstance(obj, dict) and obj:
        inner = indent + "  "
        items = ["%s%s: %s" % (inner, json.dumps(k), dumps(v, inner)) for k, v in obj.items()]
        return "{\n%s\n%s}" % (",\n".join(items), indent)
    return json.dumps(obj, separators=(", ", ": "), allow_nan=False)


# ---------------------------------------------------------------------------
# Generators (SplitMix64)

_GOLDEN = 0x9E3779B97F4A7C15
_MIX1, _MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def splitmix64(seed, i):
    """r(i) of FORMAT.md "Generators" (pure Python)."""
    z = (seed + (i + 1) * _GOLDEN) & U64
    z = ((z ^ (z >> 30)) * _MIX1) & U64
    z = ((z ^ (z >> 27)) * _MIX2) & U64
    return z ^ (z >> 31)


def _splitmix64_np(seed, n, start=0):
    """r(start..start+n-1) as a numpy uint64 array (the arithmetic wraps modulo 2^64)."""
    u = np.uint64
    z = u(seed) + (np.arange(start, start + n, dtype=np.uint64) + u(1)) * u(_GOLDEN)
    z = (z ^ (z >> u(30))) * u(_MIX1)
    z = (z ^ (z >> u(27))) * u(_MIX2)
    return z ^ (z >> u(31))


def _generate_one(dtype, spec, i):
    """Element i (bits) of a validated generator, in pure Python."""
    r = splitmix64(spec["seed"], i)
    kind = spec["kind"]
    if kind == "bits":
        v = r
    elif kind == "sparse":
        v = (_ONE[dtype.esize] if dtype.is_float else 1) if r % 1000000 < spec["density"] else 0
    else:
        j = i % len(spec["low"])
        v = spec["low"][j] + r % (spec["high"][j] - spec["low"][j] + 1)
    return v & dtype.mask


def generate(dtype, spec, n, use_numpy=None, start=0):
    """The logical elements start..start+n-1 (bits) a validated generator
    object makes: a numpy array of dtype.np_uint when numpy is used, else a
    list of ints."""
    use_numpy = np is not None if use_numpy is None else use_numpy
    kind, seed = spec["kind"], spec["seed"]
    if not use_numpy:
        return [_generate_one(dtype, spec, i) for i in range(start, start + n)]
    r = _splitmix64_np(seed, n, start)
    if kind == "bits":
        out = r  # astype below keeps the low esize bytes
    elif kind == "sparse":
        one = _ONE[dtype.esize] if dtype.is_float else 1
        out = np.where(r % np.uint64(1000000) < np.uint64(spec["density"]),
                       np.uint64(one), np.uint64(0))
    else:  # index: low[j] + r mod (high[j] - low[j] + 1), j = i mod len(low)
        low, high = spec["low"], spec["high"]
        j_of = np.arange(start, start + n, dtype=np.uint64) % np.uint64(len(low))
        out = np.empty(n, dtype=np.uint64)
        for j in range(len(low)):
            span = high[j] - low[j] + 1  # up to 2^64: then r mod span = r
            sel = j_of == np.uint64(j)
            part = r[sel]
            if span <= U64:
                part = part % np.uint64(span)
            # two's complement: the low bits of low + v are those of the value
            out[sel] = part + np.uint64(low[j] & U64)
    return out.astype(dtype.np_uint)


# ---------------------------------------------------------------------------
# XXH3-64, seed 0

def xxh3_64(data):
    """XXH3-64 with seed 0 of `data` (bytes-like) as an int."""
    if _xxhash_module is not None:
        return _xxhash_module.xxh3_64_intdigest(bytes(data))
    return xxh3_64_pure(data)


# Written from the XXH3 description in xxHash's doc/xxhash_spec.md (seed 0 and
# the default secret only, which is all FORMAT.md uses).
_P32_1, _P32_2, _P32_3 = 0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D
_P64_1, _P64_2, _P64_3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P64_4, _P64_5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5
_PMX1, _PMX2 = 0x165667919E3779F9, 0x9FB21C651E98DF25
_SECRET = bytes.fromhex(  # the 192-byte default secret (kSecret)
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e")
_STRIPE = 64
_STRIPES_PER_BLOCK = (len(_SECRET) - _STRIPE) // 8  # 16
_BLOCK = _STRIPE * _STRIPES_PER_BLOCK  # 1024 bytes


def _r64(b, o):
    return struct.unpack_from("<Q", b, o)[0]


def _r32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def _fold64(a, b):
    """The 128-bit product of a and b, its two halves xored."""
    p = a * b
    return (p ^ (p >> 64)) & U64


def _xxh64_avalanche(h):
    h = ((h ^ (h >> 33)) * _P64_2) & U64
    h = ((h ^ (h >> 29)) * _P64_3) & U64
    return h ^ (h >> 32)


def _xxh3_avalanche(h):
    h = ((h ^ (h >> 37)) * _PMX1) & U64
    return h ^ (h >> 32)


def _rotl64(x, r):
    return ((x << r) | (x >> (64 - r))) & U64


def _mix16(data, o, secret_o):
    lo = _r64(data, o) ^ _r64(_SECRET, secret_o)
    hi = _r64(data, o + 8) ^ _r64(_SECRET, secret_o + 8)
    return _fold64(lo, hi)


def xxh3_64_pure(data):
    """XXH3-64 with seed 0, in pure Python (any length; slow on big inputs)."""
    data = bytes(data)
    n = len(data)
    if n == 0:
        return _xxh64_avalanche(_r64(_SECRET, 56) ^ _r64(_SECRET, 64))
    if n <= 3:
        combined = (data[0] << 16) | (data[n >> 1] << 24) | data[n - 1] | (n << 8)
        return _xxh64_avalanche(combined ^ (_r32(_SECRET, 0) ^ _r32(_SECRET, 4)))
    if n <= 8:
        x = (_r32(data, n - 4) + (_r32(data, 0) << 32)) ^ (_r64(_SECRET, 8) ^ _r64(_SECRET, 16))
        x ^= _rotl64(x, 49) ^ _rotl64(x, 24)  # rrmxmx
        x = (x * _PMX2) & U64
        x = ((x ^ ((x >> 35) + n)) * _PMX2) & U64
        return x ^ (x >> 28)
    if n <= 16:
        lo = _r64(data, 0) ^ (_r64(_SECRET, 24) ^ _r64(_SECRET, 32))
        hi = _r64(data, n - 8) ^ (_r64(_SECRET, 40) ^ _r64(_SECRET, 48))
        lo_swapped = int.from_bytes(lo.to_bytes(8, "little"), "big")
        return _xxh3_avalanche((n + lo_swapped + hi + _fold64(lo, hi)) & U64)
    if n <= 128:
        acc = n * _P64_1
        # pairs of 16-byte blocks from both ends, innermost last
        for k in range((n - 1) // 32, -1, -1):
            acc += _mix16(data, 16 * k, 32 * k) + _mix16(data, n - 16 * (k + 1), 32 * k + 16)
        return _xxh3_avalanche(acc & U64)
    if n <= 240:
        acc = n * _P64_1
        for k in range(8):
            acc += _mix16(data, 16 * k, 16 * k)
        acc = _xxh3_avalanche(acc & U64)
        for k in range(8, n // 16):
            acc += _mix16(data, 16 * k, 16 * (k - 8) + 3)
        acc += _mix16(data, n - 16, 136 - 17)
        return _xxh3_avalanche(acc & U64)
    return _xxh3_long(data)


def _xxh3_long(data):
    n = len(data)
    acc = [_P32_3, _P64_1, _P64_2, _P64_3, _P64_4, _P32_2, _P64_5, _P32_1]
    secret_lanes = [struct.unpack_from("<8Q", _SECRET, 8 * s) for s in range(_STRIPES_PER_BLOCK + 1)]

    def accumulate(offset, key):
        lanes = struct.unpack_from("<8Q", data, offset)
        for i in range(8):
            key_mixed = lanes[i] ^ key[i]
            acc[i ^ 1] = (acc[i ^ 1] + lanes[i]) & U64
            acc[i] = (acc[i] + (key_mixed & 0xFFFFFFFF) * (key_mixed >> 32)) & U64

    scramble_key = struct.unpack_from("<8Q", _SECRET, len(_SECRET) - _STRIPE)
    blocks = (n - 1) // _BLOCK
    for b in range(blocks):
        for s in range(_STRIPES_PER_BLOCK):
            accumulate(b * _BLOCK + s * _STRIPE, secret_lanes[s])
        for i in range(8):
            a = acc[i]
            acc[i] = ((a ^ (a >> 47) ^ scramble_key[i]) * _P32_1) & U64
    stripes = ((n - 1) - blocks * _BLOCK) // _STRIPE
    for s in range(stripes):
        accumulate(blocks * _BLOCK + s * _STRIPE, secret_lanes[s])
    accumulate(n - _STRIPE, struct.unpack_from("<8Q", _SECRET, len(_SECRET) - _STRIPE - 7))
    result = n * _P64_1
    for i in range(4):
        result += _fold64(acc[2 * i] ^ _r64(_SECRET, 11 + 16 * i),
                          acc[2 * i + 1] ^ _r64(_SECRET, 11 + 16 * i + 8))
    return _xxh3_avalanche(result & U64)


# ---------------------------------------------------------------------------
# Tensors

def prod(values):
    p = 1
    for v in values:
        p *= v
    return p


def packed_strides(sizes):
    strides, step = [], 1
    for s in reversed(sizes):
        strides.append(step)
        step *= s
    return strides[::-1]


def calc_buffer_tensor_size(dtype, sizes, strides=None):
    """DMLCalcBufferTensorSize: the minimum implied size in bytes (R-TD-10).
    0 when a size is 0 (dmlref's convention; such a tensor is invalid)."""
    if 0 in sizes:
        return 0
    if strides is None:
        elements = prod(sizes)
    else:
        elements = sum((s - 1) * t for s, t in zip(sizes, strides)) + 1
    return (elements * dtype.esize + 3) & ~3


def unravel(index, sizes):
    """The row-major coordinate of logical element number `index`."""
    coord = []
    for s in reversed(sizes):
        coord.append(index % s)
        index //= s
    return tuple(reversed(coord))


def _reach(dims):
    """The element offsets sum(c[d] * strides[d]) that the (size, stride)
    dims reach, as an int whose bit x is set when offset x is, and their
    span.  One dimension at a time, in log2(size) shifted ORs of the offsets
    reached so far (read.c, mark_reachable): the work is the span, not the
    element count, so 2^32 elements over a few bytes cost a few bytes."""
    reach, span = 1, 0
    for n, s in dims:
        if n <= 1 or s == 0:
            continue
        out, shift, window, width, left = 0, 0, reach, 1, n
        while True:  # window: reach shifted by 0 .. width-1 strides
            if left & 1:
                out |= window << (shift * s)
                shift += width
            left >>= 1
            if not left:
                break
            window |= window << (width * s)
            width *= 2
        reach, span = out, span + s * (n - 1)
    return reach, span


def _set_bits(number):
    """The positions of the set bits of a non-negative int, ascending."""
    data = number.to_bytes((number.bit_length() + 7) // 8, "little")
    for i, byte in enumerate(data):
        while byte:
            low = byte & -byte
            yield 8 * i + low.bit_length() - 1
            byte ^= low


class LogicalElements:
    """An input's logical elements (bits), row-major, read on demand from its
    buffer through its strides: what Tensor.bits() gives without numpy, so
    that 2^32 elements broadcast from a few bytes take a few bytes.  A
    sequence: len(), [i] (negative too), slices (lists), iteration."""

    def __init__(self, tensor):
        self._t = tensor
        self._count = tensor.element_count

    def __len__(self):
        return self._count

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._count))]
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError("element %d of %d" % (i, self._count))
        t = self._t
        off = sum(c * s for c, s in zip(unravel(i, t.sizes), t.element_strides))
        return struct.unpack_from(_STRUCT_UINT[t.dtype.esize], t._buffer, off * t.dtype.esize)[0]

    def __iter__(self):
        t = self._t
        fmt, esize, buf = _STRUCT_UINT[t.dtype.esize], t.dtype.esize, t._buffer
        for off in _walk_offsets(t.sizes, t.element_strides, 0, self._count):
            yield struct.unpack_from(fmt, buf, off * esize)[0]

    def __eq__(self, other):
        try:
            return len(other) == self._count and all(a == b for a, b in zip(self, other))
        except TypeError:
            return NotImplemented

    def __repr__(self):
        return "<LogicalElements of %s: %d>" % (self._t.name, self._count)


def _walk_offsets(sizes, strides, start, stop):
    """The element offsets of logical elements start..stop-1, row-major (an
    odometer, as read.c's walker)."""
    if start >= stop:
        return
    coord = list(unravel(start, sizes))
    off = sum(c * s for c, s in zip(coord, strides))
    rank = len(sizes)
    for _ in range(start, stop):
        yield off
        for d in range(rank - 1, -1, -1):
            coord[d] += 1
            if coord[d] < sizes[d]:
                off += strides[d]
                break
            off -= (sizes[d] - 1) * strides[d]
            coord[d] = 0


def _offsets_np(sizes, strides, start, stop):
    """The element offsets of logical elements start..stop-1 (numpy uint64)."""
    rest = np.arange(start, stop, dtype=np.uint64)
    off = np.zeros(stop - start, dtype=np.uint64)
    for n, s in zip(reversed(sizes), reversed(strides)):
        off += (rest % np.uint64(n)) * np.uint64(s)
        rest //= np.uint64(n)
    return off


def _provably_injective(sizes, strides):
    """True when no two coordinates share an element offset (a sufficient
    proof: each stride, in increasing order, passes the span before it)."""
    span = 0
    for n, s in sorted(((n, s) for n, s in zip(sizes, strides) if n > 1), key=lambda d: d[1]):
        if s <= span:
            return False
        span += (n - 1) * s
    return True


class Tensor:
    """One tensor of a vector.

    Attributes: ``name`` (DirectML field name), ``is_output``, ``dtype``
    (a :class:`DType`), ``sizes`` (None only for an output of an eval case),
    ``strides`` (None: packed), ``total_bytes`` (given or the default),
    ``flags``, ``alignment``, ``generator`` (the validated object or None),
    ``expected`` (None, or one entry per logical element: int bits, None for
    "any value", or a tuple of bits for any_of) and ``xxh3`` (int or None).

    An input's elements are placed into its buffer when the vector is read
    (as dmlref's reader does, so that elements sharing an address are
    checked then), never expanded to its logical elements unless asked:
    :meth:`array` is a read-only strided view of the buffer, and without
    numpy :meth:`bits` reads the buffer on demand (:class:`LogicalElements`)."""

    def __init__(self, name, is_output):
        self.name, self.is_output = name, is_output
        self.dtype = self.sizes = self.strides = self.generator = None
        self.expected = self.xxh3 = None
        self.total_bytes = 0
        self.total_bytes_given = False
        self.flags = self.alignment = 0
        self._data = None  # list of bits from "data", or None
        self._bits = None  # cache: the logical elements expanded
        self._buffer = None  # the placed input: numpy array of slots, or bytearray
        self._offsets = None
        self._src = "?"
        self._budget = _Budget(DEFAULT_MEMORY_CAP, "?")
        self._path = None

    # -- shape and layout --------------------------------------------------
    @property
    def rank(self):
        return len(self.sizes)

    @property
    def element_count(self):
        return prod(self.sizes)

    @property
    def element_strides(self):
        """Strides in elements: the given ones, or packed row-major."""
        return list(self.strides) if self.strides is not None else packed_strides(self.sizes)

    @property
    def min_bytes(self):
        return calc_buffer_tensor_size(self.dtype, self.sizes, self.strides)

    def _at(self, key=None):
        path = "$.tensors." + self.name
        return path + "." + key if key else path

    def _take(self, nbytes, what, key=None):
        self._budget.take(nbytes, self._at(key), what)

    def offsets(self):
        """The element offset (in elements, not bytes) of every logical
        element, in row-major order: sum(c[i] * strides[i]).  8 bytes per
        logical element, counted against the memory cap."""
        if self._offsets is None:
            count = self.element_count
            self._take(8 * count, "the offsets of its %d logical elements" % count)
            strides = self.element_strides
            if np is not None:
                self._offsets = _offsets_np(self.sizes, strides, 0, count)
            else:
                self._offsets = list(_walk_offsets(self.sizes, strides, 0, count))
        return self._offsets

    def _span_bytes(self):
        """Bytes up to the end of the last-placed element (0 if none)."""
        if self.element_count == 0:
            return 0
        last = sum((s - 1) * t for s, t in zip(self.sizes, self.element_strides))
        return (last + 1) * self.dtype.esize

    # -- elements ---------------------------------------------------------
    @property
    def has_data(self):
        return self._data is not None or self.generator is not None

    def bits(self):
        """The logical input elements as bit patterns, row-major.  With
        numpy, an array of dtype.np_uint (a view of the buffer where the
        layout is packed, else a copy, counted against the memory cap: 2^32
        elements broadcast from 4 bytes are refused there; :meth:`array` is
        the view that needs no copy).  Without numpy, a
        :class:`LogicalElements` that reads them from the buffer on demand."""
        if self._bits is not None:
            return self._bits
        if not self.has_data:
            raise VectorError("%s: %s: %s has no data" % (self._src, self._at(), self.name))
        count = self.element_count
        if self._buffer is not None:
            if np is None:
                return LogicalElements(self)
            view = self.array()
            if view.flags.c_contiguous:
                return view.reshape(-1)
            self._take(count * self.dtype.esize, "its %d logical elements expanded from its "
                       "buffer (array() is a strided view that needs none)" % count)
            self._bits = np.ascontiguousarray(view).reshape(-1)
        elif self._data is not None:
            self._bits = np.array(self._data, dtype=self.dtype.np_uint) if np is not None else self._data
        else:  # a generator whose elements could not be placed (expect_error)
            self._take(count * (8 if np is not None else self.dtype.esize + 32),
                       "its %d generated logical elements" % count, "generator")
            self._bits = generate(self.dtype, self.generator, count)
        return self._bits

    def array(self):
        """The logical elements as a numpy array of shape `sizes` holding the
        bits (uint8/16/32/64): a read-only strided view of the input's buffer
        (elements that share an address are one element there).  Needs numpy."""
        if self._buffer is None:
            return np.asarray(self.bits(), dtype=self.dtype.np_uint).reshape(self.sizes)
        esize = self.dtype.esize
        return np.lib.stride_tricks.as_strided(
            self._buffer, shape=tuple(self.sizes),
            strides=tuple(esize * s for s in self.element_strides), writeable=False)

    # -- placing an input's elements into its buffer ---------------------
    def _place(self, expect_error):
        """Places the input's elements (data or generator) into a new
        buffer, as dmlref's reader does (read.c, fill_input): elements that
        share an address must agree bit for bit.  A case that must be
        refused gets no buffer where its elements cannot be placed (more
        than 2^32-1 of them, a layout past total_bytes, or past the memory
        cap); a valid one is refused then."""
        count, esize = self.element_count, self.dtype.esize
        key = "data" if self._data is not None else "generator"
        if count > MAX_TENSOR_ELEMENTS:
            if expect_error:
                return
            raise VectorError("%s: %s: %d elements: a tensor has at most 2^32-1 (R-TD-13)"
                              % (self._src, self._at("sizes"), count))
        span_bytes = self._span_bytes()
        slots = max(-(-self.total_bytes // esize), span_bytes // esize)
        if span_bytes > self.total_bytes and not expect_error:
            raise VectorError("%s: %s: %d bytes, below the %d that the elements span (R-TD-9)"
                              % (self._src, self._at("total_bytes"), self.total_bytes, span_bytes))
        if expect_error and (span_bytes > self.total_bytes or
                             slots * esize > self._budget.cap - self._budget.used):
            return
        self._take(slots * esize, "its buffer")
        buf = np.zeros(slots, dtype=self.dtype.np_uint) if np is not None else bytearray(slots * esize)
        if count:
            if self.generator is not None and self.strides is not None and self._period():
                self._place_periodic(buf)
            else:
                self._place_elementwise(buf, key)
        self._buffer = buf

    def _period(self):
        """(values, period) when the generator's elements are one value, or
        one per last coordinate: element e is values[e % period] (read.c,
        generator_period); None when they look random."""
        g, dt = self.generator, self.dtype
        if g["kind"] == "sparse" and g["density"] in (0, 1000000):
            return [_generate_one(dt, g, 0)], 1
        if g["kind"] != "index" or any(lo != hi for lo, hi in zip(g["low"], g["high"])):
            return None
        values = [_generate_one(dt, g, j) for j in range(len(g["low"]))]
        period = 1 if all(x == values[0] for x in values) else len(values)
        return (values, period) if period == 1 or self.sizes[-1] == period else None

    def _place_periodic(self, buf):
        """A generator with a period: each element offset the layout reaches
        gets its value, found from the reachable offsets, not by walking the
        logical elements (read.c, fill_periodic)."""
        values, period = self._period()
        sizes, strides = self.sizes, self.element_strides
        outer = len(sizes) - 1 if period > 1 else len(sizes)
        last_size = sizes[-1] if period > 1 else 1
        last_stride = strides[-1] if period > 1 else 0
        reach, span = _reach(list(zip(sizes[:outer], strides[:outer])))
        scratch = 2 * (span + 1) + (span + 8) // 4
        self._take(scratch, "marking the element offsets it fills", "generator")
        esize = self.dtype.esize
        if np is not None:
            raw = np.frombuffer(reach.to_bytes((span + 8) // 8, "little"), dtype=np.uint8)
            mask = np.unpackbits(raw, bitorder="little")[:span + 1].view(bool)
            written = np.zeros(len(buf), dtype=bool) if last_size > 1 else None
        else:
            offsets = list(_set_bits(reach))
            written = bytearray(len(buf) // esize) if last_size > 1 else None
        for c in range(last_size):
            v, base = values[c % period], c * last_stride
            if np is not None:
                region = buf[base:base + span + 1]
                if written is not None:
                    done = written[base:base + span + 1]
                    clash = np.flatnonzero(mask & done & (region != v))
                    if len(clash):
                        self._periodic_clash(c, base + int(clash[0]), values, period, last_stride,
                                             reach, span)
                    done |= mask
                region[mask] = v
                continue
            fmt = _STRUCT_UINT[esize]
            for x in offsets:
                off = base + x
                if written is not None:
                    if written[off]:
                        if struct.unpack_from(fmt, buf, off * esize)[0] != v:
                            self._periodic_clash(c, off, values, period, last_stride, reach, span)
                        continue
                    written[off] = 1
                struct.pack_into(fmt, buf, off * esize, v)
        self._budget.give_back(scratch)

    def _periodic_clash(self, c, off, values, period, last_stride, reach, span):
        earlier = next(e for e in range(c) if values[e % period] != values[c % period] and
                       off >= e * last_stride and off - e * last_stride <= span and
                       reach >> (off - e * last_stride) & 1)
        raise VectorError(
            "%s: %s: an element of last coordinate %d differs from an element of last "
            "coordinate %d stored at the same address (element offset %d): a broadcast "
            "layout holds one value there" % (self._src, self._at("generator"), c, earlier, off))

    def _place_elementwise(self, buf, key):
        """Places the logical elements one chunk at a time through the
        strides (read.c, fill_elementwise): a data array is as long as the
        text; a generator's elements are generated a chunk at a time, never
        all at once, and where the layout is not one to one the first two
        that differ at one address stop the walk."""
        sizes, strides, count = self.sizes, self.element_strides, self.element_count
        esize = self.dtype.esize
        check = self.strides is not None and not _provably_injective(sizes, strides)
        if check:
            self._take(len(buf) if np is not None else len(buf) // esize,
                       "marking the element offsets it fills", key)
        data = None
        if self._data is not None:
            data = np.array(self._data, dtype=self.dtype.np_uint) if np is not None else self._data
        if np is None:
            self._place_elementwise_pure(buf, key, data, check)
        else:
            written = np.zeros(len(buf), dtype=bool) if check else None
            for start in range(0, count, _CHUNK):
                stop = min(count, start + _CHUNK)
                vals = (data[start:stop] if data is not None else
                        generate(self.dtype, self.generator, stop - start, start=start))
                off = _offsets_np(sizes, strides, start, stop).astype(np.int64)
                if written is not None:
                    order = np.argsort(off, kind="stable")
                    so, sv = off[order], vals[order]
                    first = np.ones(len(so), dtype=bool)
                    first[1:] = so[1:] != so[:-1]
                    ref = sv[np.maximum.accumulate(np.where(first, np.arange(len(so)), 0))]
                    before = written[so]
                    ref = np.where(before, buf[so], ref)
                    bad = np.flatnonzero(sv != ref)
                    if len(bad):
                        e = start + int(order[bad].min())
                        self._elementwise_clash(key, e, int(off[e - start]))
                    written[so] = True
                buf[off] = vals
        if check:
            self._budget.give_back(len(buf) if np is not None else len(buf) // esize)

    def _place_elementwise_pure(self, buf, key, data, check):
        esize, fmt = self.dtype.esize, _STRUCT_UINT[self.dtype.esize]
        written = bytearray(len(buf) // esize) if check else None
        gen, dt = self.generator, self.dtype
        for e, off in enumerate(_walk_offsets(self.sizes, self.element_strides, 0,
                                              self.element_count)):
            v = data[e] if data is not None else _generate_one(dt, gen, e)
            if written is not None:
                if written[off]:
                    if struct.unpack_from(fmt, buf, off * esize)[0] != v:
                        self._elementwise_clash(key, e, off)
                    continue
                written[off] = 1
            struct.pack_into(fmt, buf, off * esize, v)

    def _elementwise_clash(self, key, e, off):
        if key == "data":
            raise VectorError(
                "%s: %s[%d]: differs from an earlier element stored at the same address (element "
                "offset %d): a broadcast layout holds one value there"
                % (self._src, self._at("data"), e, off))
        raise VectorError(
            "%s: %s: element %d differs from an earlier element stored at the same address "
            "(element offset %d): a broadcast layout holds one value there"
            % (self._src, self._at("generator"), e, off))

    # -- buffers ----------------------------------------------------------
    def pack(self, elements):
        """A buffer of total_bytes bytes holding the logical `elements` (bits,
        or exact Python numbers) at their strided offsets, little-endian,
        padding zero."""
        dt = self.dtype
        if len(elements) != self.element_count:
            raise ValueError("%s: %d elements for sizes %s" % (self.name, len(elements), self.sizes))
        if self._span_bytes() > self.total_bytes:
            raise ValueError("%s: the elements span %d bytes, total_bytes is %d"
                             % (self.name, self._span_bytes(), self.total_bytes))
        # a check, not a hold: the buffer is the caller's once returned
        self._take(self.total_bytes, "a buffer of total_bytes")
        self._budget.give_back(self.total_bytes)
        if np is not None and isinstance(elements, np.ndarray) and elements.dtype.kind == "u":
            bits = elements.reshape(-1).astype(dt.np_uint)
        else:
            bits = [_element_bits(dt, e) for e in elements]
        if np is not None:
            n_slots = -(-self.total_bytes // dt.esize)
            buf = np.zeros(n_slots, dtype=dt.np_uint)
            buf[np.asarray(self.offsets(), dtype=np.int64)] = np.asarray(bits, dtype=dt.np_uint)
            return buf.view(np.uint8)[:self.total_bytes].tobytes()
        buf = bytearray(self.total_bytes)
        fmt = _STRUCT_UINT[dt.esize]
        for o, v in zip(self.offsets(), bits):
            struct.pack_into(fmt, buf, o * dt.esize, v)
        return bytes(buf)

    def buffer(self):
        """The input's buffer (total_bytes long, padding zero)."""
        if self._span_bytes() > self.total_bytes:
            raise VectorError("%s: %s: %d bytes, below the %d that the elements span (R-TD-9): "
                              "the elements cannot be laid out"
                              % (self._src, self._at("total_bytes"), self.total_bytes, self._span_bytes()))
        if self._buffer is None:
            return self.pack(self.bits())
        raw = self._buffer.view(np.uint8) if np is not None else memoryview(self._buffer)
        return bytes(raw[:self.total_bytes])

    def read(self, buffer):
        """The logical elements (bits) stored in an output buffer laid out as
        this tensor: numpy array or list, like bits().  The copy is counted
        against the memory cap."""
        dt = self.dtype
        if len(buffer) < self._span_bytes():
            raise ValueError("%s: buffer of %d bytes, the elements need %d"
                             % (self.name, len(buffer), self._span_bytes()))
        count = self.element_count
        self._take(count * dt.esize, "reading its %d logical elements" % count)
        try:
            if np is not None:
                usable = self._span_bytes() // dt.esize
                flat = np.frombuffer(buffer, dtype=dt.np_uint, count=usable)
                view = np.lib.stride_tricks.as_strided(
                    flat, shape=tuple(self.sizes),
                    strides=tuple(dt.esize * s for s in self.element_strides), writeable=False)
                return np.ascontiguousarray(view).reshape(-1)
            fmt = _STRUCT_UINT[dt.esize]
            return [struct.unpack_from(fmt, buffer, o * dt.esize)[0]
                    for o in _walk_offsets(self.sizes, self.element_strides, 0, count)]
        finally:
            self._budget.give_back(count * dt.esize)

    def digest(self, bits):
        """XXH3-64 of logical elements (bits), little-endian, row-major."""
        if np is not None:
            return xxh3_64(np.asarray(bits, dtype=self.dtype.np_uint).tobytes())
        fmt = "<%d%s" % (len(bits), _STRUCT_UINT[self.dtype.esize][1])
        return xxh3_64(struct.pack(fmt, *bits))

    def __repr__(self):
        return "<Tensor %s %s sizes=%s strides=%s>" % (self.name, self.dtype, self.sizes, self.strides)


class Mismatch:
    """Where outputs differ from a vector's expectations.

    ``output`` (tensor name), ``element`` (logical row-major position, or None
    when only the digest or the buffer size is wrong), ``coordinate``,
    ``expected`` (bits, or a tuple of bits for any_of), ``got`` (bits),
    ``wrong_elements`` (in that output) and ``message``."""

    def __init__(self, output, message, element=None, coordinate=None, expected=None,
                 got=None, wrong_elements=0):
        self.output, self.message, self.element = output, message, element
        self.coordinate, self.expected, self.got = coordinate, expected, got
        self.wrong_elements = wrong_elements

    def __str__(self):
        return self.message

    def __repr__(self):
        return "<Mismatch %s>" % self.message


# ---------------------------------------------------------------------------
# Vectors

# operator -> (inputs, outputs, attribute names)
OPERATORS = {
    "GATHER_ELEMENTS": (("InputTensor", "IndicesTensor"), ("OutputTensor",), ("Axis",)),
    "SCATTER_ELEMENTS": (("InputTensor", "IndicesTensor", "UpdatesTensor"), ("OutputTensor",),
                         ("Axis",)),
    "GATHER_ND": (("InputTensor", "IndicesTensor"), ("OutputTensor",),
                  ("InputDimensionCount", "IndicesDimensionCount")),
    "GATHER_ND1": (("InputTensor", "IndicesTensor"), ("OutputTensor",),
                   ("InputDimensionCount", "IndicesDimensionCount", "BatchDimensionCount")),
    "NONZERO_COORDINATES": (("InputTensor",), ("OutputCountTensor", "OutputCoordinatesTensor"), ()),
}
OPERATOR_ALIASES = {"SCATTER": "SCATTER_ELEMENTS"}

FEATURE_LEVELS = ("1_0", "2_0", "2_1", "3_0", "3_1", "4_0", "4_1", "5_0", "5_1", "5_2",
                  "6_0", "6_1", "6_2", "6_3", "6_4")
LATEST_FEATURE_LEVEL = "6_4"

# The dmlref_status names of include/dmlref.h that a case may expect.
STATUSES = (
    "DMLREF_ERROR_INVALID_ARGUMENT", "DMLREF_ERROR_UNSUPPORTED_OPERATOR",
    "DMLREF_ERROR_UNSUPPORTED_DATA_TYPE", "DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT",
    "DMLREF_ERROR_UNSUPPORTED_LAYOUT", "DMLREF_ERROR_INVALID_SIZES",
    "DMLREF_ERROR_INVALID_TOTAL_SIZE", "DMLREF_ERROR_TENSOR_TOO_LARGE",
    "DMLREF_ERROR_INVALID_FLAGS", "DMLREF_ERROR_INVALID_ALIGNMENT",
    "DMLREF_ERROR_OUTPUT_ALIASING", "DMLREF_ERROR_DIMENSION_COUNT_MISMATCH",
    "DMLREF_ERROR_DATA_TYPE_MISMATCH", "DMLREF_ERROR_SIZE_MISMATCH",
    "DMLREF_ERROR_INVALID_ATTRIBUTE", "DMLREF_ERROR_BINDING_COUNT",
    "DMLREF_ERROR_BINDING_MISSING", "DMLREF_ERROR_BINDING_TOO_SMALL",
    "DMLREF_ERROR_BINDING_OVERLAP", "DMLREF_ERROR_BINDING_MISALIGNED",
    "DMLREF_ERROR_INDEX_OUT_OF_RANGE", "DMLREF_ERROR_OUT_OF_MEMORY")
_RULE_RE = re.compile(r"(R-(TD|IX|GE|SC|GN|NZ)-[1-9][0-9]{0,2}|D[1-9][0-9]{0,2})?\Z")
_NAME_RE = re.compile(r"[a-z0-9_\-./]{1,200}\Z")

_TOP_KEYS = {"format", "name", "operator", "feature_level", "min_feature_level", "attributes",
             "tensors", "oob", "expect_error", "notes", "variants"}
_TENSOR_KEYS = {"dtype", "sizes", "strides", "total_bytes", "flags", "alignment", "data",
                "generator", "expected", "xxh3"}
_XXH3_RE = re.compile(r"[0-9a-f]{16}\Z")


class Vector:
    """One golden vector.

    Attributes: ``source`` (file name for messages), ``name``, ``operator``
    (canonical: SCATTER reads as SCATTER_ELEMENTS), ``feature_level`` and
    ``min_feature_level`` ("3_0" style; the latter may be None),
    ``operator_as_written``, ``attributes`` (dict of ints), ``oob`` ("error" or "clamp"),
    ``expect_error`` (None or {"status": ..., "rule": ...}), ``notes``,
    ``tensors`` (dict by field name, inputs then outputs), ``inputs`` and
    ``outputs`` (lists of :class:`Tensor` in binding order), ``format`` and
    ``variants`` (a list of :class:`Variant`, empty for most vectors)."""

    def input_buffers(self):
        """Each input's buffer (bytes, total_bytes long), in binding order."""
        return [t.buffer() for t in self.inputs]

    def check_outputs(self, buffers, variants=True):
        """Compares output buffers (binding order, each laid out as the
        vector's output tensor) with the expectations: elements bit for bit
        (null: any value; any_of: one of the patterns) and digests.  Returns
        None when they agree with the golden expectations or, unless
        variants=False, with those of one permitted variant (match_outputs
        says which); else a :class:`Mismatch` for the first output that
        differs from the golden expectations (the first wrong element in
        row-major order)."""
        match = self.match_outputs(buffers, variants)
        return None if match.ok else match.mismatch

    def match_outputs(self, buffers, variants=True):
        """Which expectations the output buffers meet: a :class:`Match`
        whose ``variant`` is None for the golden ones, else the
        :class:`Variant` the outputs show."""
        if self.expect_error is not None:
            raise ValueError("%s expects an error (%s); there are no outputs to check"
                             % (self.name, self.expect_error["status"]))
        if len(buffers) != len(self.outputs):
            raise ValueError("%s: %d output buffers for %d outputs"
                             % (self.name, len(buffers), len(self.outputs)))
        golden = _check_outputs(self, self.outputs, buffers)
        if golden is None:
            return Match(None, None)
        if variants:
            for variant in self.variants:
                if _check_outputs(self, variant.outputs, buffers) is None:
                    return Match(variant, golden)
            if self.variants:
                golden.message += "; nor do they match a permitted variant (%s)" % ", ".join(
                    x.name for x in self.variants)
        return Match(None, golden, ok=False)

    def __repr__(self):
        return "<Vector %s>" % self.name


class Variant:
    """A permitted variant of a vector (FORMAT.md, "Variants"): ``name``,
    ``rule`` (the rule id of docs/rules.md that permits it), ``outputs``
    (copies of the vector's output tensors, binding order, whose
    ``expected`` and ``xxh3`` are the variant's) and ``tensors`` (the same,
    by name)."""

    def __init__(self, vector, name, rule):
        self.vector, self.name, self.rule = vector, name, rule
        self.outputs, self.tensors = [], {}

    def check_outputs(self, buffers):
        """None when the output buffers meet this variant's expectations,
        else a :class:`Mismatch` (its message names the variant)."""
        if len(buffers) != len(self.outputs):
            raise ValueError("%s: %d output buffers for %d outputs"
                             % (self.vector.name, len(buffers), len(self.outputs)))
        problem = _check_outputs(self.vector, self.outputs, buffers)
        if problem is not None:
            problem.message = "variant %s: %s" % (self.name, problem.message)
        return problem

    def __repr__(self):
        return "<Variant %s (%s) of %s>" % (self.name, self.rule, self.vector.name)


class Match:
    """What Vector.match_outputs found: ``ok``; ``variant``, None when the
    outputs meet the golden expectations, else the :class:`Variant` they
    show; ``mismatch``, the :class:`Mismatch` against the golden
    expectations (None when they meet them)."""

    def __init__(self, variant, mismatch, ok=True):
        self.variant, self.mismatch, self.ok = variant, mismatch, ok

    def __bool__(self):
        return self.ok

    def __str__(self):
        if not self.ok:
            return str(self.mismatch)
        if self.variant is None:
            return "outputs agree"
        return "outputs agree with the permitted variant %s (%s)" % (self.variant.name,
                                                                    self.variant.rule)

    def __repr__(self):
        return "<Match %s>" % self


def _check_outputs(vector, outputs, buffers):
    """The first Mismatch of buffers against the expectations of `outputs`
    (the vector's, or a variant's), or None."""
    digest_length = None
    for tensor, buf in zip(outputs, buffers):
        problem = _check_output(tensor, buf, digest_length)
        if problem is not None:
            return problem
        if vector.operator == "NONZERO_COORDINATES" and tensor.name == "OutputCountTensor":
            # The coordinates' digest covers the first `count` rows; this
            # count has just been found right (or it has no expectation).
            digest_length = int(tensor.read(buf)[0]) * outputs[1].sizes[-1]
    return None


def _check_output(t, buf, digest_length=None):
    """A Mismatch, or None.  digest_length: the xxh3 covers only that many
    leading elements (NonZero's coordinates)."""
    dt = t.dtype
    if t.expected is None and t.xxh3 is None:
        raise ValueError("%s has neither expected nor xxh3" % t.name)
    if len(buf) < t.total_bytes:
        return Mismatch(t.name, "%s: buffer of %d bytes, TotalTensorSizeInBytes is %d"
                        % (t.name, len(buf), t.total_bytes))
    got = t.read(buf)
    if t.expected is not None:
        wrong = _wrong_elements(t, got)
        if wrong:
            i = wrong[0]
            exp, g = t.expected[i], int(got[i])
            coord = unravel(i, t.sizes)
            if isinstance(exp, tuple):
                want = "any of {%s}" % ", ".join(describe_bits(dt, e) for e in exp)
            else:
                want = describe_bits(dt, exp)
            msg = "%s[%s] (element %d): expected %s, got %s; %d wrong element%s" % (
                t.name, ", ".join(map(str, coord)), i, want, describe_bits(dt, g),
                len(wrong), "" if len(wrong) == 1 else "s")
            return Mismatch(t.name, msg, i, coord, exp, g, len(wrong))
    if t.xxh3 is not None:
        digest = t.digest(got if digest_length is None else got[:digest_length])
        if digest != t.xxh3:
            return Mismatch(t.name, "%s: xxh3 of the elements is %016x, expected %016x"
                            % (t.name, digest, t.xxh3))
    return None


def _wrong_elements(t, got):
    """Positions (row-major) of the elements of `got` that break t.expected."""
    exp = t.expected
    if np is not None:
        exact = np.array([e if isinstance(e, int) else 0 for e in exp], dtype=t.dtype.np_uint)
        is_exact = np.array([isinstance(e, int) for e in exp], dtype=bool)
        wrong = set(np.nonzero(is_exact & (np.asarray(got) != exact))[0].tolist())
        wrong.update(i for i, e in enumerate(exp) if isinstance(e, tuple) and int(got[i]) not in e)
        return sorted(wrong)
    return [i for i, e in enumerate(exp)
            if (isinstance(e, int) and got[i] != e) or (isinstance(e, tuple) and got[i] not in e)]


# -- loading -----------------------------------------------------------------

def load(path, case=False, memory_cap=None):
    """Reads and checks a vector file: a regular file of at most
    MAX_FILE_BYTES (read_regular_file).  case=True reads a case meant for
    `dmlref eval`: outputs may lack expected, xxh3 and sizes.  memory_cap:
    bytes the case may make the reader allocate (DEFAULT_MEMORY_CAP)."""
    raw = read_regular_file(str(path))
    return loads(raw, source=str(path), case=case, memory_cap=memory_cap, _held=len(raw))


def loads(text, source="<string>", case=False, memory_cap=None, _held=0):
    """Parses and checks a vector from JSON text (str or UTF-8 bytes).
    Every failure is a VectorError naming the source, the JSON path and the
    rule."""
    budget = _Budget(memory_cap, source)
    budget.take(_held, "$", "the file's text")
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise VectorError("%s: $: not UTF-8: %s" % (source, e)) from None
    if not isinstance(text, str):
        raise TypeError("a vector's text is str or bytes, not %s" % type(text).__name__)
    try:
        doc = parse_json(text)
    except VectorError as e:
        raise VectorError("%s: %s" % (source, e)) from None
    except ValueError as e:  # json.JSONDecodeError
        raise VectorError("%s: $: not JSON: %s" % (source, e)) from None
    try:
        return _Reader(source, case, budget).vector(doc)
    except VectorError:
        raise
    except MemoryError:
        raise VectorError("%s: $: out of memory (memory_cap %d bytes)" % (source, budget.cap)) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError,
            RecursionError) as e:
        # a shape this reader does not foresee is still the file's fault
        raise VectorError("%s: $: cannot be read: %s: %s" % (source, type(e).__name__, e)) from None


class _Reader:
    def __init__(self, source, case, budget=None):
        self.source, self.case = source, case
        self.budget = budget or _Budget(None, source)

    def fail(self, path, message):
        raise VectorError("%s: %s: %s" % (self.source, path, message))

    def obj(self, x, path, allowed, required=()):
        if not isinstance(x, dict):
            self.fail(path, "expected an object, got %s" % _show(x))
        for key in x:
            if key not in allowed:
                self.fail(path, "unknown key %s" % json.dumps(key))
        for key in required:
            if key not in x:
                self.fail(path, "missing key %s" % json.dumps(key))
        return x

    def uint(self, x, path, limit):
        if not _is_int(x):
            self.fail(path, "expected an integer, got %s" % _show(x))
        if not 0 <= x <= limit:
            self.fail(path, "%d is outside 0..%d" % (x, limit))
        return int(x)

    def string(self, x, path):
        if not isinstance(x, str):
            self.fail(path, "expected a string, got %s" % _show(x))
        return x

    def vector(self, doc):
        v = Vector()
        v.source = self.source
        # The format first: a later version may have keys this reader lacks.
        if isinstance(doc, dict) and "format" in doc and doc["format"] not in FORMATS:
            self.fail("$.format", "unknown format %s (this reader knows %s)"
                      % (_show(doc["format"]), " and ".join(FORMATS)))
        self.obj(doc, "$", _TOP_KEYS, ("format", "name", "operator", "tensors"))
        v.format = doc["format"]
        if v.format == FORMAT and "variants" in doc:
            self.fail("$.variants", "a %s vector has no variants (they need %s)"
                      % (FORMAT, FORMAT_WITH_VARIANTS))
        if v.format == FORMAT_WITH_VARIANTS and "variants" not in doc:
            self.fail("$.variants", "missing: a %s vector states its variants" % FORMAT_WITH_VARIANTS)
        v.name = self.string(doc["name"], "$.name")
        if not _NAME_RE.match(v.name):
            self.fail("$.name", "%s: 1 to 200 characters of a-z 0-9 _ - . /" % json.dumps(v.name))
        v.operator_as_written = self.string(doc["operator"], "$.operator")
        v.operator = OPERATOR_ALIASES.get(v.operator_as_written, v.operator_as_written)
        if v.operator not in OPERATORS:
            self.fail("$.operator", "unknown operator %s" % json.dumps(v.operator_as_written))
        v.feature_level = self.level(doc.get("feature_level", LATEST_FEATURE_LEVEL), "$.feature_level")
        v.min_feature_level = None
        if "min_feature_level" in doc:
            v.min_feature_level = self.level(doc["min_feature_level"], "$.min_feature_level")
        v.oob = self.string(doc.get("oob", "error"), "$.oob")
        if v.oob not in ("error", "clamp"):
            self.fail("$.oob", "%s is neither \"error\" nor \"clamp\"" % json.dumps(v.oob))
        v.notes = self.string(doc["notes"], "$.notes") if "notes" in doc else None
        v.expect_error = None
        if "expect_error" in doc:
            e = self.obj(doc["expect_error"], "$.expect_error", {"status", "rule"}, ("status", "rule"))
            if self.string(e["status"], "$.expect_error.status") not in STATUSES:
                self.fail("$.expect_error.status", "unknown status %s" % json.dumps(e["status"]))
            if not _RULE_RE.match(self.string(e["rule"], "$.expect_error.rule")):
                self.fail("$.expect_error.rule", "%s is not a rule id" % json.dumps(e["rule"]))
            v.expect_error = dict(e)

        inputs, outputs, attr_names = OPERATORS[v.operator]
        attrs = doc.get("attributes", {})
        self.obj(attrs, "$.attributes", attr_names, attr_names)
        v.attributes = {k: self.uint(attrs[k], "$.attributes." + k, 0xFFFFFFFF) for k in attr_names}

        tensors = self.obj(doc["tensors"], "$.tensors", inputs + outputs, inputs + outputs)
        v.tensors = {}
        for name in inputs + outputs:
            v.tensors[name] = self.tensor(tensors[name], name, name in outputs, v)
        v.inputs = [v.tensors[n] for n in inputs]
        v.outputs = [v.tensors[n] for n in outputs]
        v.variants = self.variants(doc["variants"], v) if "variants" in doc else []
        return v

    def variants(self, x, v):
        """The permitted variants (FORMAT.md, "Variants")."""
        if v.expect_error is not None:
            self.fail("$.variants", "a case with expect_error has no variants")
        if not isinstance(x, list) or not x:
            self.fail("$.variants", "expected a non-empty array")
        found = []
        for k, entry in enumerate(x):
            path = "$.variants[%d]" % k
            self.obj(entry, path, {"name", "rule", "outputs"}, ("name", "rule", "outputs"))
            name = self.string(entry["name"], path + ".name")
            if name not in VARIANT_RULES:
                self.fail(path + ".name", "unknown variant %s (this reader knows %s)"
                          % (json.dumps(name), ", ".join(sorted(VARIANT_RULES))))
            if any(f.name == name for f in found):
                self.fail(path + ".name", "variant %s appears twice" % json.dumps(name))
            if name == "subnormals_flushed" and not (
                    v.operator == "NONZERO_COORDINATES" and v.tensors["InputTensor"].dtype.is_float):
                self.fail(path + ".name", "%s applies only to NONZERO_COORDINATES with a float input"
                          % json.dumps(name))
            rule = self.string(entry["rule"], path + ".rule")
            if rule != VARIANT_RULES[name]:
                self.fail(path + ".rule", "%s is not the rule of %s (%s)"
                          % (json.dumps(rule), json.dumps(name), VARIANT_RULES[name]))
            variant = Variant(v, name, rule)
            names = [t.name for t in v.outputs]
            outputs = self.obj(entry["outputs"], path + ".outputs", names, names)
            for t in v.outputs:
                out_path = "%s.outputs.%s" % (path, t.name)
                o = self.obj(outputs[t.name], out_path, {"expected", "xxh3"})
                if not o:
                    self.fail(out_path, "an output needs expected, xxh3 or both")
                vt = copy.copy(t)
                vt.expected = vt.xxh3 = None
                if "expected" in o:
                    vt.expected = self.expected(o["expected"], out_path + ".expected", vt)
                if "xxh3" in o:
                    d = self.string(o["xxh3"], out_path + ".xxh3")
                    if not _XXH3_RE.match(d):
                        self.fail(out_path + ".xxh3", "%s is not 16 lower-case hex digits" % json.dumps(d))
                    vt.xxh3 = int(d, 16)
                    if vt.expected is not None:
                        self.check_digest(vt, v, out_path + ".xxh3", variant.tensors)
                variant.outputs.append(vt)
                variant.tensors[t.name] = vt
            found.append(variant)
        return found

    def level(self, x, path):
        if self.string(x, path) not in FEATURE_LEVELS:
            self.fail(path, "unknown feature level %s" % json.dumps(x))
        return x

    def tensor(self, x, name, is_output, v):
        path = "$.tensors." + name
        t = Tensor(name, is_output)
        t._src = self.source
        t._budget = self.budget
        required = ("dtype",) if (is_output and self.case) else ("dtype", "sizes")
        self.obj(x, path, _TENSOR_KEYS, required)
        t.dtype = DTYPES.get(self.string(x["dtype"], path + ".dtype"))
        if t.dtype is None:
            self.fail(path + ".dtype", "unknown dtype %s" % json.dumps(x["dtype"]))
        if "sizes" in x:
            t.sizes = self.dims(x["sizes"], path + ".sizes", None)
        if x.get("strides") is not None:
            if t.sizes is None:
                self.fail(path + ".strides", "strides without sizes")
            t.strides = self.dims(x["strides"], path + ".strides", len(t.sizes))
        t.flags = self.uint(x.get("flags", 0), path + ".flags", 0xFFFFFFFF)
        t.alignment = self.uint(x.get("alignment", 0), path + ".alignment", 0xFFFFFFFF)
        if "total_bytes" in x:
            t.total_bytes = self.uint(x["total_bytes"], path + ".total_bytes", U64)
            t.total_bytes_given = True
        elif t.sizes is not None:
            t.total_bytes = t.min_bytes

        if is_output:
            for key in ("data", "generator"):
                if key in x:
                    self.fail(path, "an output has no %s" % json.dumps(key))
            if v.expect_error is not None:
                for key in ("expected", "xxh3"):
                    if key in x:
                        self.fail(path + "." + key, "a case with expect_error has no %s" % key)
            elif not self.case and "expected" not in x and "xxh3" not in x:
                self.fail(path, "an output needs expected, xxh3 or both")
            if ("expected" in x or "xxh3" in x) and t.sizes is None:
                self.fail(path, "expected or xxh3 without sizes")
            if "expected" in x:
                t.expected = self.expected(x["expected"], path + ".expected", t)
            if "xxh3" in x:
                s = self.string(x["xxh3"], path + ".xxh3")
                if not _XXH3_RE.match(s):
                    self.fail(path + ".xxh3", "%s is not 16 lower-case hex digits" % json.dumps(s))
                t.xxh3 = int(s, 16)
                if t.expected is not None:
                    self.check_digest(t, v, path + ".xxh3")
            return t

        for key in ("expected", "xxh3"):
            if key in x:
                self.fail(path, "an input has no %s" % json.dumps(key))
        if "data" in x and "generator" in x:
            self.fail(path, "both data and generator")
        if "data" not in x and "generator" not in x and v.expect_error is None:
            self.fail(path, "an input needs data or generator")
        if "data" in x:
            data = x["data"]
            if not isinstance(data, list):
                self.fail(path + ".data", "expected an array")
            if len(data) != t.element_count:
                self.fail(path + ".data", "%d elements for sizes %s (%d)"
                          % (len(data), t.sizes, t.element_count))
            t._data = [self.element(t.dtype, e, "%s.data[%d]" % (path, i)) for i, e in enumerate(data)]
        if "generator" in x:
            t.generator = self.generator(x["generator"], path + ".generator", t, v)
        if t.has_data:  # refuses elements that share an address and differ
            t._place(v.expect_error is not None)
        return t

    def check_digest(self, t, v, path, tensors=None):
        """The xxh3 of an output must be that of its expected elements: all
        of them, or for NonZero's coordinates the first `count` rows.
        tensors: where the count is (a variant's outputs; default the
        vector's tensors)."""
        elements = t.expected
        if v.operator == "NONZERO_COORDINATES" and t.name == "OutputCoordinatesTensor":
            count = (tensors or v.tensors)["OutputCountTensor"].expected
            if count is None or not isinstance(count[0], int):
                return  # the count is known only as a digest: checked with outputs
            if count[0] * t.sizes[-1] > len(elements):
                self.fail(path, "the expected count %d exceeds the %d rows"
                          % (count[0], len(elements) // max(t.sizes[-1], 1)))
            elements = elements[: count[0] * t.sizes[-1]]
        if any(not isinstance(e, int) for e in elements):
            self.fail(path, "given for an output with null or any_of elements")
        if t.digest(elements) != t.xxh3:
            self.fail(path, "%016x is not the digest of expected (%016x)"
                      % (t.xxh3, t.digest(elements)))

    def dims(self, x, path, count):
        if not isinstance(x, list):
            self.fail(path, "expected an array")
        if count is None and not 1 <= len(x) <= 8:
            self.fail(path, "%d entries (1 to 8)" % len(x))
        if count is not None and len(x) != count:
            self.fail(path, "%d entries, sizes has %d" % (len(x), count))
        return [self.uint(e, "%s[%d]" % (path, i), 0xFFFFFFFF) for i, e in enumerate(x)]

    def element(self, dtype, e, path):
        try:
            return decode_element(dtype, e)
        except VectorError as err:
            self.fail(path, str(err))

    def expected(self, x, path, t):
        if not isinstance(x, list):
            self.fail(path, "expected an array")
        if len(x) != t.element_count:
            self.fail(path, "%d elements for sizes %s (%d)" % (len(x), t.sizes, t.element_count))
        out = []
        for i, e in enumerate(x):
            p = "%s[%d]" % (path, i)
            if e is None:
                out.append(None)
            elif isinstance(e, dict):
                self.obj(e, p, {"any_of"}, ("any_of",))
                alts = e["any_of"]
                if not isinstance(alts, list) or not alts:
                    self.fail(p + ".any_of", "expected a non-empty array")
                out.append(tuple(self.element(t.dtype, a, "%s.any_of[%d]" % (p, j))
                                 for j, a in enumerate(alts)))
            else:
                out.append(self.element(t.dtype, e, p))
        return out

    def generator(self, x, path, t, v):
        kind = self.obj(x, path, {"kind", "seed", "low", "high", "density"}, ("kind", "seed")).get("kind")
        if not isinstance(kind, str):
            self.fail(path + ".kind", "expected a string, got %s" % _show(kind))
        keys = {"bits": {"kind", "seed"}, "index": {"kind", "seed", "low", "high"},
                "sparse": {"kind", "seed", "density"}}.get(kind)
        if keys is None:
            self.fail(path + ".kind", "unknown generator %s" % _show(kind))
        self.obj(x, path, keys, keys)
        spec = {"kind": kind, "seed": self.int64(x["seed"], path + ".seed", 0, U64)}
        if kind == "sparse":
            spec["density"] = self.uint(x["density"], path + ".density", 1000000)
        if kind == "index":
            if t.dtype.is_float:
                self.fail(path, "an index generator needs an integer dtype, not %s" % t.dtype.name)
            for key in ("low", "high"):
                if not isinstance(x[key], list) or not x[key]:
                    self.fail(path + "." + key, "expected a non-empty array")
                spec[key] = [self.int64(e, "%s.%s[%d]" % (path, key, i), t.dtype.min, t.dtype.max)
                             for i, e in enumerate(x[key])]
            if len(spec["low"]) != len(spec["high"]):
                self.fail(path, "low and high differ in length")
            # one entry per tuple coordinate for GatherND's indices, else one
            nd_indices = v.operator in ("GATHER_ND", "GATHER_ND1") and t.name == "IndicesTensor"
            want = t.sizes[-1] if nd_indices else 1
            if len(spec["low"]) != want:
                self.fail(path + ".low", "%d entries, expected %d" % (len(spec["low"]), want))
            for j, (lo, hi) in enumerate(zip(spec["low"], spec["high"])):
                if lo > hi:
                    self.fail("%s.low[%d]" % (path, j), "low %d > high %d" % (lo, hi))
        return spec

    def int64(self, x, path, lo, hi):
        try:
            value = _int64_like(x)
        except VectorError as e:
            self.fail(path, str(e))
        if not lo <= value <= hi:
            self.fail(path, "%d is outside %d..%d" % (value, lo, hi))
        return value


# ---------------------------------------------------------------------------
# Suites

def read_manifest(folder):
    """{relative path: digest} from folder/MANIFEST; VectorError if malformed."""
    entries, previous = {}, None
    path = os.path.join(folder, "MANIFEST")
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, 1):
        m = re.match(r"([0-9a-f]{16})  (\S.*)\Z", line)
        if not m:
            raise VectorError("%s:%d: not '<16 hex digits>  <path>'" % (path, number))
        if previous is not None and m.group(2) <= previous:
            raise VectorError("%s:%d: not sorted by path (or a duplicate)" % (path, number))
        previous = m.group(2)
        entries[m.group(2)] = int(m.group(1), 16)
    return entries


def suite_files(folder):
    """The vector files of a suite: every *.json below folder, as paths
    relative to it with '/', except the suite's own schema.json."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/")
            if name.endswith(".json") and rel != "schema.json":
                found.append(rel)
    return found


def check_manifest(folder):
    """Problems (strings) with folder/MANIFEST: digests, and listed files
    against the vector files present (suite_files).  [] when it agrees."""
    listed = read_manifest(folder)
    present = set(suite_files(folder))
    problems = ["%s: not in MANIFEST" % p for p in sorted(present - set(listed))]
    for rel, digest in sorted(listed.items()):
        if rel not in present:
            problems.append("%s: listed in MANIFEST but missing" % rel)
            continue
        with open(os.path.join(folder, rel), "rb") as f:
            actual = xxh3_64(f.read())
        if actual != digest:
            problems.append("%s: xxh3 %016x, MANIFEST says %016x" % (rel, actual, digest))
    return problems


def write_manifest(folder):
    """Writes folder/MANIFEST for the vector files under folder."""
    lines = []
    for rel in suite_files(folder):
        with open(os.path.join(folder, rel), "rb") as f:
            lines.append((rel, xxh3_64(f.read())))
    with open(os.path.join(folder, "MANIFEST"), "w") as f:
        for rel, digest in sorted(lines):
            f.write("%016x  %s\n" % (digest, rel))


# ---------------------------------------------------------------------------
# Self-test and command line

def selftest(verbose=False):
    """Checks the pure-Python paths against the fast ones; returns the number
    of failures (printed)."""
    import random
    rng = random.Random(1234)
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    # Published XXH3-64 values (seed 0) that do not depend on the xxhash module.
    expect(xxh3_64_pure(b"") == 0x2D06800538D394C2, "xxh3 of the empty input")
    if _xxhash_module is None:
        print("selftest: xxhash module missing; XXH3 compared on the empty input only")
    else:
        lengths = list(range(0, 301)) + [1023, 1024, 1025, 2048, 2049, 3000, 4096, 5000, 10007]
        for n in lengths:
            for _ in range(3 if n <= 300 else 1):
                data = bytes(rng.getrandbits(8) for _ in range(n))
                expect(xxh3_64_pure(data) == _xxhash_module.xxh3_64_intdigest(data),
                       "xxh3 of %d random bytes" % n)
    # Generators and layouts: numpy and pure paths must agree bit for bit.
    if np is not None:
        for dt in DTYPES.values():
            specs = [{"kind": "bits", "seed": rng.getrandbits(64)},
                     {"kind": "sparse", "seed": 7, "density": 300000}]
            if not dt.is_float:
                specs.append({"kind": "index", "seed": 3, "low": [dt.min, dt.min + 1],
                              "high": [dt.max, dt.min + 5]})
            for spec in specs:
                a = generate(dt, spec, 1001, use_numpy=True).tolist()
                b = generate(dt, spec, 1001, use_numpy=False)
                expect(a == b, "generator %s %s: numpy and pure differ" % (spec["kind"], dt.name))
    expect(splitmix64(0, 0) == 0xE220A8397B1DCDAF, "SplitMix64(seed 0) first output")
    # Float16 decoding: exact values pass, inexact ones are refused.
    f16 = DTYPES["FLOAT16"]
    expect(decode_element(f16, _Float("-0.0")) == 0x8000, "-0.0 as FLOAT16")
    expect(decode_element(f16, _Float("65504.0")) == 0x7BFF, "65504 as FLOAT16")
    expect(decode_element(f16, _Float("5.960464477539063e-08")) == 0x0001, "smallest subnormal")
    for bad in ("0.1", "65520.0", "1e-9"):
        try:
            decode_element(f16, _Float(bad))
            failures.append("%s accepted as FLOAT16" % bad)
        except VectorError:
            pass
    _selftest_variants(expect)
    for f in failures:
        print("selftest: FAILED: " + f)
    if verbose or not failures:
        print("selftest: %d failure(s)" % len(failures))
    return len(failures)


_VARIANT_TEXT = """{"format": "dmlref-vector-2", "name": "nonzero_coordinates/float32/1d/subnormal",
  "operator": "NONZERO_COORDINATES", "tensors": {
    "InputTensor": {"dtype": "FLOAT32", "sizes": [4],
                    "data": [1.401298464324817e-45, -0.0, -1.1754942106924411e-38, 1]},
    "OutputCountTensor": {"dtype": "UINT32", "sizes": [1], "expected": [3], "xxh3": "c8cfc1d86609e99d"},
    "OutputCoordinatesTensor": {"dtype": "UINT32", "sizes": [4, 1], "expected": [0, 2, 3, null],
                                "xxh3": "c60fbaa5ef18c0db"}},
  "variants": [{"name": "subnormals_flushed", "rule": "R-NZ-10", "outputs": {
    "OutputCountTensor": {"expected": [1], "xxh3": "db02334e96d65708"},
    "OutputCoordinatesTensor": {"expected": [3, null, null, null], "xxh3": "c8cfc1d86609e99d"}}}]}"""


def _selftest_variants(expect):
    """Format 2: reading variants, accepting and naming them, refusing bad ones."""
    v = loads(_VARIANT_TEXT, source="v.json")
    expect(v.format == FORMAT_WITH_VARIANTS and len(v.variants) == 1, "a variant is read")
    x = v.variants[0]
    expect((x.name, x.rule) == ("subnormals_flushed", "R-NZ-10"), "the variant's name and rule")
    count, coords = v.outputs
    golden = [count.pack([3]), coords.pack([0, 2, 3, 7])]
    flushed = [count.pack([1]), coords.pack([3, 9, 9, 9])]
    wrong = [count.pack([2]), coords.pack([0, 3, 9, 9])]
    m = v.match_outputs(golden)
    expect(m.ok and m.variant is None and v.check_outputs(golden) is None, "golden outputs pass")
    m = v.match_outputs(flushed)
    expect(m.ok and m.variant is x and str(m).endswith("subnormals_flushed (R-NZ-10)"),
           "flushed outputs pass as the variant: %s" % m)
    expect(v.check_outputs(flushed) is None, "check_outputs accepts the variant")
    expect(v.check_outputs(flushed, variants=False) is not None, "variants=False refuses it")
    expect(x.check_outputs(flushed) is None and x.check_outputs(golden) is not None,
           "Variant.check_outputs")
    problem = v.check_outputs(wrong)
    expect(problem is not None and "nor do they match a permitted variant (subnormals_flushed)"
           in problem.message, "wrong outputs fail, naming the variants: %s" % problem)
    bad = [
        (FORMAT_WITH_VARIANTS, FORMAT, "$.variants: a dmlref-vector-1 vector has no variants"),
        ('"rule": "R-NZ-10"', '"rule": "R-NZ-9"', "$.variants[0].rule"),
        ('"name": "subnormals_flushed"', '"name": "flushed"', "$.variants[0].name: unknown variant"),
        ('"rule": "R-NZ-10",', '"rule": "R-NZ-10", "why": 1,', '$.variants[0]: unknown key "why"'),
        ('"OutputCountTensor": {"expected": [1]', '"OutputTensor": {"expected": [1]',
         '$.variants[0].outputs: unknown key "OutputTensor"'),
        ('[3, null, null, null]', '[3, null, null]',
         "$.variants[0].outputs.OutputCoordinatesTensor.expected: 3 elements"),
        ('"xxh3": "db02334e96d65708"', '"xxh3": "db02334e96d65709"',
         "$.variants[0].outputs.OutputCountTensor.xxh3"),
        ('"dtype": "FLOAT32", "sizes": [4],\n                    "data": [1.401298464324817e-45, '
         '-0.0, -1.1754942106924411e-38, 1]', '"dtype": "UINT8", "sizes": [4], "data": [1, 0, 2, 1]',
         "applies only to NONZERO_COORDINATES with a float input"),
        ('"variants": [', '"variants": [{"name": "subnormals_flushed", "rule": "R-NZ-10", "outputs": '
         '{"OutputCountTensor": {"expected": [1]}, "OutputCoordinatesTensor": {"expected": '
         '[3, null, null, null]}}}, ', "appears twice"),
    ]
    for old, new, message in bad:
        text = _VARIANT_TEXT.replace(old, new, 1)
        try:
            loads(text, source="v.json")
            expect(False, "variant edit %s -> %s accepted" % (old, new))
        except VectorError as e:
            expect(("v.json: " + message) in str(e) or message in str(e),
                   "variant edit %s: %s lacks %r" % (new, e, message))
    try:
        loads(_VARIANT_TEXT[:_VARIANT_TEXT.index(',\n  "variants"')] + "}", source="v.json")
        expect(False, "a dmlref-vector-2 vector without variants accepted")
    except VectorError as e:
        expect("$.variants: missing" in str(e), str(e))


def main(argv):
    usage = ("usage: dmlref_vectors.py check VECTOR.json OUTPUT.bin... | "
             "inputs VECTOR.json DIR | selftest | --version")
    if argv[1:] == ["--version"]:
        print("dmlref_vectors %s" % __version__)
        return 0
    if len(argv) >= 2 and argv[1] == "selftest":
        return 1 if selftest() else 0
    if len(argv) >= 3 and argv[1] == "check":
        v = load(argv[2])
        # an output buffer past total_bytes holds nothing that is compared
        limits = [min(t.total_bytes, DEFAULT_MEMORY_CAP) for t in v.outputs]
        limits += [DEFAULT_MEMORY_CAP] * len(argv)
        buffers = [read_regular_file(p, limit, "output buffers", prefix=True)
                   for p, limit in zip(argv[3:], limits)]
        match = v.match_outputs(buffers)
        print("%s: %s" % (v.name, match))
        return 0 if match.ok else 1
    if len(argv) == 4 and argv[1] == "inputs":
        v = load(argv[2])
        os.makedirs(argv[3], exist_ok=True)
        for t in v.inputs:
            with open(os.path.join(argv[3], t.name + ".bin"), "wb") as f:
                f.write(t.buffer())
        return 0
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (ValueError, OSError) as e:  # VectorError is a ValueError
        print("dmlref_vectors: %s" % e, file=sys.stderr)
        sys.exit(1)
