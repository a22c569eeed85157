/**
 * tests/cross/roundtrip.mjs - the bit-exactness round trip of vectors/FORMAT.md's
 * element encodings: do the bits a vector's JSON text stands for, as read by
 * JSON.parse (the reader every JavaScript consumer has) plus the element
 * decoding of scripts/loaders/dmlref_vectors.mjs, equal the bits of a raw binary
 * file of the same elements?
 *
 * Plan (what the C side's tests run):
 *
 *   1. `node tests/cross/roundtrip.mjs --make DIR` writes, for each pattern set
 *      below, DIR/<set>.case.json and DIR/<set>.bin. The case is an identity
 *      GATHER_ELEMENTS: InputTensor {n, 1} holds the patterns (written with
 *      this module's encoder), IndicesTensor {n, 1} is all zeros, Axis 1, so OutputTensor = InputTensor.
 *      The .bin file holds the same n patterns, little-endian, written
 *      straight from the bits (no JSON involved).
 *   2. `dmlref eval DIR/<set>.case.json -o DIR/<set>.json`: dmlref reads the
 *      patterns, computes the output and writes the whole vector with its own
 *      writer: InputTensor.data and OutputTensor.expected (and xxh3) are now
 *      dmlref's text.
 *   3. `node tests/cross/roundtrip.mjs DIR/<set>.json DIR/<set>.bin` and
 *      `python3 tests/cross/roundtrip.py DIR/<set>.json DIR/<set>.bin` check, for
 *      InputTensor.data and OutputTensor.expected: JSON.parse (json.load)
 *      plus decoding gives exactly the .bin bits; the strict reader gives the
 *      same; OutputTensor.xxh3 is the XXH3-64 of the .bin bytes; and every
 *      element is written in FORMAT.md's canonical form (shortest decimal,
 *      "-0.0", "nan" for the canonical NaN, hex for other NaNs, 64-bit
 *      integers beyond 2^53 as strings).
 *   `node tests/cross/roundtrip.mjs --all DMLREF DIR` does 1-3 (step 3 with Python
 *   too when python3 is on PATH) with the dmlref binary DMLREF.
 *
 * Pattern sets: float16_all (all 65536 FLOAT16 bit patterns), float32_1m and
 * float64_1m (a million patterns each: every class of special value, then
 * SplitMix64 bits), int64_extremes and uint64_extremes (powers of two and
 * their neighbours, 2^53 +- 1, the type limits, then random bits), int8_all,
 * uint8_all, int16_all, uint16_all, int32_extremes, uint32_extremes.
 * `--count N` shrinks the million-element sets; `--sets a,b` picks sets.
 *
 * Usage:
 *   node tests/cross/roundtrip.mjs VECTOR.json RAW.bin [TENSOR.data|TENSOR.expected ...]
 *   node tests/cross/roundtrip.mjs --make DIR [--count N] [--sets a,b]
 *   node tests/cross/roundtrip.mjs --all DMLREF DIR [--count N] [--sets a,b]
 * --bits-only (anywhere) skips the canonical-form check: only bits and digest.
 * It also reads dmlref's own round-trip files (tests/unit/test_roundtrip.c leaves
 * ROUNDTRIP_DIR/<name>.json and <name>.bin: GATHER_ND of one row, whose
 * InputTensor.data and OutputTensor.expected are the defaults checked here).
 * Prints "N passed, N failed" last; exits 1 when anything failed.
 */
import {readFileSync, writeFileSync, mkdirSync, existsSync} from 'node:fs';
import {join, dirname} from 'node:path';
import {spawnSync} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import * as M from '../../scripts/loaders/dmlref_vectors.mjs';

const here = dirname(fileURLToPath(import.meta.url));
let passed = 0, failed = 0;
function check(name, cond, detail = '') {
    if (cond) passed++;
    else { failed++; console.log(`FAIL ${name}${detail ? ': ' + detail : ''}`); }
    return cond;
}

/* ------------------------------------------------------------------------ */
/* the pattern sets                                                         */

function floatSpecials(dtype) {
    const w = M.DTYPES[dtype].bits;
    const B = (x) => BigInt(x);
    const sign = 1n << B(w - 1);
    const expBits = {16: 5, 32: 8, 64: 11}[w], man = w - 1 - expBits;
    const expMask = ((1n << B(expBits)) - 1n) << B(man), manMask = (1n << B(man)) - 1n;
    const one = (B((1 << (expBits - 1)) - 1)) << B(man);
    const base = [
        0n, 1n, 2n, manMask, manMask - 1n, 1n << B(man - 1),              /* zero, subnormals */
        1n << B(man), (1n << B(man)) + 1n,                                  /* smallest normals */
        expMask - 1n, expMask - (1n << B(man)),                             /* largest finite, its exponent */
        expMask,                                                            /* inf */
        expMask | (1n << B(man - 1)),                                       /* canonical quiet NaN */
        expMask | 1n, expMask | manMask, expMask | (1n << B(man - 1)) | 1n, /* other NaNs */
        one, one + 1n, one - 1n, one | (1n << B(man - 1)),                  /* 1 and neighbours, 1.5 */
    ];
    for (let e = 0n; e < (1n << B(expBits)); e += 1n) base.push(e << B(man)); /* every power of two */
    const out = [];
    for (const b of base) out.push(b, b | sign);
    return out;
}

function sets(count) {
    const rnd = (seed, n, bits) => Array.from({length: n}, (_, i) => BigInt.asUintN(bits, M.splitmix64(seed, i)));
    const intEdges = (bits, signed) => {
        const e = new Set();
        for (let k = 0n; k < BigInt(bits); k++) {
            for (const d of [-1n, 0n, 1n]) {
                const p = (1n << k) + d;
                e.add(BigInt.asUintN(bits, p));
                if (signed) e.add(BigInt.asUintN(bits, -p));
            }
        }
        for (const v of [0n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 53n - 1n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n])
            e.add(BigInt.asUintN(bits, v)), signed && e.add(BigInt.asUintN(bits, -v));
        return [...e];
    };
    const fill = (head, seed, n, bits) => head.concat(rnd(seed, Math.max(0, n - head.length), bits));
    const small = (x) => x.map(Number);
    return {
        float16_all: () => ['FLOAT16', Array.from({length: 65536}, (_, i) => i)],
        float32_1m: () => ['FLOAT32', small(fill(floatSpecials('FLOAT32'), 32n, count, 32))],
        float64_1m: () => ['FLOAT64', fill(floatSpecials('FLOAT64'), 64n, count, 64)],
        int64_extremes: () => ['INT64', fill(intEdges(64, true), 640n, 20000, 64)],
        uint64_extremes: () => ['UINT64', fill(intEdges(64, false), 641n, 20000, 64)],
        int32_extremes: () => ['INT32', small(fill(intEdges(32, true), 320n, 20000, 32))],
        uint32_extremes: () => ['UINT32', small(fill(intEdges(32, false), 321n, 20000, 32))],
        int16_all: () => ['INT16', Array.from({length: 65536}, (_, i) => i)],
        uint16_all: () => ['UINT16', Array.from({length: 65536}, (_, i) => i)],
        int8_all: () => ['INT8', Array.from({length: 256}, (_, i) => i)],
        uint8_all: () => ['UINT8', Array.from({length: 256}, (_, i) => i)],
    };
}

function makeSet(dir, name, dtype, patterns) {
    const bits = M.newBitsArray(dtype, patterns.length);
    patterns.forEach((p, i) => { bits[i] = p; });
    const n = bits.length;
    const text = M.toJsonText({
        format: 'dmlref-vector-1',
        name: `gather_elements/${dtype.toLowerCase()}/2d/roundtrip_${name}`,
        operator: 'GATHER_ELEMENTS',
        attributes: {Axis: 1},
        notes: 'identity gather: the output holds the input\'s bit patterns (tests/cross/roundtrip.mjs)',
        tensors: {
            InputTensor: {dtype, sizes: [n, 1], data: Array.from(bits, (b) => new M.RawJson(M.encodeElement(dtype, b)))},
            /* zeros as data, not an "index" generator: dmlref writes the
               outputs of generated cases by digest alone */
            IndicesTensor: {dtype: 'UINT32', sizes: [n, 1], data: new M.RawJson(`[${Array(n).fill('0').join(', ')}]`)},
            OutputTensor: {dtype},
        },
    }) + '\n';
    writeFileSync(join(dir, `${name}.case.json`), text);
    writeFileSync(join(dir, `${name}.bin`), M.bitsToBytes(bits));
}

/* ------------------------------------------------------------------------ */
/* the check                                                                */

/** The number of significant decimal digits of a JSON number's text. */
function significantDigits(raw) {
    return raw.replace(/^-/, '').replace(/[eE].*$/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
}

/** Is `tok` (as parseJson gives it) FORMAT.md's canonical text for `bits`?
 *  Finite non-zero floats: any decimal with the fewest significant digits
 *  (JavaScript's String() gives that number; ties may be spelt either way,
 *  and exponents any way); negative zero "-0.0"; everything else exactly. */
function isCanonical(dtype, bits, tok) {
    const canon = M.encodeElement(dtype, bits);
    if (!(tok instanceof M.JsonNumber)) return typeof tok === 'string' && canon === JSON.stringify(tok);
    if (canon.startsWith('"')) return false;
    if (M.DTYPES[dtype].kind !== 'float') return tok.raw === canon;
    if (canon === '-0.0') return tok.raw === '-0.0';
    return significantDigits(tok.raw) === significantDigits(canon);
}

function checkVector(vectorPath, rawPath, arrays) {
    const text = readFileSync(vectorPath, 'utf8');
    const raw = readFileSync(rawPath);
    const doc = JSON.parse(text);
    let strict = null;
    try {
        strict = M.parseVector(text, {source: vectorPath});
        check(`${vectorPath}: the strict reader accepts it`, true);
    } catch (e) {
        check(`${vectorPath}: the strict reader accepts it`, false, e.message);
    }
    const tree = M.parseJson(text, vectorPath);
    if (!arrays.length) {
        for (const [t, f] of [['InputTensor', 'data'], ['OutputTensor', 'expected']])
            if (doc.tensors?.[t]?.[f]) arrays.push(`${t}.${f}`);
    }
    check(`${vectorPath}: has arrays to compare`, arrays.length > 0, 'no InputTensor.data or OutputTensor.expected');
    for (const spec of arrays) {
        const [tname, field] = spec.split('.');
        const label = `${vectorPath}: ${spec}`;
        const tensor = doc.tensors?.[tname];
        if (!check(`${label} exists`, tensor && Array.isArray(tensor[field]))) continue;
        const dtype = tensor.dtype;
        const esize = M.DTYPES[dtype]?.esize;
        if (!check(`${label}: known dtype`, esize !== undefined, String(dtype))) continue;
        const arr = tensor[field];
        if (!check(`${label}: ${arr.length} elements match ${rawPath} (${raw.length} bytes / ${esize})`,
                   arr.length * esize === raw.length)) continue;
        const want = M.newBitsArray(dtype, arr.length);
        M.bitsToBytes(want).set(raw);                 /* bitsToBytes views the array's own bytes on LE hosts */
        if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
            const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
            for (let i = 0; i < want.length; i++) {
                want[i] = esize === 1 ? dv.getUint8(i) : esize === 2 ? dv.getUint16(2 * i, true)
                    : esize === 4 ? dv.getUint32(4 * i, true) : dv.getBigUint64(8 * i, true);
            }
        }
        /* 1. JSON.parse + decodeElement */
        let bad = 0, first = '';
        for (let i = 0; i < arr.length; i++) {
            let got;
            try { got = M.decodeElement(dtype, arr[i]); } catch (e) { got = `error: ${e.message}`; }
            if (got !== want[i]) {
                if (!bad) first = `element ${i}: text ${JSON.stringify(tree.tensors[tname][field][i]?.raw ?? arr[i])} -> ${typeof got === 'string' ? got : M.bitsHex(dtype, got)}, raw ${M.bitsHex(dtype, want[i])}`;
                bad++;
            }
        }
        check(`${label}: JSON.parse + decoding recovers the raw bits of all ${arr.length} elements`, bad === 0, `${bad} differ; first ${first}`);
        /* 2. the strict reader */
        if (strict) {
            const t = strict.tensors[tname];
            const got = field === 'data' ? t.data : t.expected?.bits;
            let sbad = 0, sfirst = -1;
            if (got && got.length === want.length) {
                for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) { if (sfirst < 0) sfirst = i; sbad++; }
                if (field === 'expected' && t.expected.kind) sbad += t.expected.kind.filter((k) => k).length;
            } else {
                sbad = -1;
            }
            check(`${label}: the strict reader recovers the same bits`, sbad === 0, `${sbad} differ, first at ${sfirst}`);
        }
        /* 3. canonical form */
        if (!canonicalCheck) continue;
        const toks = tree.tensors[tname][field];
        let nonCanon = 0, firstNon = '';
        for (let i = 0; i < want.length; i++) {
            const tok = toks[i];
            const same = isCanonical(dtype, want[i], tok);
            if (!same) {
                if (!nonCanon) firstNon = `element ${i} (${M.bitsHex(dtype, want[i])}): written ${tok instanceof M.JsonNumber ? tok.raw : JSON.stringify(tok)}, shortest ${M.encodeElement(dtype, want[i])}`;
                nonCanon++;
            }
        }
        check(`${label}: every element is in FORMAT.md's canonical form`, nonCanon === 0, `${nonCanon} are not; first ${firstNon}`);
    }
    /* 4. the digest */
    const x = doc.tensors?.OutputTensor?.xxh3;
    if (x !== undefined) check(`${vectorPath}: OutputTensor.xxh3 is XXH3-64 of ${rawPath}`, x === M.xxh3Hex(raw), `${x} vs ${M.xxh3Hex(raw)}`);
}

/* ------------------------------------------------------------------------ */

function option(args, name, fallback) {
    const i = args.indexOf(name);
    if (i < 0) return fallback;
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
}

let canonicalCheck = true;

function main(argv) {
    const args = argv.filter((a) => a !== '--bits-only');
    canonicalCheck = args.length === argv.length;
    const count = Number(option(args, '--count', '1000000'));
    const pick = option(args, '--sets', null);
    const all = sets(count);
    const chosen = pick ? pick.split(',') : Object.keys(all);
    for (const s of chosen) if (!all[s]) { console.error(`unknown set ${s} (${Object.keys(all).join(', ')})`); return 3; }
    if (args[0] === '--make' || args[0] === '--all') {
        const dmlref = args[0] === '--all' ? args[1] : null;
        const dir = args[0] === '--all' ? args[2] : args[1];
        if (!dir || (args[0] === '--all' && !dmlref)) { console.error('usage: see the comment at the top of tests/cross/roundtrip.mjs'); return 3; }
        mkdirSync(dir, {recursive: true});
        for (const s of chosen) makeSet(dir, s, ...all[s]());
        if (!dmlref) { console.log(`wrote ${chosen.length} cases and raw files to ${dir}`); return 0; }
        const py = spawnSync('python3', ['--version']).status === 0;
        for (const s of chosen) {
            const c = join(dir, `${s}.case.json`), v = join(dir, `${s}.json`), b = join(dir, `${s}.bin`);
            const r = spawnSync(dmlref, ['eval', c, '-o', v], {encoding: 'utf8', maxBuffer: 1 << 26});
            if (!check(`dmlref eval ${c}`, r.status === 0 && existsSync(v), `exit ${r.status}: ${(r.stderr || '').trim()}`)) continue;
            checkVector(v, b, []);
            if (py) {
                const p = spawnSync('python3', [join(here, 'roundtrip.py'), v, b], {encoding: 'utf8', maxBuffer: 1 << 26});
                const last = (p.stdout || '').trim().split('\n').pop() || '';
                const m = /^(\d+) passed, (\d+) failed$/.exec(last);
                if (p.status !== 0) process.stdout.write(p.stdout + (p.stderr || ''));
                check(`python3 tests/cross/roundtrip.py ${v} ${b}`, p.status === 0 && m && m[2] === '0', last || (p.stderr || '').trim());
            }
        }
        return failed ? 1 : 0;
    }
    if (args.length < 2) { console.error('usage: see the comment at the top of tests/cross/roundtrip.mjs'); return 3; }
    checkVector(args[0], args[1], args.slice(2));
    return failed ? 1 : 0;
}

const code = main(process.argv.slice(2));
if (code !== 3) console.log(`${passed} passed, ${failed} failed`);
process.exitCode = code;
