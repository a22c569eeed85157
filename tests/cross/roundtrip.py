#!/usr/bin/env python3
"""tests/cross/roundtrip.py - the bit-exactness round trip of vectors/FORMAT.md's
element encodings, read with Python's json module.

    python3 tests/cross/roundtrip.py VECTOR.json RAW.bin [TENSOR.data|TENSOR.expected ...]

Checks that the elements of the named arrays (default: InputTensor.data and
OutputTensor.expected, whichever exist) of a vector, read by json.load and
decoded here straight from FORMAT.md's "Elements" table, have exactly the bits
of RAW.bin (the same elements, little-endian, packed), and that
OutputTensor.xxh3 is the XXH3-64 of RAW.bin when the xxhash module is
available. With numpy, the decoded bits are also compared through
numpy.frombuffer, and floats are converted a second way (numpy's casts).

Standalone: the standard library plus optional numpy/xxhash. It does not
import any loader: this is a test of the encoding, not of a loader. The plan
it belongs to is in the comment at the top of tests/cross/roundtrip.mjs.
Prints "N passed, N failed" last; exits 1 when anything failed.
"""
import json
import math
import re
import struct
import sys

try:
    import numpy
except ImportError:
    numpy = None
try:
    import xxhash
except ImportError:
    xxhash = None

# dtype: (element size, kind)
DTYPES = {'FLOAT32': (4, 'float'), 'FLOAT16': (2, 'float'), 'UINT32': (4, 'uint'), 'UINT16': (2, 'uint'),
          'UINT8': (1, 'uint'), 'INT32': (4, 'int'), 'INT16': (2, 'int'), 'INT8': (1, 'int'),
          'FLOAT64': (8, 'float'), 'UINT64': (8, 'uint'), 'INT64': (8, 'int')}
STRUCT_FLOAT = {2: 'e', 4: 'f', 8: 'd'}
STRUCT_UINT = {1: 'B', 2: 'H', 4: 'I', 8: 'Q'}
CANONICAL_NAN = {2: 0x7e00, 4: 0x7fc00000, 8: 0x7ff8000000000000}
DECIMAL = re.compile(r'(?:0|-?[1-9][0-9]*)\Z')
HEX = re.compile(r'0x[0-9a-f]+\Z')

passed = failed = 0


def check(name, cond, detail=''):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print('FAIL %s%s' % (name, ': ' + detail if detail else ''))
    return cond


def is_nan_bits(size, bits):
    exp_bits = {2: 5, 4: 8, 8: 11}[size]
    man = 8 * size - 1 - exp_bits
    exp_mask = ((1 << exp_bits) - 1) << man
    return bits & exp_mask == exp_mask and bits & ((1 << man) - 1) != 0


def decode(dtype, v):
    """The bits (an int) FORMAT.md says element v of dtype stands for; ValueError otherwise."""
    size, kind = DTYPES[dtype]
    bits = 8 * size
    if kind != 'float':
        if isinstance(v, bool):
            raise ValueError('a boolean is not an integer')
        if isinstance(v, str) and size == 8 and DECIMAL.match(v):
            v = int(v)
        if not isinstance(v, int):
            raise ValueError('%r is not a %s element' % (v, dtype))
        lo, hi = ((-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if kind == 'int' else (0, (1 << bits) - 1))
        if not lo <= v <= hi:
            raise ValueError('%d is outside %s' % (v, dtype))
        return v & ((1 << bits) - 1)
    fmt = '<' + STRUCT_FLOAT[size]
    if isinstance(v, str):
        if v == 'nan':
            return CANONICAL_NAN[size]
        if v in ('inf', '-inf'):
            return struct.unpack('<' + STRUCT_UINT[size], struct.pack(fmt, float(v)))[0]
        if HEX.match(v) and len(v) == 2 + 2 * size and is_nan_bits(size, int(v, 16)):
            return int(v, 16)
        raise ValueError('%r is not a %s string element' % (v, dtype))
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError('%r is not a %s element' % (v, dtype))
    x = float(v)  # json gives int for "1": float(int) rounds correctly, like a binary64 parser
    if not math.isfinite(x):
        raise ValueError('%r is not finite' % (v,))
    try:
        packed = struct.pack(fmt, x)
    except OverflowError:
        raise ValueError('%r is out of range for %s' % (v, dtype))
    back = struct.unpack(fmt, packed)[0]
    if back != x or math.copysign(1.0, back) != math.copysign(1.0, x):
        raise ValueError('%r is not exactly representable as %s' % (v, dtype))
    return struct.unpack('<' + STRUCT_UINT[size], packed)[0]


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().split('\n\n')[1], file=sys.stderr)
        return 3
    vector_path, raw_path, arrays = argv[0], argv[1], list(argv[2:])
    with open(vector_path, 'rb') as f:
        doc = json.load(f)
    with open(raw_path, 'rb') as f:
        raw = f.read()
    tensors = doc.get('tensors', {})
    if not arrays:
        arrays = ['%s.%s' % (t, k) for t, k in (('InputTensor', 'data'), ('OutputTensor', 'expected'))
                  if k in tensors.get(t, {})]
    check('%s: has arrays to compare' % vector_path, arrays, 'no InputTensor.data or OutputTensor.expected')
    for spec in arrays:
        tname, _, field = spec.partition('.')
        label = '%s: %s' % (vector_path, spec)
        t = tensors.get(tname, {})
        if not check(label + ' exists', isinstance(t.get(field), list)):
            continue
        dtype = t.get('dtype')
        if not check(label + ': known dtype', dtype in DTYPES, repr(dtype)):
            continue
        size, kind = DTYPES[dtype]
        arr = t[field]
        if not check('%s: %d elements match %s (%d bytes / %d)' % (label, len(arr), raw_path, len(raw), size),
                     len(arr) * size == len(raw)):
            continue
        want = struct.unpack('<%d%s' % (len(arr), STRUCT_UINT[size]), raw)
        got = []
        bad, first = 0, ''
        for i, v in enumerate(arr):
            try:
                b = decode(dtype, v)
            except ValueError as e:
                b = None
                why = str(e)
            got.append(b if b is not None else 0)
            if b != want[i]:
                if not bad:
                    first = 'element %d: %s -> %s, raw 0x%0*x' % (
                        i, json.dumps(v), 'error: ' + why if b is None else '0x%0*x' % (2 * size, b), 2 * size, want[i])
                bad += 1
        check('%s: json.load + decoding recovers the raw bits of all %d elements' % (label, len(arr)), bad == 0,
              '%d differ; first %s' % (bad, first))
        if numpy is not None:
            utype = numpy.dtype('<u%d' % size)
            raw_view = numpy.frombuffer(raw, dtype=utype)
            check(label + ': numpy.frombuffer agrees with the decoded bits',
                  numpy.array_equal(raw_view, numpy.array(got, dtype=utype)))
            if kind == 'float':
                # a second conversion of the plain numbers: binary64 -> numpy cast -> bits
                ftype = numpy.dtype('<f%d' % size)
                idx = [i for i, v in enumerate(arr) if isinstance(v, (int, float)) and not isinstance(v, bool)]
                vals = numpy.array([float(arr[i]) for i in idx], dtype=numpy.float64)
                with numpy.errstate(over='ignore'):
                    cast = vals.astype(ftype)
                exact = numpy.array_equal(cast.astype(numpy.float64), vals)
                bits = cast.view(utype)
                check(label + ': numpy casts the numbers exactly, to the raw bits',
                      exact and numpy.array_equal(bits, raw_view[idx]))
    x = tensors.get('OutputTensor', {}).get('xxh3')
    if x is not None:
        if xxhash is not None:
            check('%s: OutputTensor.xxh3 is XXH3-64 of %s' % (vector_path, raw_path),
                  x == xxhash.xxh3_64_hexdigest(raw), '%s vs %s' % (x, xxhash.xxh3_64_hexdigest(raw)))
        else:
            print('note: the xxhash module is missing; OutputTensor.xxh3 not checked')
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
