// onnxruntime_server.mjs - runs ONNX models with ONNX Runtime for Node.js
// (onnxruntime-node, CPU execution provider) for a parent process.
//
//     node conformance/backends/peers/onnxruntime_server.mjs
//
// onnxruntime-node is resolved from conformance/backends/peers/node_modules, beside
// this file (make node-deps installs it there).
//
// The protocol: one JSON object a line on stdin, one reply a line on stdout,
// in order.  Nothing else is ever written on stdout (console.log is sent to
// stderr, and ORT's own logging is turned down to fatal errors).
//
//   request  {"key": K, "model": BASE64?, "inputs": [TENSOR...]}
//   reply    {"outputs": [TENSOR...]}  or  {"error": MESSAGE, "stage": STAGE}
//   TENSOR   {"name": N, "type": "float32", "dims": [2, 3], "data": BASE64}
//
//   request  {"versions": true}
//   reply    {"versions": {"common": "1.30.0", "node": "1.30.0"}}   (ort.env.versions)
//
// K names a model (the parent uses a digest of its bytes).  The model's bytes
// come with the first request of a key; the session made from them is kept
// and later requests send the key alone.  Sessions are kept for the last
// SESSIONS keys used; a request whose key is not kept (never sent, or
// evicted) is answered {"error": ..., "stage": "key"}, and the parent sends
// the model again.  A tensor's data is its elements' little-endian bytes,
// which reach ORT and come back without being read as numbers, so every bit
// (NaN payloads, -0.0) survives.  TYPE is onnxruntime-node's type name.
// STAGE is "session" (ORT could not make a session of the model: a missing
// kernel for a type, an invalid model), "run" (ORT refused to run it: an
// index out of range, a shape it rejects), "key" or "request".  A failed
// session is kept as its error, so a request for its key gets it again.

import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

const SESSIONS = 64;

console.log = console.error; // a library's prints must not reach the replies

let ort;
try {
    ort = createRequire(import.meta.url)('onnxruntime-node');
} catch (e) {
    console.error(`onnxruntime_server: cannot load onnxruntime-node from ${
        new URL('node_modules/', import.meta.url).pathname} (make node-deps): ${
        e.message.split('\n')[0]}`);
    process.exit(2);
}
ort.env.logLevel = 'fatal';

// onnxruntime-node's type name -> the typed array that holds its elements
// (float16 as its bits: Node has no Float16Array).
const ARRAYS = {
    float32: Float32Array, float64: Float64Array, float16: Uint16Array,
    int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
    int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
};

const sessions = new Map(); // key -> {session} or {error}, least recently used first

class RequestError extends Error {
    constructor(stage, message) {
        super(message);
        this.stage = stage;
    }
}

function toTensor(t) {
    const Elements = ARRAYS[t.type];
    if (!Elements) throw new RequestError('request', `input ${t.name}: unknown type ${t.type}`);
    const bytes = Buffer.from(t.data, 'base64');
    // a copy into a buffer of its own, aligned for the element type
    const copy = new Uint8Array(bytes.length);
    copy.set(bytes);
    const elements = new Elements(copy.buffer, 0, bytes.length / Elements.BYTES_PER_ELEMENT);
    return new ort.Tensor(t.type, elements, t.dims);
}

function fromTensor(name, tensor) {
    const data = tensor.data;
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    return { name, type: tensor.type, dims: Array.from(tensor.dims),
             data: bytes.toString('base64') };
}

async function session(request) {
    let entry = sessions.get(request.key);
    if (entry === undefined && request.model === undefined)
        throw new RequestError('key', `no session for key ${request.key}: send the model`);
    if (entry === undefined) {
        try {
            // One thread a session: the vectors are small, and a session with
            // a pool of threads took about 50 ms a case over the suite, against
            // 5 ms (make check-reports: 129 s, against 33, on a 2-core machine).
            const options = { executionProviders: ['cpu'], logSeverityLevel: 4,
                              intraOpNumThreads: 1, interOpNumThreads: 1 };
            const model = Buffer.from(request.model, 'base64');
            entry = { session: await ort.InferenceSession.create(model, options) };
        } catch (e) {
            entry = { error: e.message };
        }
    }
    sessions.delete(request.key); // kept again as the most recently used
    sessions.set(request.key, entry);
    if (sessions.size > SESSIONS) {
        const [oldest, old] = sessions.entries().next().value;
        sessions.delete(oldest);
        if (old.session) await old.session.release();
    }
    if (entry.error !== undefined) throw new RequestError('session', entry.error);
    return entry.session;
}

async function answer(line) {
    try {
        const request = JSON.parse(line);
        if (request.versions) return { versions: ort.env.versions };
        const s = await session(request);
        const feeds = {};
        for (const t of request.inputs) feeds[t.name] = toTensor(t);
        let results;
        try {
            results = await s.run(feeds);
        } catch (e) {
            throw new RequestError('run', e.message);
        }
        return { outputs: s.outputNames.map((name) => fromTensor(name, results[name])) };
    } catch (e) {
        return { error: String(e.message).split('\n').join(' '), stage: e.stage || 'request' };
    }
}

function write(text) {
    return new Promise((resolve) => process.stdout.write(text, resolve));
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
    if (line.trim() === '') continue;
    await write(JSON.stringify(await answer(line)) + '\n');
}
for (const entry of sessions.values())
    if (entry.session) await entry.session.release();
