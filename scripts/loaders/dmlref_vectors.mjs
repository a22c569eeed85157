/**
 * dmlref_vectors.mjs - a dependency-free ES module (Node.js 18+) that reads
 * dmlref golden vectors (vectors/FORMAT.md, formats "dmlref-vector-1" and
 * "dmlref-vector-2", which adds permitted variants) strictly, lays their
 * inputs out as DirectML buffers, and checks an implementation's output
 * buffers against them bit for bit.
 *
 * What it does:
 *   - parses JSON with its own parser: duplicate keys anywhere are refused,
 *     and numbers keep their source text, so 64-bit integers are exact;
 *   - checks every rule of FORMAT.md that a reader can check (keys, types,
 *     ranges, element encodings, counts, broadcast conflicts, digests);
 *   - decodes every element encoding of the 11 dtypes to exact bits
 *     (Number for 8-32-bit types, BigInt for 64-bit types);
 *   - implements the generators "bits", "index" and "sparse" (SplitMix64);
 *   - builds input buffers (Uint8Array of total_bytes, strides, padding 0);
 *   - compares output buffers: expected bits, null, {"any_of": [...]}, xxh3,
 *     and accepts a permitted variant's answer, saying which (checkOutputs);
 *   - implements XXH3-64 (seed 0) in BigInt arithmetic.
 *
 * Usage (this exact program runs; see also `node scripts/loaders/dmlref_vectors.mjs
 * FILE...`, which parses vectors and checks that their expected outputs pass):
 *
 *   import {parseVector, buildInputBuffers, expectedOutputBuffers, checkOutputs}
 *       from './scripts/loaders/dmlref_vectors.mjs';
 *   const v = parseVector(`{"format": "dmlref-vector-1",
 *     "name": "gather_elements/float32/2d/doc_example", "operator": "GATHER_ELEMENTS",
 *     "attributes": {"Axis": 0}, "tensors": {
 *     "InputTensor": {"dtype": "FLOAT32", "sizes": [3, 3], "data": [1, 2, 3, 4, 5, 6, 7, 8, 9]},
 *     "IndicesTensor": {"dtype": "UINT32", "sizes": [2, 3], "data": [1, 2, 0, 2, 0, 0]},
 *     "OutputTensor": {"dtype": "FLOAT32", "sizes": [2, 3], "expected": [4, 8, 3, 7, 2, 3]}}}`);
 *   const [input, indices] = buildInputBuffers(v);    // Uint8Array(36), Uint8Array(24)
 *   const outputs = expectedOutputBuffers(v);         // what a correct backend writes
 *   console.log(checkOutputs(v, outputs).ok);         // true
 *   outputs[0][4 * 4] ^= 1;                           // flip a bit of element [1, 1]
 *   console.log(checkOutputs(v, outputs).message);
 *   // OutputTensor[1, 1] (element 4): expected 0x40000000 (2), got 0x40000001 (2.000000238418579); 1 wrong element
 *
 * Errors in a vector throw VectorError, whose message starts with the source
 * name and the JSON path: "case.json: $.tensors.IndicesTensor.sizes[0]: ...".
 */

import {closeSync, constants as fsConstants, fstatSync, openSync, readSync, realpathSync, statSync}
    from 'node:fs';
import {fileURLToPath} from 'node:url';

export const FORMAT = 'dmlref-vector-1';                 /* a vector without variants */
export const FORMAT_WITH_VARIANTS = 'dmlref-vector-2';
export const FORMATS = Object.freeze([FORMAT, FORMAT_WITH_VARIANTS]);
/** The variants this reader knows (FORMAT.md, "Variants"): name -> rule id. */
export const VARIANT_RULES = Object.freeze({subnormals_flushed: 'R-NZ-10'});

/* ------------------------------------------------------------------------ */
/* errors                                                                   */

export class VectorError extends Error {
    constructor(message, path = null) {
        super(message);
        this.name = 'VectorError';
        this.path = path;
    }
}

/* ------------------------------------------------------------------------ */
/* caps: those of dmlref's reader (vectors/FORMAT.md, "Files, memory and     */
/* alignment")                                                              */

/** A vector file is a regular file of at most this many bytes
 *  (DMLREF_VECTOR_MAX_FILE_BYTES). */
export const MAX_FILE_BYTES = 2 ** 30;
/** What one case may make the reader allocate (the file's text, the input
 *  buffers, the scratch of placing them, logical elements expanded on
 *  request), unless options.memoryCap says otherwise. */
export const DEFAULT_MEMORY_CAP = 4 * 2 ** 30;
/** R-TD-13: a tensor has at most 2^32-1 elements. */
export const MAX_TENSOR_ELEMENTS = 2 ** 32 - 1;

/* "no such file or directory" from Node's "ENOENT: no such file or directory, stat 'x'" */
function systemReason(e) {
    return String(e.message).replace(/^[A-Z0-9_]+: /, '').replace(/, [a-z]+ '.*'$/s, '');
}

function fileKind(st) {
    if (st.isFIFO()) return 'a FIFO';
    if (st.isCharacterDevice()) return 'a character device';
    if (st.isBlockDevice()) return 'a block device';
    if (st.isDirectory()) return 'a directory';
    if (st.isSocket()) return 'a socket';
    return 'of another kind';
}

/**
 * The bytes (a Uint8Array) of `path`, which must be a regular file of at
 * most `limit` bytes. Anything else (a FIFO, a device, a directory, a
 * socket) is refused before it is opened and again after (the path may
 * change in between), without blocking or reading from it. Throws a
 * VectorError of one line, as dmlref's own reader words it.
 */
export function readRegularFile(path, limit = MAX_FILE_BYTES, what = 'vectors') {
    const refuse = (st) => {
        throw new VectorError(`${path}: not a regular file (${fileKind(st)}): ${what} are read from regular files only`);
    };
    const tooLarge = () => { throw new VectorError(`${path}: larger than ${limit} bytes`); };
    let fd;
    try {
        const st = statSync(path);
        if (!st.isFile()) refuse(st);
        fd = openSync(path, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0));
    } catch (e) {
        if (e instanceof VectorError) throw e;
        throw new VectorError(`${path}: cannot open: ${systemReason(e)}`);
    }
    try {
        const st = fstatSync(fd);
        if (!st.isFile()) refuse(st);
        if (st.size > limit) tooLarge();
        /* the size the file gave and one byte more; a file that grows
           meanwhile is read on, up to the limit */
        let buf = new Uint8Array(st.size + 1), length = 0;
        for (;;) {
            if (length === buf.length) {
                if (length > limit) tooLarge();
                const bigger = new Uint8Array(Math.min(2 * buf.length, limit + 1) + 1);
                bigger.set(buf);
                buf = bigger;
            }
            const got = readSync(fd, buf, length, buf.length - length, null);
            if (!got) break;
            length += got;
        }
        if (length > limit) tooLarge();
        return buf.subarray(0, length);
    } catch (e) {
        if (e instanceof VectorError) throw e;
        throw new VectorError(`${path}: cannot read: ${systemReason(e)}`);
    } finally {
        closeSync(fd);
    }
}

/** One case's memory cap: every large allocation is counted before it is made. */
class Budget {
    constructor(cap, source) {
        this.cap = cap || DEFAULT_MEMORY_CAP;
        this.used = 0;
        this.source = source;
    }
    left() { return this.cap - this.used; }
    take(bytes, path, what) {
        if (Number(bytes) > this.cap - this.used)
            throw new VectorError(`${this.source}: ${path}: the case needs more than the memory cap of ${this.cap} ` +
                                  `bytes: ${bytes} bytes for ${what}, ${BigInt(this.used) + BigInt(bytes)} in all ` +
                                  '(options.memoryCap sets the cap)', path);
        this.used += Number(bytes);
    }
    giveBack(bytes) { this.used -= bytes; }
}

/* ------------------------------------------------------------------------ */
/* data types                                                               */

const INT_RANGE = (bits, signed) => signed
    ? [-(1n << BigInt(bits - 1)), (1n << BigInt(bits - 1)) - 1n]
    : [0n, (1n << BigInt(bits)) - 1n];

/** The 11 dtypes: element size, kind ('float', 'int', 'uint'), integer range. */
export const DTYPES = Object.freeze(Object.fromEntries([
    ['FLOAT32', 4, 'float'], ['FLOAT16', 2, 'float'], ['UINT32', 4, 'uint'],
    ['UINT16', 2, 'uint'], ['UINT8', 1, 'uint'], ['INT32', 4, 'int'], ['INT16', 2, 'int'],
    ['INT8', 1, 'int'], ['FLOAT64', 8, 'float'], ['UINT64', 8, 'uint'], ['INT64', 8, 'int'],
].map(([name, esize, kind]) => {
    const info = {name, esize, kind, bits: esize * 8};
    if (kind !== 'float') [info.min, info.max] = INT_RANGE(esize * 8, kind === 'int');
    return [name, Object.freeze(info)];
})));

function dtypeInfo(dtype) {
    const info = Object.prototype.hasOwnProperty.call(DTYPES, dtype) ? DTYPES[dtype] : null;
    if (!info) throw new VectorError(`unknown dtype ${JSON.stringify(dtype)}`);
    return info;
}

/** A typed array holding `count` elements' bits of `dtype`. */
export function newBitsArray(dtype, count) {
    switch (dtypeInfo(dtype).esize) {
    case 1: return new Uint8Array(count);
    case 2: return new Uint16Array(count);
    case 4: return new Uint32Array(count);
    default: return new BigUint64Array(count);
    }
}

/** The bits of a canonical quiet NaN, of 1, of +inf per float dtype. */
const FLOAT_CONST = {
    FLOAT16: {nan: 0x7e00, one: 0x3c00, inf: 0x7c00, sign: 0x8000},
    FLOAT32: {nan: 0x7fc00000, one: 0x3f800000, inf: 0x7f800000, sign: 0x80000000},
    FLOAT64: {nan: 0x7ff8000000000000n, one: 0x3ff0000000000000n, inf: 0x7ff0000000000000n,
              sign: 0x8000000000000000n},
};

/** The bits of the value 1 in `dtype` (the "sparse" generator's non-zero). */
export function oneBits(dtype) {
    const info = dtypeInfo(dtype);
    if (info.kind === 'float') return FLOAT_CONST[dtype].one;
    return info.esize === 8 ? 1n : 1;
}

const scratch = new DataView(new ArrayBuffer(8));

function isNaNBits(dtype, bits) {
    if (dtype === 'FLOAT16') return (bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0;
    if (dtype === 'FLOAT32') return (bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0;
    if (dtype === 'FLOAT64')
        return (bits & 0x7ff0000000000000n) === 0x7ff0000000000000n && (bits & 0xfffffffffffffn) !== 0n;
    return false;
}

/** float16 bits of a double, or null when the double is not exactly a float16. */
export function float16BitsExact(x) {
    if (Number.isNaN(x)) return null;
    const sign = (x < 0 || Object.is(x, -0)) ? 0x8000 : 0;
    const a = Math.abs(x);
    if (a === 0) return sign;
    if (a === Infinity) return sign | 0x7c00;
    if (a > 65504) return null;
    if (a < 2 ** -14) {                       /* subnormal: a = m * 2^-24 */
        const m = a * 2 ** 24;                /* exact: scaling by a power of two */
        return Number.isInteger(m) ? sign | m : null;
    }
    let e = 15;
    while (a < 2 ** e) e--;                   /* 2^e <= a < 2^(e+1), -14 <= e <= 15 */
    const f = (a / 2 ** e) * 1024 - 1024;     /* exact */
    return Number.isInteger(f) ? sign | ((e + 15) << 10) | f : null;
}

/** The double a float16 bit pattern stands for. */
export function float16Value(bits) {
    const sign = bits & 0x8000 ? -1 : 1;
    const e = (bits >> 10) & 0x1f, f = bits & 0x3ff;
    if (e === 0x1f) return f ? NaN : sign * Infinity;
    if (e === 0) return sign * f * 2 ** -24;
    return sign * (1024 + f) * 2 ** (e - 25);
}

/** The numeric value of an element's bits: Number for floats and <= 32-bit
 *  integers, BigInt for 64-bit integers. */
export function bitsToValue(dtype, bits) {
    const info = dtypeInfo(dtype);
    switch (dtype) {
    case 'FLOAT16': return float16Value(bits);
    case 'FLOAT32': scratch.setUint32(0, bits, true); return scratch.getFloat32(0, true);
    case 'FLOAT64': scratch.setBigUint64(0, bits, true); return scratch.getFloat64(0, true);
    default:
        if (info.esize === 8) return info.kind === 'int' ? BigInt.asIntN(64, bits) : bits;
        if (info.kind === 'int' && bits >= 2 ** (info.bits - 1)) return bits - 2 ** info.bits;
        return bits;
    }
}

/** Lower-case hex of an element's bits, 2*esize digits, with "0x". */
export function bitsHex(dtype, bits) {
    return '0x' + bits.toString(16).padStart(2 * dtypeInfo(dtype).esize, '0');
}

/* ------------------------------------------------------------------------ */
/* JSON: a strict parser that keeps number text and refuses duplicate keys  */

/** A JSON number as written in the source: `raw` is its exact text. */
export class JsonNumber {
    constructor(raw) { this.raw = raw; }
    valueOf() { return Number(this.raw); }
    toString() { return this.raw; }
}

/** Raw JSON text to splice into toJsonText()'s output (e.g. "-0.0"). */
export class RawJson {
    constructor(text) { this.text = text; }
}

const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
/* The number token -0 outside strings (FORMAT.md, "Elements"): some JSON
   readers read it as +0, losing a float element's sign. */
const MINUS_ZERO_RE = /"(?:[^"\\]|\\.)*"|(?<![0-9eE.+-])(-0)(?![0-9.eE])/g;

/** {line, column} of the first number token -0 in `text`, or null. */
function minusZeroAt(text) {
    if (!text.includes('-0')) return null;
    MINUS_ZERO_RE.lastIndex = 0;
    for (const m of text.matchAll(MINUS_ZERO_RE)) {
        if (m[1] === undefined) continue;
        const at = m.index;
        let line = 1;
        for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
        return {line, column: at - text.lastIndexOf('\n', at - 1)};
    }
    return null;
}
const INTEGER_RE = /^-?(?:0|[1-9][0-9]*)$/;
const MAX_DEPTH = 64;

function keyPath(path, key) {
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Parses JSON text (RFC 8259) strictly. Objects become null-prototype
 * objects, numbers become JsonNumber (exact source text), the rest plain JS
 * values. Refuses duplicate keys (compared after unescaping), a byte order
 * mark, trailing text and nesting deeper than 64.
 */
export function parseJson(text, source = '<json>') {
    if (typeof text !== 'string') {
        try {
            text = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true}).decode(text);
        } catch (e) {
            throw new VectorError(`${source}: not valid UTF-8`);
        }
    }
    const n = text.length;
    let pos = 0;
    /* refused before parsing, wherever it is, as dmlref's reader does */
    const minusZero = minusZeroAt(text);
    if (minusZero)
        throw new VectorError(`${source}: $: line ${minusZero.line}, column ${minusZero.column}: ` +
                              'the number -0 is ambiguous in JSON readers: write -0.0 (negative zero) or 0', '$');

    function fail(msg, at = pos) {
        let line = 1, col = 1;
        for (let i = 0; i < at && i < n; i++) {
            if (text.charCodeAt(i) === 10) { line++; col = 1; } else col++;
        }
        throw new VectorError(`${source}:${line}:${col}: ${msg}`);
    }
    function ws() {
        while (pos < n) {
            const c = text.charCodeAt(pos);
            if (c === 32 || c === 10 || c === 13 || c === 9) pos++;
            else break;
        }
    }
    function expect(ch, what) {
        ws();
        if (text[pos] !== ch) fail(pos >= n ? `unexpected end of input, expected ${what}`
                                            : `expected ${what}, found ${JSON.stringify(text[pos])}`);
        pos++;
    }
    function string() {
        pos++;                                   /* the opening quote */
        const start = pos;
        let out = null;                          /* set once an escape is met */
        let chunk = start;
        for (;;) {
            if (pos >= n) fail('unterminated string', start - 1);
            const c = text.charCodeAt(pos);
            if (c === 34) {
                const s = out === null ? text.slice(start, pos) : out + text.slice(chunk, pos);
                pos++;
                return s;
            }
            if (c < 0x20) fail('control character in string');
            if (c === 92) {
                if (out === null) out = '';
                out += text.slice(chunk, pos);
                const e = text[pos + 1];
                const simple = {'"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t'};
                if (e !== undefined && Object.prototype.hasOwnProperty.call(simple, e)) {
                    out += simple[e];
                    pos += 2;
                } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
                    out += String.fromCharCode(parseInt(text.slice(pos + 2, pos + 6), 16));
                    pos += 6;
                } else {
                    fail('invalid escape in string');
                }
                chunk = pos;
                continue;
            }
            pos++;
        }
    }
    function number() {
        NUMBER_RE.lastIndex = pos;
        const m = NUMBER_RE.exec(text);
        if (!m) fail('invalid number');
        pos += m[0].length;
        const c = text.charCodeAt(pos);
        if ((c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45)
            fail('invalid number');
        /* FORMAT.md: the token -0 is ambiguous across JSON readers (some read
           +0): negative zero is written -0.0, and -0 is refused */
        if (m[0] === '-0') fail('the number -0 is ambiguous in JSON readers: write -0.0 or 0');
        return new JsonNumber(m[0]);
    }
    function value(path, depth) {
        ws();
        if (pos >= n) fail('unexpected end of input, expected a value');
        const c = text.charCodeAt(pos);
        if (c === 123 || c === 91) {
            if (depth >= MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH}`);
            return c === 123 ? object(path, depth + 1) : array(path, depth + 1);
        }
        if (c === 34) return string();
        if (c === 45 || (c >= 48 && c <= 57)) return number();
        for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
            if (text.startsWith(word, pos)) {
                pos += word.length;
                const d = text.charCodeAt(pos);
                if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || (d >= 48 && d <= 57))
                    fail('invalid literal');
                return v;
            }
        }
        fail(`unexpected character ${JSON.stringify(text[pos])}`);
    }
    function object(path, depth) {
        pos++;
        const obj = Object.create(null);
        ws();
        if (text[pos] === '}') { pos++; return obj; }
        for (;;) {
            ws();
            if (text[pos] !== '"') fail(pos >= n ? 'unexpected end of input' : 'expected a string key');
            const keyAt = pos;
            const key = string();
            if (Object.prototype.hasOwnProperty.call(obj, key))
                fail(`${path}: duplicate key ${JSON.stringify(key)}`, keyAt);
            expect(':', '":"');
            ws();
            const c = text.charCodeAt(pos);
            obj[key] = value(c === 123 || c === 91 ? keyPath(path, key) : path, depth);
            ws();
            if (text[pos] === ',') { pos++; continue; }
            if (text[pos] === '}') { pos++; return obj; }
            fail(pos >= n ? 'unexpected end of input, expected "," or "}"' : 'expected "," or "}"');
        }
    }
    function array(path, depth) {
        pos++;
        const arr = [];
        ws();
        if (text[pos] === ']') { pos++; return arr; }
        for (;;) {
            ws();
            const c = text.charCodeAt(pos);
            arr.push(value(c === 123 || c === 91 ? `${path}[${arr.length}]` : path, depth));
            ws();
            if (text[pos] === ',') { pos++; continue; }
            if (text[pos] === ']') { pos++; return arr; }
            fail(pos >= n ? 'unexpected end of input, expected "," or "]"' : 'expected "," or "]"');
        }
    }

    if (text.charCodeAt(0) === 0xfeff) fail('byte order mark before the JSON text', 0);
    const result = value('$', 0);
    ws();
    if (pos < n) fail('text after the JSON value');
    return result;
}

/** Serialises plain values, JsonNumber, RawJson, BigInt (as a JSON integer)
 *  and null-prototype objects. `indent` > 0 puts each key on its own line;
 *  arrays of scalars stay on one line. */
export function toJsonText(value, indent = 2, level = 0) {
    if (value === null) return 'null';
    if (value instanceof RawJson) return value.text;
    if (value instanceof JsonNumber) return value.raw;
    switch (typeof value) {
    case 'bigint': return value.toString();
    case 'number':
        if (!Number.isFinite(value)) throw new TypeError('non-finite number');
        return Object.is(value, -0) ? '-0.0' : String(value);
    case 'string': case 'boolean': return JSON.stringify(value);
    default: break;
    }
    const pad = indent ? '\n' + ' '.repeat(indent * (level + 1)) : '';
    const end = indent ? '\n' + ' '.repeat(indent * level) : '';
    if (Array.isArray(value) || ArrayBuffer.isView(value)) {
        const items = Array.from(value, (v) => toJsonText(v, indent, level + 1));
        const flat = Array.from(value).every((v) => v === null || typeof v !== 'object' ||
                                                   v instanceof RawJson || v instanceof JsonNumber);
        return flat || !indent ? `[${items.join(', ')}]` : `[${pad}${items.join(',' + pad)}${end}]`;
    }
    const keys = Object.keys(value).filter((k) => value[k] !== undefined);
    if (!keys.length) return '{}';
    const items = keys.map((k) => `${JSON.stringify(k)}: ${toJsonText(value[k], indent, level + 1)}`);
    return indent ? `{${pad}${items.join(',' + pad)}${end}}` : `{${items.join(', ')}}`;
}

/* ------------------------------------------------------------------------ */
/* elements                                                                 */

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) &&
                     !(v instanceof JsonNumber) && !(v instanceof RawJson);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const HEX_RE = /^0x[0-9a-f]+$/;
const DECIMAL_STRING_RE = /^(?:0|-?[1-9][0-9]*)$/;        /* "-" for negatives only: no "-0" */

function describe(v) {
    if (v === null) return 'null';
    if (v instanceof JsonNumber) return v.raw;
    if (Array.isArray(v)) return 'an array';
    if (typeof v === 'object') return 'an object';
    if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '...' : v);
    return String(v);
}

/**
 * An integer given as a JSON integer (JsonNumber with integer syntax, or a
 * JS number that is a safe integer) or, with `strings`, as a string of
 * decimal digits. Returns a BigInt in [min, max]; throws a plain Error with
 * the reason otherwise.
 */
function integerOf(v, min, max, strings, what) {
    let b;
    if (v instanceof JsonNumber) {
        if (!INTEGER_RE.test(v.raw)) throw new Error(`${what} must be a JSON integer, not ${v.raw}`);
        b = BigInt(v.raw);
    } else if (typeof v === 'number') {
        if (!Number.isInteger(v)) throw new Error(`${what} must be an integer, not ${v}`);
        if (!Number.isSafeInteger(v) && Math.abs(v) !== 2 ** 53)
            throw new Error(`${what} ${v} is beyond 2^53 as a JS number: its exact value is lost ` +
                            '(parse with parseJson, or write it as a decimal string)');
        b = BigInt(v);
    } else if (strings && typeof v === 'string') {
        if (!DECIMAL_STRING_RE.test(v)) throw new Error(`${what} ${describe(v)} is not a string of decimal digits`);
        b = BigInt(v);
    } else {
        throw new Error(`${what} must be ${strings ? 'an integer or a decimal string' : 'an integer'}, not ${describe(v)}`);
    }
    if (b < min || b > max) throw new Error(`${what} ${b} is outside [${min}, ${max}]`);
    return b;
}

/**
 * Decodes one element (as parsed by parseJson, or by JSON.parse) of `dtype`
 * to its exact bits: a Number for 8- to 32-bit dtypes, a BigInt for 64-bit
 * dtypes. Throws Error for an encoding FORMAT.md does not allow or a value
 * the dtype cannot hold exactly.
 */
export function decodeElement(dtype, v) {
    const info = dtypeInfo(dtype);
    if (info.kind !== 'float') {
        const b = integerOf(v, info.min, info.max, info.esize === 8, `a ${dtype} element`);
        const u = BigInt.asUintN(info.bits, b);
        return info.esize === 8 ? u : Number(u);
    }
    const k = FLOAT_CONST[dtype];
    if (typeof v === 'string') {
        if (v === 'nan') return k.nan;
        if (v === 'inf') return k.inf;
        if (v === '-inf') return info.esize === 8 ? k.inf | k.sign : (k.inf | k.sign) >>> 0;
        if (HEX_RE.test(v)) {
            if (v.length !== 2 + 2 * info.esize)
                throw new Error(`a ${dtype} NaN string needs exactly ${2 * info.esize} hex digits: ${describe(v)}`);
            const bits = info.esize === 8 ? BigInt(v) : parseInt(v.slice(2), 16);
            if (!isNaNBits(dtype, bits))
                throw new Error(`${describe(v)} is not a ${dtype} NaN: write other values as numbers or "inf"/"-inf"`);
            return bits;
        }
        throw new Error(`a ${dtype} element string must be "inf", "-inf", "nan" or "0x" and lower-case hex, not ${describe(v)}`);
    }
    let x;
    if (v instanceof JsonNumber) x = Number(v.raw);
    else if (typeof v === 'number') x = v;
    else throw new Error(`a ${dtype} element must be a number or a string, not ${describe(v)}`);
    if (!Number.isFinite(x)) throw new Error(`${describe(v)} overflows binary64: write infinities as "inf" or "-inf"`);
    switch (dtype) {
    case 'FLOAT64':
        scratch.setFloat64(0, x, true);
        return scratch.getBigUint64(0, true);
    case 'FLOAT32':
        if (!Object.is(Math.fround(x), x))
            throw new Error(`${describe(v)} is not exactly representable as FLOAT32`);
        scratch.setFloat32(0, x, true);
        return scratch.getUint32(0, true);
    default: {
        const bits = float16BitsExact(x);
        if (bits === null) throw new Error(`${describe(v)} is not exactly representable as FLOAT16`);
        return bits;
    }
    }
}

/** FORMAT.md's canonical JSON text for an element (what dmlref writes): the shortest
 *  decimal for finite floats ("-0.0" for negative zero), "inf", "-inf",
 *  "nan", "0x..." for other NaNs, integers up to 2^53 in magnitude as JSON
 *  integers and larger 64-bit ones as decimal strings. */
export function encodeElement(dtype, bits) {
    const info = dtypeInfo(dtype);
    if (info.kind !== 'float') {
        const v = bitsToValue(dtype, bits);
        const big = BigInt(v);
        return (big > 2n ** 53n || big < -(2n ** 53n)) ? `"${big}"` : big.toString();
    }
    if (isNaNBits(dtype, bits)) return bits === FLOAT_CONST[dtype].nan ? '"nan"' : `"${bitsHex(dtype, bits)}"`;
    const x = bitsToValue(dtype, bits);
    if (x === Infinity) return '"inf"';
    if (x === -Infinity) return '"-inf"';
    if (Object.is(x, -0)) return '-0.0';
    const s = String(x);
    /* JavaScript spells 2^63 "9223372036854776000"; an integer-looking token
       that large trips readers that parse JSON integers as int64 (jansson), so
       such values are written in exponent form, still the shortest digits. */
    return Math.abs(x) >= 2 ** 53 && !s.includes('e') ? x.toExponential() : s;
}

/* ------------------------------------------------------------------------ */
/* generators                                                               */

const M64 = (1n << 64n) - 1n;

/** SplitMix64 output r(i) for element number i (BigInt or Number) and seed (BigInt). */
export function splitmix64(seed, i) {
    let z = (BigInt(seed) + (BigInt(i) + 1n) * 0x9E3779B97F4A7C15n) & M64;
    z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & M64;
    z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & M64;
    return z ^ (z >> 31n);
}

/**
 * Element bits 0..count-1 of a generator ({kind, seed, low, high, density}
 * with BigInt seed/low/high, as parseVector stores them) for `dtype`.
 */
export function generate(dtype, gen, count) {
    const out = newBitsArray(dtype, count);
    const next = elementStream(dtype, gen);
    for (let i = 0; i < count; i++) out[i] = next();
    return out;
}

/** A function that returns a generator's elements (bits) one per call, from
 *  element 0 on: what places a generated input without holding its logical
 *  elements. */
export function elementStream(dtype, gen) {
    const info = dtypeInfo(dtype);
    const seed = BigInt(gen.seed);
    const wide = info.esize === 8;
    const mask = (1n << BigInt(info.bits)) - 1n;
    let z = seed;                           /* z = seed + (i + 1) * golden, incrementally */
    const step = 0x9E3779B97F4A7C15n;
    const mix = () => {
        z = (z + step) & M64;
        let t = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & M64;
        t = ((t ^ (t >> 27n)) * 0x94D049BB133111EBn) & M64;
        return t ^ (t >> 31n);
    };
    if (gen.kind === 'bits') return () => (wide ? mix() & mask : Number(mix() & mask));
    if (gen.kind === 'index') {
        const low = gen.low.map(BigInt), high = gen.high.map(BigInt);
        const span = low.map((l, j) => high[j] - l + 1n);
        const m = low.length;
        let j = 0;
        return () => {
            const v = BigInt.asUintN(info.bits, low[j] + mix() % span[j]);
            j = j + 1 === m ? 0 : j + 1;
            return wide ? v : Number(v);
        };
    }
    if (gen.kind === 'sparse') {
        const density = BigInt(gen.density);
        const one = oneBits(dtype), zero = wide ? 0n : 0;
        return () => (mix() % 1000000n < density ? one : zero);
    }
    throw new VectorError(`unknown generator kind ${JSON.stringify(gen.kind)}`);
}

/* ------------------------------------------------------------------------ */
/* XXH3-64, seed 0, default secret                                          */

const SECRET = Uint8Array.from([
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
]);
const SECRET_VIEW = new DataView(SECRET.buffer);
const SECRET_SIZE = 192;
const P32_1 = 0x9E3779B1n, P32_2 = 0x85EBCA77n, P32_3 = 0xC2B2AE3Dn;
const P64_1 = 0x9E3779B185EBCA87n, P64_2 = 0xC2B2AE3D27D4EB4Fn, P64_3 = 0x165667B19E3779F9n;
const P64_4 = 0x85EBCA77C2B2AE63n, P64_5 = 0x27D4EB2F165667C5n;
const PMX_1 = 0x165667919E3779F9n, PMX_2 = 0x9FB21C651E98DF25n;
const STRIPE = 64, STRIPES_PER_BLOCK = (SECRET_SIZE - STRIPE) / 8, BLOCK = STRIPE * STRIPES_PER_BLOCK;

const sec64 = (o) => SECRET_VIEW.getBigUint64(o, true);
const sec32 = (o) => BigInt(SECRET_VIEW.getUint32(o, true));
const rotl64 = (x, r) => ((x << BigInt(r)) | (x >> BigInt(64 - r))) & M64;
const bswap64 = (x) => {
    scratch.setBigUint64(0, x, true);
    return scratch.getBigUint64(0, false);
};
const mulFold64 = (a, b) => {             /* 64x64 -> 128-bit product, low ^ high */
    const p = a * b;
    return (p & M64) ^ (p >> 64n);
};
function xxh64Avalanche(h) {
    h ^= h >> 33n; h = (h * P64_2) & M64;
    h ^= h >> 29n; h = (h * P64_3) & M64;
    return h ^ (h >> 32n);
}
function xxh3Avalanche(h) {
    h ^= h >> 37n; h = (h * PMX_1) & M64;
    return h ^ (h >> 32n);
}
function rrmxmx(h, len) {
    h ^= rotl64(h, 49) ^ rotl64(h, 24);
    h = (h * PMX_2) & M64;
    h ^= (h >> 35n) + BigInt(len);
    h = (h * PMX_2) & M64;
    return h ^ (h >> 28n);
}

/** XXH3-64 (seed 0) of bytes (Uint8Array, ArrayBuffer or a typed array's bytes); a BigInt. */
export function xxh3(bytes) {
    if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
    else if (!(bytes instanceof Uint8Array)) bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const len = bytes.length;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const in64 = (o) => view.getBigUint64(o, true);
    const in32 = (o) => BigInt(view.getUint32(o, true));
    const mix16 = (ip, sp) => mulFold64(in64(ip) ^ sec64(sp), in64(ip + 8) ^ sec64(sp + 8));

    if (len === 0) return xxh64Avalanche(sec64(56) ^ sec64(64));
    if (len <= 3) {
        const combined = (bytes[0] << 16 | bytes[len >> 1] << 24 | bytes[len - 1] | len << 8) >>> 0;
        return xxh64Avalanche(BigInt(combined) ^ (sec32(0) ^ sec32(4)));
    }
    if (len <= 8) {
        const input64 = in32(len - 4) + (in32(0) << 32n);
        return rrmxmx(input64 ^ (sec64(8) ^ sec64(16)), len);
    }
    if (len <= 16) {
        const lo = in64(0) ^ (sec64(24) ^ sec64(32));
        const hi = in64(len - 8) ^ (sec64(40) ^ sec64(48));
        return xxh3Avalanche((BigInt(len) + bswap64(lo) + hi + mulFold64(lo, hi)) & M64);
    }
    if (len <= 128) {
        let acc = BigInt(len) * P64_1;
        if (len > 32) {
            if (len > 64) {
                if (len > 96) acc += mix16(48, 96) + mix16(len - 64, 112);
                acc += mix16(32, 64) + mix16(len - 48, 80);
            }
            acc += mix16(16, 32) + mix16(len - 32, 48);
        }
        acc += mix16(0, 0) + mix16(len - 16, 16);
        return xxh3Avalanche(acc & M64);
    }
    if (len <= 240) {
        let acc = BigInt(len) * P64_1;
        for (let i = 0; i < 8; i++) acc += mix16(16 * i, 16 * i);
        acc = xxh3Avalanche(acc & M64);
        const rounds = Math.floor(len / 16);
        for (let i = 8; i < rounds; i++) acc += mix16(16 * i, 16 * (i - 8) + 3);
        acc += mix16(len - 16, 136 - 17);
        return xxh3Avalanche(acc & M64);
    }

    /* long input: stripes of 64 bytes into 8 accumulators, blocks of 16 stripes */
    const acc = new BigUint64Array([P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1]);
    const keysAt = (o) => Array.from({length: 8}, (_, l) => sec64(o + 8 * l));
    const stripeKeys = Array.from({length: STRIPES_PER_BLOCK}, (_, s) => keysAt(8 * s));
    const lastKeys = keysAt(SECRET_SIZE - STRIPE - 7);
    const scrambleKeys = keysAt(SECRET_SIZE - STRIPE);
    const accumulate = (ip, keys) => {
        for (let l = 0; l < 8; l++) {
            const data = in64(ip + 8 * l);
            const dk = data ^ keys[l];
            acc[l ^ 1] += data;                                /* BigUint64Array wraps mod 2^64 */
            acc[l] += (dk & 0xffffffffn) * (dk >> 32n);
        }
    };
    const scramble = () => {
        for (let l = 0; l < 8; l++) {
            let a = acc[l];
            a ^= a >> 47n;
            a ^= scrambleKeys[l];
            acc[l] = a * P32_1;
        }
    };
    const blocks = Math.floor((len - 1) / BLOCK);
    for (let b = 0; b < blocks; b++) {
        for (let s = 0; s < STRIPES_PER_BLOCK; s++) accumulate(b * BLOCK + s * STRIPE, stripeKeys[s]);
        scramble();
    }
    const stripes = Math.floor((len - 1 - BLOCK * blocks) / STRIPE);
    for (let s = 0; s < stripes; s++) accumulate(blocks * BLOCK + s * STRIPE, stripeKeys[s]);
    accumulate(len - STRIPE, lastKeys);

    let result = (BigInt(len) * P64_1) & M64;
    for (let i = 0; i < 4; i++)
        result += mulFold64(acc[2 * i] ^ sec64(11 + 16 * i), acc[2 * i + 1] ^ sec64(11 + 16 * i + 8));
    return xxh3Avalanche(result & M64);
}

/** XXH3-64 (seed 0) as 16 lower-case hex digits. */
export function xxh3Hex(bytes) {
    return xxh3(bytes).toString(16).padStart(16, '0');
}

/** Little-endian bytes of a bits array (typed array of one dtype). */
/**
 * The elements an output's xxh3 covers (FORMAT.md, "Digests"): all of them,
 * except NONZERO_COORDINATES' OutputCoordinatesTensor, whose digest covers
 * the `count` rows before the count (the only defined ones).
 */
export function digestedElements(vector, t, bits, count) {
    if (vector.op === 'NONZERO_COORDINATES' && t.name === 'OutputCoordinatesTensor' &&
        count !== null && count !== undefined) {
        const columns = t.sizes[t.sizes.length - 1];
        return bits.subarray(0, Math.min(bits.length, Number(count) * columns));
    }
    return bits;
}

/* The count a NonZero case expects (or null): its OutputCountTensor's only element. */
function expectedCount(vector) {
    const c = (vector.tensors && vector.tensors.OutputCountTensor) ||
              (vector.outputs && vector.outputs.find((x) => x.name === 'OutputCountTensor'));
    return c && c.expected ? c.expected.bits[0] : null;
}

export function bitsToBytes(bits) {
    const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
    if (little || bits.BYTES_PER_ELEMENT === 1)
        return new Uint8Array(bits.buffer, bits.byteOffset, bits.byteLength);
    const out = new Uint8Array(bits.byteLength);
    const dv = new DataView(out.buffer);
    const w = bits.BYTES_PER_ELEMENT;
    for (let i = 0; i < bits.length; i++) {
        if (w === 2) dv.setUint16(2 * i, bits[i], true);
        else if (w === 4) dv.setUint32(4 * i, bits[i], true);
        else dv.setBigUint64(8 * i, bits[i], true);
    }
    return out;
}

/* ------------------------------------------------------------------------ */
/* tensor layout                                                            */

/** Packed row-major strides of sizes. */
export function packedStrides(sizes) {
    const st = new Array(sizes.length);
    let s = 1;
    for (let i = sizes.length - 1; i >= 0; i--) { st[i] = s; s *= sizes[i]; }
    return st;
}

/**
 * DMLCalcBufferTensorSize as dmlref computes it (a BigInt): with strides
 * roundup4((sum((size-1)*stride) + 1) * esize), packed roundup4(prod(sizes) *
 * esize); 0 for a size of 0 or a result beyond 64 bits, like the C library.
 */
export function calcBufferTensorSize(dtype, sizes, strides = null) {
    const esize = BigInt(dtypeInfo(dtype).esize);
    if (!sizes.length || sizes.length > 8 || sizes.some((s) => Number(s) === 0)) return 0n;
    let elements;
    if (strides) {
        elements = 1n;
        sizes.forEach((s, i) => { elements += (BigInt(s) - 1n) * BigInt(strides[i]); });
    } else {
        elements = sizes.reduce((p, s) => p * BigInt(s), 1n);
    }
    const bytes = ((elements * esize + 3n) / 4n) * 4n;
    return bytes > M64 ? 0n : bytes;
}

/** The element count prod(sizes), a BigInt. */
function elementCount(sizes) {
    return sizes.reduce((p, s) => p * BigInt(s), 1n);
}

/** The largest element offset of a layout (BigInt), -1n for an empty one. */
function maxOffset(sizes, strides) {
    if (sizes.some((s) => s === 0)) return -1n;
    return sizes.reduce((m, s, i) => m + BigInt(s - 1) * BigInt(strides[i]), 0n);
}

/** Calls fn(offset, i) for every logical element i in row-major order. */
function forEachOffset(sizes, strides, count, fn) {
    const rank = sizes.length;
    const c = new Array(rank).fill(0);
    let off = 0;
    for (let i = 0; i < count; i++) {
        fn(off, i);
        for (let d = rank - 1; d >= 0; d--) {
            if (++c[d] < sizes[d]) { off += strides[d]; break; }
            off -= (sizes[d] - 1) * strides[d];
            c[d] = 0;
        }
    }
}

/** The row-major coordinate of logical element i. */
export function coordinateOf(sizes, i) {
    const c = new Array(sizes.length);
    for (let d = sizes.length - 1; d >= 0; d--) { c[d] = i % sizes[d]; i = Math.floor(i / sizes[d]); }
    return c;
}

/** True when no two coordinates share an element offset (a sufficient proof). */
function provablyInjective(sizes, strides) {
    const dims = sizes.map((s, i) => [s, strides[i]]).filter(([s]) => s > 1).sort((a, b) => a[1] - b[1]);
    let span = 0;                        /* the largest offset reachable with the dims so far */
    for (const [s, st] of dims) {
        if (st <= span) return false;
        span += (s - 1) * st;
    }
    return true;
}

/** The layout of a parsed tensor: sizes, element strides, count (Number). */
function layoutOf(t) {
    if (!t.sizes) throw new VectorError(`${t.name}: no sizes (a case for eval): nothing to lay out`);
    const strides = t.strides || packedStrides(t.sizes);
    const count = Number(t.count);
    if (!Number.isSafeInteger(count)) throw new VectorError(`${t.name}: ${t.count} elements: too many for this reader`);
    if (maxOffset(t.sizes, strides) > BigInt(Number.MAX_SAFE_INTEGER))
        throw new VectorError(`${t.name}: the layout spans more than 2^53 elements: too large for this reader`);
    return {sizes: t.sizes, strides, count};
}

/** Index of the first pair of logical elements that share an address but
 *  differ in bits, as [earlier, later], or null. */
function findSharedConflict(sizes, strides, bits) {
    if (provablyInjective(sizes, strides)) return null;
    const seen = new Map();
    let conflict = null;
    forEachOffset(sizes, strides, bits.length, (off, i) => {
        if (conflict) return;
        const first = seen.get(off);
        if (first === undefined) seen.set(off, i);
        else if (bits[first] !== bits[i]) conflict = [first, i];
    });
    return conflict;
}

/* ------------------------------------------------------------------------ */
/* placing an input's elements into its buffer, as dmlref's reader does     */
/* (read.c, fill_input): never by expanding its logical elements            */

/** (values, period) when a generator's elements are one value, or one per
 *  last coordinate: element e is values[e % period] (read.c,
 *  generator_period); null when they look random. */
function generatorPeriod(t) {
    const g = t.generator;
    if (g.kind === 'sparse' && (g.density === 0 || g.density === 1000000))
        return {values: Array.from(generate(t.dtype, g, 1)), period: 1};
    if (g.kind !== 'index' || g.low.some((l, j) => l !== g.high[j])) return null;
    const values = Array.from(generate(t.dtype, g, g.low.length));
    const period = values.every((x) => x === values[0]) ? 1 : values.length;
    return period === 1 || t.sizes[t.sizes.length - 1] === period ? {values, period} : null;
}

/** The element offsets sum(c[d] * strides[d]) that the [size, stride] dims
 *  reach: a byte per offset of their span, 1 where reached. One dimension
 *  at a time, in log2(size) shifted ORs of the offsets reached so far
 *  (read.c, mark_reachable): the work is the span, not the element count. */
function reachable(dims) {
    let span = 0;
    for (const [n, s] of dims) if (n > 1 && s > 0) span += (n - 1) * s;
    const reach = new Uint8Array(span + 1), window = new Uint8Array(span + 1), out = new Uint8Array(span + 1);
    reach[0] = 1;
    let cur = 0;
    for (const [n, s] of dims) {
        if (n <= 1 || s === 0) continue;
        const next = cur + (n - 1) * s;
        window.set(reach.subarray(0, cur + 1));
        out.fill(0, 0, next + 1);
        let shift = 0, width = 1, left = n, extent = cur + 1;   /* window: reach shifted by 0..width-1 strides */
        for (;;) {
            if (left % 2) {
                const by = shift * s;
                for (let x = 0; x < extent && x + by <= next; x++) if (window[x]) out[x + by] = 1;
                shift += width;
            }
            left = Math.floor(left / 2);
            if (!left) break;
            const by = width * s;
            const top = Math.min(extent - 1 + by, next);
            for (let x = top; x >= by; x--) if (window[x - by]) window[x] = 1;
            extent = top + 1;
            width *= 2;
        }
        reach.set(out.subarray(0, next + 1));
        cur = next;
    }
    return {reach, span};
}

/**
 * Places an input's elements (data or generator) into a new buffer, stored
 * as t.buffer: elements that share an address must agree bit for bit. A
 * generator whose elements have a period is placed by the offsets its layout
 * reaches (2^32 elements over 4 bytes cost 4 bytes); other inputs element by
 * element, a generator's elements made one at a time. A case that must be
 * refused gets no buffer where its elements cannot be placed (more than
 * 2^32-1 of them, a layout past total_bytes, or past the memory cap); a
 * valid one is refused then.
 */
function placeInput(t, path, budget, source, expectError) {
    const key = t.data ? 'data' : 'generator';
    if (t.count > BigInt(MAX_TENSOR_ELEMENTS)) {
        if (expectError) return;
        throw new VectorError(`${source}: ${path}.sizes: ${t.count} elements: a tensor has at most 2^32-1 (R-TD-13)`,
                              `${path}.sizes`);
    }
    const esize = BigInt(t.esize);
    const strides = t.strides || packedStrides(t.sizes);
    const last = maxOffset(t.sizes, strides);
    const spanBytes = (last + 1n) * esize;
    const totalSlots = (t.totalBytes + esize - 1n) / esize;
    const slots = totalSlots > last + 1n ? totalSlots : last + 1n;
    const bytes = slots * esize;
    if (spanBytes > t.totalBytes && !expectError)
        throw new VectorError(`${source}: ${path}.total_bytes: ${t.totalBytes} bytes, below the ${spanBytes} ` +
                              'that the elements span (R-TD-9)', `${path}.total_bytes`);
    if (expectError && (spanBytes > t.totalBytes || Number(bytes) > budget.left())) return;
    budget.take(bytes, path, 'its buffer');
    if (bytes > 2n ** 32n)
        throw new VectorError(`${source}: ${path}: a buffer of ${bytes} bytes is too large for this reader`, path);
    const buf = new Uint8Array(Number(bytes));
    const count = Number(t.count);
    if (count) {
        const periodic = t.generator && t.strides ? generatorPeriod(t) : null;
        if (periodic) placePeriodic(t, buf, strides, periodic, `${path}.generator`, budget, source);
        else placeElementwise(t, buf, strides, count, `${path}.${key}`, budget, source);
    }
    t.buffer = buf;
}

function placePeriodic(t, buf, strides, {values, period}, path, budget, source) {
    const rank = t.sizes.length;
    const outer = period > 1 ? rank - 1 : rank;
    const lastSize = period > 1 ? t.sizes[rank - 1] : 1;
    const lastStride = period > 1 ? strides[rank - 1] : 0;
    const dims = t.sizes.slice(0, outer).map((n, d) => [n, strides[d]]);
    let span = 0;
    for (const [n, s] of dims) if (n > 1 && s > 0) span += (n - 1) * s;
    const slots = buf.length / t.esize;
    const scratch = 3 * (span + 1) + (lastSize > 1 ? slots : 0);
    budget.take(scratch, path, 'marking the element offsets it fills');
    const {reach} = reachable(dims);
    const written = lastSize > 1 ? new Uint8Array(slots) : null;
    const view = new DataView(buf.buffer);
    for (let c = 0; c < lastSize; c++) {
        const v = values[c % period], base = c * lastStride;
        for (let x = 0; x <= span; x++) {
            if (!reach[x]) continue;
            const off = base + x;
            if (written) {
                if (written[off]) {
                    if (readElement(view, t.esize, off * t.esize) === v) continue;
                    let earlier = 0;
                    while (!(values[earlier % period] !== v && off >= earlier * lastStride &&
                             off - earlier * lastStride <= span && reach[off - earlier * lastStride])) earlier++;
                    throw new VectorError(`${source}: ${path}: an element of last coordinate ${c} differs from an ` +
                                          `element of last coordinate ${earlier} stored at the same address (element ` +
                                          `offset ${off}): a broadcast layout holds one value there`, path);
                }
                written[off] = 1;
            }
            writeElement(view, t.esize, off * t.esize, v);
        }
    }
    budget.giveBack(scratch);
}

function placeElementwise(t, buf, strides, count, path, budget, source) {
    const slots = buf.length / t.esize;
    const check = t.strides && !provablyInjective(t.sizes, strides);
    if (check) budget.take(slots, path, 'marking the element offsets it fills');
    const written = check ? new Uint8Array(slots) : null;
    const view = new DataView(buf.buffer);
    const data = t.data;
    const next = data ? null : elementStream(t.dtype, t.generator);
    forEachOffset(t.sizes, strides, count, (off, i) => {
        const v = data ? data[i] : next();
        if (written) {
            if (written[off]) {
                if (readElement(view, t.esize, off * t.esize) === v) return;
                if (data)
                    throw new VectorError(`${source}: ${path}[${i}]: differs from an earlier element stored at the same ` +
                                          `address (element offset ${off}): a broadcast layout holds one value there`,
                                          `${path}[${i}]`);
                throw new VectorError(`${source}: ${path}: element ${i} differs from an earlier element stored at the ` +
                                      `same address (element offset ${off}): a broadcast layout holds one value there`, path);
            }
            written[off] = 1;
        }
        writeElement(view, t.esize, off * t.esize, v);
    });
    if (check) budget.giveBack(slots);
}

/* ------------------------------------------------------------------------ */
/* the vector                                                               */

export const OPERATORS = Object.freeze({
    GATHER_ELEMENTS: {inputs: ['InputTensor', 'IndicesTensor'], outputs: ['OutputTensor'], attributes: ['Axis']},
    SCATTER_ELEMENTS: {inputs: ['InputTensor', 'IndicesTensor', 'UpdatesTensor'], outputs: ['OutputTensor'],
                       attributes: ['Axis']},
    GATHER_ND: {inputs: ['InputTensor', 'IndicesTensor'], outputs: ['OutputTensor'],
                attributes: ['InputDimensionCount', 'IndicesDimensionCount']},
    GATHER_ND1: {inputs: ['InputTensor', 'IndicesTensor'], outputs: ['OutputTensor'],
                 attributes: ['InputDimensionCount', 'IndicesDimensionCount', 'BatchDimensionCount']},
    NONZERO_COORDINATES: {inputs: ['InputTensor'], outputs: ['OutputCountTensor', 'OutputCoordinatesTensor'],
                          attributes: []},
});
const OPERATOR_ALIASES = {SCATTER: 'SCATTER_ELEMENTS'};

export const FEATURE_LEVELS = Object.freeze(['1_0', '2_0', '2_1', '3_0', '3_1', '4_0', '4_1', '5_0', '5_1', '5_2',
                                             '6_0', '6_1', '6_2', '6_3', '6_4']);
export const LATEST_FEATURE_LEVEL = '6_4';

/** dmlref_status names (include/dmlref.h) a case may expect. */
export const STATUS_NAMES = Object.freeze([
    'DMLREF_ERROR_INVALID_ARGUMENT', 'DMLREF_ERROR_UNSUPPORTED_OPERATOR', 'DMLREF_ERROR_UNSUPPORTED_DATA_TYPE',
    'DMLREF_ERROR_UNSUPPORTED_DIMENSION_COUNT', 'DMLREF_ERROR_UNSUPPORTED_LAYOUT', 'DMLREF_ERROR_INVALID_SIZES',
    'DMLREF_ERROR_INVALID_TOTAL_SIZE', 'DMLREF_ERROR_TENSOR_TOO_LARGE', 'DMLREF_ERROR_INVALID_FLAGS',
    'DMLREF_ERROR_INVALID_ALIGNMENT', 'DMLREF_ERROR_OUTPUT_ALIASING', 'DMLREF_ERROR_DIMENSION_COUNT_MISMATCH',
    'DMLREF_ERROR_DATA_TYPE_MISMATCH', 'DMLREF_ERROR_SIZE_MISMATCH', 'DMLREF_ERROR_INVALID_ATTRIBUTE',
    'DMLREF_ERROR_BINDING_COUNT', 'DMLREF_ERROR_BINDING_MISSING', 'DMLREF_ERROR_BINDING_TOO_SMALL',
    'DMLREF_ERROR_BINDING_OVERLAP', 'DMLREF_ERROR_BINDING_MISALIGNED', 'DMLREF_ERROR_INDEX_OUT_OF_RANGE',
    'DMLREF_ERROR_OUT_OF_MEMORY', 'DMLREF_ERROR_VECTOR_PARSE', 'DMLREF_ERROR_VECTOR_SCHEMA', 'DMLREF_ERROR_IO',
    'DMLREF_ERROR_MISMATCH',
]);
const RULE_RE = /^(?:R-(?:TD|IX|GE|SC|GN|NZ)-[1-9][0-9]*|D[1-9][0-9]*)?$/;
const NAME_RE = /^[a-z0-9_\-./]{1,200}$/;
const XXH3_RE = /^[0-9a-f]{16}$/;
const TOP_KEYS = ['format', 'name', 'operator', 'feature_level', 'min_feature_level', 'attributes', 'tensors',
                  'oob', 'expect_error', 'notes', 'variants'];
const TENSOR_KEYS = ['dtype', 'sizes', 'strides', 'total_bytes', 'flags', 'alignment'];
const INPUT_KEYS = ['data', 'generator'];
const OUTPUT_KEYS = ['expected', 'xxh3'];
const U32_MAX = 4294967295n;

/** What an expected element holds: a value, anything (null), or any of a list. */
export const EXPECT_VALUE = 0, EXPECT_ANY = 1, EXPECT_ANY_OF = 2;

/**
 * Parses and checks a vector. `text` is a string or UTF-8 bytes.
 * Options: source (the name used in messages), case (true: a case for
 * `dmlref eval`, whose outputs may lack sizes, expected and xxh3).
 *
 * Returns {source, format, name, operator (as written), op (SCATTER read as
 * SCATTER_ELEMENTS), featureLevel (default "6_4"), minFeatureLevel, attributes
 * (Numbers), oob ("error" default), expectError ({status, rule} or null),
 * notes, tensors (by name), inputs and outputs (tensors in binding order),
 * variants (permitted variants, [] for most vectors: each {name, rule, op,
 * source, tensors, outputs}, its outputs copies of the vector's with the
 * variant's expected and xxh3)}.
 * A tensor is {name, role, dtype, esize, sizes, strides (null: packed),
 * totalBytes (BigInt), flags, alignment, count (BigInt), data (bits array or
 * null), generator (or null), expected ({bits, kind, anyOf} or null), xxh3}.
 */
export function parseVector(text, options = {}) {
    const source = options.source ?? '<vector>';
    const caseMode = !!options.case;
    const budget = new Budget(options.memoryCap, source);
    budget.take(options.heldBytes ?? 0, '$', "the file's text");
    const root = parseJson(text, source);
    const fail = (path, msg) => { throw new VectorError(`${source}: ${path}: ${msg}`, path); };
    const guard = (path, f) => {
        try { return f(); } catch (e) { if (e instanceof VectorError) throw e; fail(path, e.message); }
    };
    const u32 = (v, path, what) => Number(guard(path, () => integerOf(v, 0n, U32_MAX, false, what)));
    const onlyKeys = (obj, allowed, path, what) => {
        for (const k of Object.keys(obj))
            if (!allowed.includes(k)) fail(keyPath(path, k), `unknown key ${JSON.stringify(k)} in ${what}`);
    };
    const str = (v, path, what) => {
        if (typeof v !== 'string') fail(path, `${what} must be a string, not ${describe(v)}`);
        return v;
    };

    if (!isObj(root)) fail('$', `the top level must be an object, not ${describe(root)}`);
    if (!has(root, 'format')) fail('$', 'no "format": not a dmlref vector');
    if (!FORMATS.includes(root.format))
        fail('$.format', `unknown format ${describe(root.format)} (this reader knows "${FORMAT}" and "${FORMAT_WITH_VARIANTS}")`);
    onlyKeys(root, TOP_KEYS, '$', 'the top level');
    for (const k of ['name', 'operator', 'tensors']) if (!has(root, k)) fail('$', `missing required key "${k}"`);
    if (root.format === FORMAT && has(root, 'variants'))
        fail('$.variants', `a "${FORMAT}" vector has no variants (they need "${FORMAT_WITH_VARIANTS}")`);
    if (root.format === FORMAT_WITH_VARIANTS && !has(root, 'variants'))
        fail('$.variants', `missing: a "${FORMAT_WITH_VARIANTS}" vector states its variants`);

    const v = {source, format: root.format, caseMode, budget};
    v.name = str(root.name, '$.name', 'name');
    if (!NAME_RE.test(v.name)) fail('$.name', `name ${describe(v.name)} must be 1 to 200 characters of a-z 0-9 _ - . /`);
    v.operator = str(root.operator, '$.operator', 'operator');
    v.op = OPERATOR_ALIASES[v.operator] ?? v.operator;
    if (!has(OPERATORS, v.op)) fail('$.operator', `unknown operator ${describe(v.operator)}`);
    const opInfo = OPERATORS[v.op];

    const level = (key) => {
        if (!has(root, key)) return null;
        const s = str(root[key], `$.${key}`, key);
        if (!FEATURE_LEVELS.includes(s)) fail(`$.${key}`, `unknown feature level ${describe(s)} (known: ${FEATURE_LEVELS.join(', ')})`);
        return s;
    };
    v.featureLevel = level('feature_level') ?? LATEST_FEATURE_LEVEL;
    v.featureLevelGiven = has(root, 'feature_level');
    v.minFeatureLevel = level('min_feature_level');

    v.attributes = {};
    if (has(root, 'attributes')) {
        const a = root.attributes;
        if (!isObj(a)) fail('$.attributes', `attributes must be an object, not ${describe(a)}`);
        onlyKeys(a, opInfo.attributes, '$.attributes', `the attributes of ${v.op}`);
        for (const k of opInfo.attributes) {
            if (!has(a, k)) fail('$.attributes', `missing attribute "${k}"`);
            v.attributes[k] = u32(a[k], `$.attributes.${k}`, k);
        }
    } else if (opInfo.attributes.length) {
        fail('$', `missing "attributes" (${v.op} needs ${opInfo.attributes.join(', ')})`);
    }

    v.oob = has(root, 'oob') ? str(root.oob, '$.oob', 'oob') : 'error';
    if (v.oob !== 'error' && v.oob !== 'clamp') fail('$.oob', `oob must be "error" or "clamp", not ${describe(v.oob)}`);
    v.notes = has(root, 'notes') ? str(root.notes, '$.notes', 'notes') : null;

    v.expectError = null;
    if (has(root, 'expect_error')) {
        const e = root.expect_error;
        if (!isObj(e)) fail('$.expect_error', `expect_error must be an object, not ${describe(e)}`);
        onlyKeys(e, ['status', 'rule'], '$.expect_error', 'expect_error');
        for (const k of ['status', 'rule']) if (!has(e, k)) fail('$.expect_error', `missing "${k}"`);
        const status = str(e.status, '$.expect_error.status', 'status');
        if (!STATUS_NAMES.includes(status)) fail('$.expect_error.status', `unknown dmlref_status name ${describe(status)}`);
        const rule = str(e.rule, '$.expect_error.rule', 'rule');
        if (!RULE_RE.test(rule)) fail('$.expect_error.rule', `${describe(rule)} is not a rule id of docs/rules.md (R-GE-3, D6, ...) or ""`);
        v.expectError = {status, rule};
    }

    const tensors = root.tensors;
    if (!isObj(tensors)) fail('$.tensors', `tensors must be an object, not ${describe(tensors)}`);
    const names = [...opInfo.inputs, ...opInfo.outputs];
    onlyKeys(tensors, names, '$.tensors', `the tensors of ${v.op}`);
    for (const name of names) if (!has(tensors, name)) fail('$.tensors', `missing tensor "${name}"`);
    v.tensors = {};
    for (const name of names) {
        const role = opInfo.inputs.includes(name) ? 'input' : 'output';
        v.tensors[name] = parseTensor(tensors[name], name, role, `$.tensors.${name}`);
    }
    v.inputs = opInfo.inputs.map((n) => v.tensors[n]);
    v.outputs = opInfo.outputs.map((n) => v.tensors[n]);
    v.variants = has(root, 'variants') ? parseVariants(root.variants) : [];
    return v;

    function parseVariants(list) {
        if (v.expectError) fail('$.variants', 'a case that expects an error has no variants');
        if (!Array.isArray(list) || !list.length) fail('$.variants', `variants must be a non-empty array, not ${describe(list)}`);
        return list.map((entry, k) => {
            const path = `$.variants[${k}]`;
            if (!isObj(entry)) fail(path, `a variant must be an object, not ${describe(entry)}`);
            onlyKeys(entry, ['name', 'rule', 'outputs'], path, 'a variant');
            for (const key of ['name', 'rule', 'outputs']) if (!has(entry, key)) fail(path, `missing "${key}"`);
            const name = str(entry.name, `${path}.name`, 'name');
            if (!has(VARIANT_RULES, name))
                fail(`${path}.name`, `unknown variant ${describe(name)} (this reader knows ${Object.keys(VARIANT_RULES).join(', ')})`);
            if (list.slice(0, k).some((e) => isObj(e) && e.name === name)) fail(`${path}.name`, `variant "${name}" appears twice`);
            if (name === 'subnormals_flushed' && !(v.op === 'NONZERO_COORDINATES' && DTYPES[v.tensors.InputTensor.dtype].kind === 'float'))
                fail(`${path}.name`, `"${name}" applies only to NONZERO_COORDINATES with a float input`);
            const rule = str(entry.rule, `${path}.rule`, 'rule');
            if (rule !== VARIANT_RULES[name]) fail(`${path}.rule`, `${describe(rule)} is not the rule of "${name}" (${VARIANT_RULES[name]})`);
            const outs = entry.outputs;
            if (!isObj(outs)) fail(`${path}.outputs`, `outputs must be an object, not ${describe(outs)}`);
            onlyKeys(outs, opInfo.outputs, `${path}.outputs`, `the outputs of ${v.op}`);
            const variant = {name, rule, op: v.op, source, tensors: {}, outputs: []};
            for (const t of v.outputs) {
                const at = `${path}.outputs.${t.name}`;
                if (!has(outs, t.name)) fail(`${path}.outputs`, `missing output "${t.name}"`);
                const o = outs[t.name];
                if (!isObj(o)) fail(at, `a variant's output must be an object, not ${describe(o)}`);
                onlyKeys(o, OUTPUT_KEYS, at, "a variant's output");
                if (!has(o, 'expected') && !has(o, 'xxh3')) fail(at, 'an output needs "expected", "xxh3" or both');
                const vt = {...t, expected: null, xxh3: null};
                variant.tensors[t.name] = vt;
                variant.outputs.push(vt);
                parseExpectations(o, vt, at, variant);
            }
            return variant;
        });
    }

    function parseTensor(obj, name, role, path) {
        if (!isObj(obj)) fail(path, `a tensor must be an object, not ${describe(obj)}`);
        const allowed = [...TENSOR_KEYS, ...(role === 'input' ? INPUT_KEYS : OUTPUT_KEYS)];
        for (const k of Object.keys(obj)) {
            if (!allowed.includes(k)) {
                const other = role === 'input' ? OUTPUT_KEYS.includes(k) : INPUT_KEYS.includes(k);
                fail(keyPath(path, k), other ? `"${k}" is not allowed on an ${role}` : `unknown key ${JSON.stringify(k)} in a tensor`);
            }
        }
        const t = {name, role};
        if (!has(obj, 'dtype')) fail(path, 'missing "dtype"');
        t.dtype = str(obj.dtype, `${path}.dtype`, 'dtype');
        if (!has(DTYPES, t.dtype)) fail(`${path}.dtype`, `unknown dtype ${describe(t.dtype)}`);
        t.esize = DTYPES[t.dtype].esize;

        t.sizes = null;
        if (has(obj, 'sizes')) {
            const s = obj.sizes;
            if (!Array.isArray(s)) fail(`${path}.sizes`, `sizes must be an array, not ${describe(s)}`);
            if (s.length < 1 || s.length > 8) fail(`${path}.sizes`, `sizes must have 1 to 8 entries, not ${s.length}`);
            t.sizes = s.map((x, i) => u32(x, `${path}.sizes[${i}]`, 'a size'));
        } else if (!(caseMode && role === 'output')) {
            fail(path, 'missing "sizes"');
        }
        t.strides = null;
        if (has(obj, 'strides') && obj.strides !== null) {
            const s = obj.strides;
            if (!Array.isArray(s)) fail(`${path}.strides`, `strides must be an array or null, not ${describe(s)}`);
            if (!t.sizes) fail(`${path}.strides`, 'strides without sizes');
            if (s.length !== t.sizes.length)
                fail(`${path}.strides`, `${s.length} strides for ${t.sizes.length} sizes`);
            t.strides = s.map((x, i) => u32(x, `${path}.strides[${i}]`, 'a stride'));
        }
        t.count = t.sizes ? elementCount(t.sizes) : null;
        t.totalBytesGiven = has(obj, 'total_bytes');
        if (t.totalBytesGiven) {
            t.totalBytes = guard(`${path}.total_bytes`, () => integerOf(obj.total_bytes, 0n, M64, true, 'total_bytes'));
        } else {
            t.totalBytes = t.sizes ? calcBufferTensorSize(t.dtype, t.sizes, t.strides) : null;
        }
        t.flags = has(obj, 'flags') ? u32(obj.flags, `${path}.flags`, 'flags') : 0;
        t.alignment = has(obj, 'alignment') ? u32(obj.alignment, `${path}.alignment`, 'alignment') : 0;

        t.data = null;
        t.generator = null;
        t.expected = null;
        t.xxh3 = null;
        if (role === 'input') {
            const hasData = has(obj, 'data'), hasGen = has(obj, 'generator');
            if (hasData && hasGen) fail(path, 'both "data" and "generator": give one');
            if (!hasData && !hasGen && !v.expectError) fail(path, 'an input needs "data" or "generator"');
            if (hasData) t.data = parseData(obj.data, t, `${path}.data`);
            if (hasGen) t.generator = parseGenerator(obj.generator, t, `${path}.generator`);
            /* refuses elements that share an address and differ */
            if (hasData || hasGen) placeInput(t, path, budget, source, !!v.expectError);
        } else {
            const hasExp = has(obj, 'expected'), hasXxh = has(obj, 'xxh3');
            if (v.expectError && (hasExp || hasXxh))
                fail(path, `"${hasExp ? 'expected' : 'xxh3'}" in a case that expects an error`);
            if (!v.expectError && !caseMode && !hasExp && !hasXxh) fail(path, 'an output needs "expected", "xxh3" or both');
            parseExpectations(obj, t, path, v);
        }
        return t;
    }

    /* An output's "expected" and "xxh3" (the case's or a variant's, `owner`,
       whose OutputCountTensor gives NonZero's count). */
    function parseExpectations(obj, t, path, owner) {
        if (has(obj, 'xxh3')) {
            t.xxh3 = str(obj.xxh3, `${path}.xxh3`, 'xxh3');
            if (!XXH3_RE.test(t.xxh3)) fail(`${path}.xxh3`, `xxh3 must be 16 lower-case hex digits, not ${describe(t.xxh3)}`);
        }
        if (has(obj, 'expected')) {
            t.expected = parseExpected(obj.expected, t, `${path}.expected`);
            if (t.xxh3 !== null) {
                const prefixOnly = v.op === 'NONZERO_COORDINATES' && t.name === 'OutputCoordinatesTensor';
                const count = prefixOnly ? expectedCount(owner) : null;
                const covered = prefixOnly ? t.expected.bits.length && count !== null
                    ? Number(count) * t.sizes[t.sizes.length - 1] : t.expected.bits.length
                    : t.expected.bits.length;
                if (t.expected.kind && t.expected.kind.subarray(0, covered).some((k) => k !== EXPECT_VALUE))
                    fail(`${path}.xxh3`, 'xxh3 with an expected element that is null or any_of');
                const d = xxh3Hex(bitsToBytes(digestedElements(v, t, t.expected.bits, count)));
                if (d !== t.xxh3) fail(`${path}.xxh3`, `xxh3 ${t.xxh3} does not match the expected elements (${d})`);
            }
        }
    }

    function checkCount(arr, t, path) {
        if (t.count === null) fail(path, 'elements without sizes');
        if (BigInt(arr.length) !== t.count)
            fail(path, `${arr.length} elements for sizes [${t.sizes.join(', ')}] (${t.count} elements)`);
    }

    function parseData(arr, t, path) {
        if (!Array.isArray(arr)) fail(path, `data must be an array, not ${describe(arr)}`);
        checkCount(arr, t, path);
        const bits = newBitsArray(t.dtype, arr.length);
        for (let i = 0; i < arr.length; i++) {
            try { bits[i] = decodeElement(t.dtype, arr[i]); } catch (e) { fail(`${path}[${i}]`, e.message); }
        }
        return bits;
    }

    function parseGenerator(g, t, path) {
        if (!isObj(g)) fail(path, `generator must be an object, not ${describe(g)}`);
        if (!has(g, 'kind')) fail(path, 'missing "kind"');
        const kind = str(g.kind, `${path}.kind`, 'kind');
        const keys = {bits: ['seed'], index: ['seed', 'low', 'high'], sparse: ['seed', 'density']}[kind];
        if (!keys) fail(`${path}.kind`, `unknown generator kind ${describe(kind)} (bits, index, sparse)`);
        onlyKeys(g, ['kind', ...keys], path, `a "${kind}" generator`);
        for (const k of keys) if (!has(g, k)) fail(path, `missing "${k}" in a "${kind}" generator`);
        const gen = {kind};
        gen.seed = guard(`${path}.seed`, () => integerOf(g.seed, 0n, M64, true, 'seed'));
        const info = DTYPES[t.dtype];
        if (kind === 'index') {
            if (info.kind === 'float') fail(`${path}.kind`, `an "index" generator needs an integer dtype, not ${t.dtype}`);
            for (const k of ['low', 'high']) {
                if (!Array.isArray(g[k])) fail(`${path}.${k}`, `${k} must be an array, not ${describe(g[k])}`);
                if (!g[k].length) fail(`${path}.${k}`, `${k} is empty`);
                gen[k] = g[k].map((x, i) => guard(`${path}.${k}[${i}]`,
                    () => integerOf(x, info.min, info.max, true, `${k} (${t.dtype})`)));
            }
            if (gen.low.length !== gen.high.length)
                fail(path, `low has ${gen.low.length} entries and high ${gen.high.length}`);
            gen.low.forEach((l, j) => {
                if (l > gen.high[j]) fail(`${path}.low[${j}]`, `low ${l} > high ${gen.high[j]}`);
            });
            const tuple = (v.op === 'GATHER_ND' || v.op === 'GATHER_ND1') && t.name === 'IndicesTensor';
            const want = tuple ? t.sizes[t.sizes.length - 1] : 1;
            if (gen.low.length !== want && !(tuple && v.expectError))
                fail(`${path}.low`, tuple
                    ? `${gen.low.length} entries: GatherND's indices need one per tuple coordinate (${want}, the last size)`
                    : `${gen.low.length} entries: one expected outside GatherND's indices`);
        } else if (kind === 'sparse') {
            gen.density = Number(guard(`${path}.density`, () => integerOf(g.density, 0n, 1000000n, false, 'density')));
        }
        return gen;
    }

    function parseExpected(arr, t, path) {
        if (!Array.isArray(arr)) fail(path, `expected must be an array, not ${describe(arr)}`);
        checkCount(arr, t, path);
        const bits = newBitsArray(t.dtype, arr.length);
        let kind = null;                           /* Uint8Array of EXPECT_*, once needed */
        const anyOf = new Map();
        for (let i = 0; i < arr.length; i++) {
            const e = arr[i];
            try {
                if (e === null) {
                    kind ??= new Uint8Array(arr.length);
                    kind[i] = EXPECT_ANY;
                } else if (isObj(e)) {
                    const keys = Object.keys(e);
                    if (keys.length !== 1 || keys[0] !== 'any_of')
                        throw new Error(`an expected element object must be {"any_of": [...]}, not keys ${JSON.stringify(keys)}`);
                    const list = e.any_of;
                    if (!Array.isArray(list) || !list.length) throw new Error('any_of must be a non-empty array');
                    const alts = list.map((x, j) => {
                        try { return decodeElement(t.dtype, x); } catch (err) { throw new Error(`any_of[${j}]: ${err.message}`); }
                    });
                    kind ??= new Uint8Array(arr.length);
                    kind[i] = EXPECT_ANY_OF;
                    bits[i] = alts[0];
                    anyOf.set(i, alts);
                } else {
                    bits[i] = decodeElement(t.dtype, e);
                }
            } catch (err) {
                fail(`${path}[${i}]`, err.message);
            }
        }
        return {bits, kind, anyOf};
    }
}

/** Reads and parses a vector file: a regular file of at most MAX_FILE_BYTES
 *  (readRegularFile); options as parseVector. */
export function loadVector(path, options = {}) {
    const bytes = readRegularFile(path);
    return parseVector(bytes, {source: path, heldBytes: bytes.length, ...options});
}

/* ------------------------------------------------------------------------ */
/* buffers                                                                  */

function tensorOf(vector, which) {
    if (typeof which === 'string') {
        if (!has(vector.tensors, which)) throw new VectorError(`${vector.source}: no tensor ${which}`);
        return vector.tensors[which];
    }
    return which;
}

/** Checks that `bytes` more fit the vector's memory cap, without holding them
 *  (what is made is the caller's once returned). */
function checkCap(vector, t, bytes, what) {
    const budget = vector.budget || new Budget(null, vector.source);
    budget.take(bytes, `$.tensors.${t.name}`, what);
    budget.giveBack(Number(bytes));
}

/** A tensor's logical elements (bits array, row-major) from data or
 *  generator: expanded, so counted against the memory cap (2^32 elements
 *  broadcast from 4 bytes are refused; logicalView reads them on demand). */
export function logicalElements(vector, which) {
    const t = tensorOf(vector, which);
    if (t.data) return t.data;
    if (t.generator) {
        const {sizes, strides, count} = layoutOf(t);
        checkCap(vector, t, t.count * BigInt(t.esize),
                 `its ${count} logical elements expanded (logicalView reads them on demand)`);
        if (!t.buffer) return generate(t.dtype, t.generator, count);
        const out = newBitsArray(t.dtype, count);
        const view = new DataView(t.buffer.buffer);
        forEachOffset(sizes, strides, count, (off, i) => { out[i] = readElement(view, t.esize, off * t.esize); });
        return out;
    }
    throw new VectorError(`${vector.source}: ${t.name} has no data and no generator`);
}

/**
 * An input's logical elements read on demand from its buffer through its
 * strides: {length, sizes, at(i), [Symbol.iterator]}, elements as bits
 * (Number, or BigInt for 64-bit dtypes). 2^32 elements broadcast from a few
 * bytes take those bytes.
 */
export function logicalView(vector, which) {
    const t = tensorOf(vector, which);
    if (!t.buffer) {
        const bits = logicalElements(vector, t);
        return {length: bits.length, sizes: t.sizes, at: (i) => bits[i], [Symbol.iterator]: () => bits[Symbol.iterator]()};
    }
    const {sizes, strides, count} = layoutOf(t);
    const view = new DataView(t.buffer.buffer);
    const at = (i) => {
        if (!Number.isInteger(i) || i < 0 || i >= count) throw new RangeError(`element ${i} of ${count}`);
        const c = coordinateOf(sizes, i);
        const off = c.reduce((o, x, d) => o + x * strides[d], 0);
        return readElement(view, t.esize, off * t.esize);
    };
    return {
        length: count, sizes, at,
        * [Symbol.iterator]() {
            const rank = sizes.length, c = new Array(rank).fill(0);
            let off = 0;
            for (let i = 0; i < count; i++) {
                yield readElement(view, t.esize, off * t.esize);
                for (let d = rank - 1; d >= 0; d--) {
                    if (++c[d] < sizes[d]) { off += strides[d]; break; }
                    off -= (sizes[d] - 1) * strides[d];
                    c[d] = 0;
                }
            }
        },
    };
}

function writeElement(view, esize, byte, bits) {
    switch (esize) {
    case 1: view.setUint8(byte, bits); break;
    case 2: view.setUint16(byte, bits, true); break;
    case 4: view.setUint32(byte, bits, true); break;
    default: view.setBigUint64(byte, bits, true); break;
    }
}

function readElement(view, esize, byte) {
    switch (esize) {
    case 1: return view.getUint8(byte);
    case 2: return view.getUint16(byte, true);
    case 4: return view.getUint32(byte, true);
    default: return view.getBigUint64(byte, true);
    }
}

function allocate(t, vector) {
    const n = Number(t.totalBytes);
    if (!Number.isSafeInteger(n) || n > 2 ** 32)
        throw new VectorError(`${vector.source}: ${t.name}: total_bytes ${t.totalBytes} is too large to allocate here`);
    return new Uint8Array(n);
}

/**
 * Lays `bits` (logical elements) out in a new Uint8Array of total_bytes:
 * element c at byte offset esize * sum(c[i] * strides[i]), little-endian,
 * padding 0. Throws when an element falls outside total_bytes or when
 * elements that share an address differ.
 */
export function layOut(vector, which, bits) {
    const t = tensorOf(vector, which);
    const {sizes, strides, count} = layoutOf(t);
    if (bits.length !== count) throw new VectorError(`${vector.source}: ${t.name}: ${bits.length} elements for ${count}`);
    const buf = allocate(t, vector);
    const last = maxOffset(sizes, strides);
    if (count && (last + 1n) * BigInt(t.esize) > BigInt(buf.length))
        throw new VectorError(`${vector.source}: ${t.name}: element offset ${last} lies outside total_bytes ${t.totalBytes}`);
    const view = new DataView(buf.buffer);
    const conflict = findSharedConflict(sizes, strides, bits);
    if (conflict)
        throw new VectorError(`${vector.source}: ${t.name}: elements ${conflict[0]} and ${conflict[1]} share an address but differ`);
    forEachOffset(sizes, strides, count, (off, i) => writeElement(view, t.esize, off * t.esize, bits[i]));
    return buf;
}

/** The buffer of one input (by name or tensor), total_bytes long: a copy of
 *  the one its elements were placed into when the vector was read. */
export function buildInputBuffer(vector, which) {
    const t = tensorOf(vector, which);
    if (!t.buffer) return layOut(vector, which, logicalElements(vector, which));
    const {sizes, strides, count} = layoutOf(t);
    const last = maxOffset(sizes, strides);
    if (count && (last + 1n) * BigInt(t.esize) > t.totalBytes)
        throw new VectorError(`${vector.source}: ${t.name}: element offset ${last} lies outside total_bytes ${t.totalBytes}`);
    checkCap(vector, t, t.totalBytes, 'a copy of its buffer');
    return t.buffer.slice(0, Number(t.totalBytes));
}

/** Every input buffer, in binding order. */
export function buildInputBuffers(vector) {
    return vector.inputs.map((t) => buildInputBuffer(vector, t));
}

/** Output buffers holding what the vector expects (the first of any_of, 0
 *  for null), in binding order: what a correct implementation may write.
 *  `variant` (a name or an index of vector.variants): what that variant
 *  expects instead. */
export function expectedOutputBuffers(vector, variant = null) {
    const owner = variant === null ? vector : variantOf(vector, variant);
    return owner.outputs.map((t) => {
        if (!t.expected) throw new VectorError(`${vector.source}: ${t.name} has no expected elements`);
        return layOut(vector, t, t.expected.bits);
    });
}

function variantOf(vector, which) {
    const x = typeof which === 'number' ? vector.variants[which]
        : vector.variants.find((y) => y.name === which);
    if (!x) throw new VectorError(`${vector.source}: no variant ${JSON.stringify(which)}`);
    return x;
}

/** Reads a tensor's logical elements (bits array) from a buffer laid out as it says. */
export function readElements(vector, which, buffer) {
    const t = tensorOf(vector, which);
    const {sizes, strides, count} = layoutOf(t);
    const bytes = toBytes(buffer);
    if (count && (maxOffset(sizes, strides) + 1n) * BigInt(t.esize) > BigInt(bytes.length))
        throw new VectorError(`${t.name}: buffer of ${bytes.length} bytes is too small for the layout`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    checkCap(vector, t, t.count * BigInt(t.esize), `reading its ${count} logical elements`);
    const out = newBitsArray(t.dtype, count);
    forEachOffset(sizes, strides, count, (off, i) => { out[i] = readElement(view, t.esize, off * t.esize); });
    return out;
}

function toBytes(b) {
    if (b instanceof Uint8Array) return b;
    if (b instanceof ArrayBuffer) return new Uint8Array(b);
    if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    throw new TypeError('an output buffer must be a Uint8Array, ArrayBuffer or typed array');
}

function showBits(dtype, bits) {
    const v = bitsToValue(dtype, bits);
    const shown = typeof v === 'number' && DTYPES[dtype].kind === 'float'
        ? (Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '-0' : String(v)) : String(v);
    return `${bitsHex(dtype, bits)} (${shown})`;
}

/**
 * Checks output buffers (an array in binding order, or an object by tensor
 * name; Uint8Array, ArrayBuffer or typed arrays laid out as the outputs'
 * strides say) against the vector: expected elements bit for bit (null
 * passes anything, any_of any one of its values), then xxh3 of the logical
 * elements. Padding is never compared.
 *
 * Outputs that miss the golden expectations but meet all of a permitted
 * variant's pass (unless options.variants is false), and the result says
 * which variant.
 *
 * Returns {ok, variant, rule, message, outputs: [{name, ok, wrongElements,
 * first, digest}]} where variant and rule are null when the outputs meet the
 * golden expectations (or none), else the variant's name and rule id; first
 * is {element, coordinate, expected, got} (hex and value text) and digest is
 * {expected, got} when xxh3 was checked. outputs describe the golden
 * comparison, or the variant's when one matched (then `golden` holds the
 * golden result).
 */
export function checkOutputs(vector, outputs, options = {}) {
    if (vector.expectError)
        throw new VectorError(`${vector.source}: the case expects ${vector.expectError.status}` +
                              `${vector.expectError.rule ? ` (${vector.expectError.rule})` : ''}; it has no outputs to check`);
    const list = Array.isArray(outputs) ? outputs : vector.outputs.map((t) => outputs[t.name]);
    if (list.length !== vector.outputs.length)
        throw new VectorError(`${vector.source}: ${list.length} output buffers for ${vector.outputs.length} outputs`);
    const golden = {...checkAgainst(vector, vector, list), variant: null, rule: null};
    if (golden.ok || options.variants === false || !(vector.variants || []).length) return golden;
    for (const x of vector.variants) {
        const r = checkAgainst(vector, x, list);
        if (r.ok) return {...r, variant: x.name, rule: x.rule, message: `ok: the permitted variant ${x.name} (${x.rule})`, golden};
    }
    golden.message += `; nor do they match a permitted variant (${vector.variants.map((x) => x.name).join(', ')})`;
    return golden;
}

/* The outputs (list, binding order) against the expectations of `owner`:
   the vector, or one of its variants. */
function checkAgainst(vector, owner, list) {
    const results = [];
    const messages = [];
    owner.outputs.forEach((t, n) => {
        const r = {name: t.name, ok: true, wrongElements: 0, first: null, digest: null};
        results.push(r);
        if (list[n] === undefined || list[n] === null) {
            r.ok = false;
            messages.push(`${t.name}: no buffer`);
            return;
        }
        let got;
        try {
            got = readElements(vector, t, list[n]);
        } catch (e) {
            r.ok = false;
            messages.push(e.message);
            return;
        }
        const exp = t.expected;
        if (exp) {
            for (let i = 0; i < got.length; i++) {
                let good;
                const k = exp.kind ? exp.kind[i] : EXPECT_VALUE;
                if (k === EXPECT_VALUE) good = got[i] === exp.bits[i];
                else if (k === EXPECT_ANY) good = true;
                else good = exp.anyOf.get(i).includes(got[i]);
                if (good) continue;
                r.wrongElements++;
                if (!r.first) {
                    r.first = {
                        element: i,
                        coordinate: coordinateOf(t.sizes, i),
                        expected: k === EXPECT_ANY_OF
                            ? `any of ${exp.anyOf.get(i).map((b) => showBits(t.dtype, b)).join(', ')}`
                            : showBits(t.dtype, exp.bits[i]),
                        got: showBits(t.dtype, got[i]),
                    };
                }
            }
            if (r.wrongElements) {
                r.ok = false;
                const f = r.first;
                messages.push(`${t.name}[${f.coordinate.join(', ')}] (element ${f.element}): expected ${f.expected}, ` +
                              `got ${f.got}; ${r.wrongElements} wrong element${r.wrongElements > 1 ? 's' : ''}`);
            }
        }
        if (t.xxh3 !== null) {
            /* NonZero's coordinates: the rows before the expected count, or
               before the implementation's own count when the case gives none */
            let count = expectedCount(owner);
            if (count === null && vector.op === 'NONZERO_COORDINATES' && n > 0) {
                const counted = readElements(vector, vector.outputs[0], list[0]);
                count = counted[0];
            }
            const d = xxh3Hex(bitsToBytes(digestedElements(vector, t, got, count)));
            r.digest = {expected: t.xxh3, got: d};
            if (d !== t.xxh3) {
                r.ok = false;
                if (!r.wrongElements) messages.push(`${t.name}: XXH3-64 of the elements is ${d}, expected ${t.xxh3}`);
            }
        }
    });
    const ok = results.every((r) => r.ok);
    return {ok, message: ok ? 'ok' : messages.join('; '), outputs: results};
}

/* ------------------------------------------------------------------------ */
/* command line: node scripts/loaders/dmlref_vectors.mjs [--case] FILE...            */

async function main(argv) {
    const caseMode = argv.includes('--case');
    const files = argv.filter((a) => a !== '--case');
    if (!files.length) {
        console.error('usage: node scripts/loaders/dmlref_vectors.mjs [--case] VECTOR.json...\n' +
                      '  parses each vector strictly and checks that its expected outputs pass');
        return 2;
    }
    let bad = 0;
    for (const f of files) {
        try {
            const v = loadVector(f, {case: caseMode});
            let what = 'ok';
            if (v.expectError) {
                what = `ok (expects ${v.expectError.status}${v.expectError.rule ? ' ' + v.expectError.rule : ''})`;
            } else if (v.outputs.every((t) => t.expected)) {
                buildInputBuffers(v);
                const r = checkOutputs(v, expectedOutputBuffers(v));
                if (!r.ok) throw new VectorError(`${f}: its own expected outputs fail: ${r.message}`);
                for (const x of v.variants) {
                    if (!x.outputs.every((t) => t.expected)) continue;
                    const rv = checkOutputs(v, expectedOutputBuffers(v, x.name));
                    if (!rv.ok || (rv.variant !== x.name && rv.variant !== null))
                        throw new VectorError(`${f}: the expected outputs of variant ${x.name} fail: ${rv.message}`);
                }
                if (v.variants.length) what = `ok (variants: ${v.variants.map((x) => x.name).join(', ')})`;
            }
            console.log(`${f}: ${what}`);
        } catch (e) {
            if (!(e instanceof VectorError)) throw e;
            bad++;
            console.log(`${f}: ERROR ${e.message}`);
        }
    }
    return bad ? 1 : 0;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
    main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
