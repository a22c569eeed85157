// test_playground.mjs DMLREF [--screenshots DIR] - the playground
// (docs/playground/index.html, opened from disk as a reader would) in a real
// browser, offline: headless Chromium, its network requests sent to a proxy
// that is not there, driven through its WebDriver (chromedriver, spoken to
// over HTTP: no other package).
//
// It types a GATHER_ND1 case and a NONZERO_COORDINATES case into the page,
// edits them through the form, clicks output elements and a feature level's
// chip, opens a vector as a file, and compares what
// the page shows with the command on the same case text: every output
// element and the downloaded vector with `dmlref eval`; the derivation of a
// clicked element with `dmlref explain --element`; a refusal's rule, message
// and path with `dmlref eval`'s error; an unreadable text with
// `dmlref explain`'s.  The elements the page highlights must be ones the
// derivation names.  Then it changes an output element and the derivation
// in the page, and checks that the comparisons fail.  NonZero offers only
// the rows of its count.  A vector with a permitted variant (format 2)
// shows it, labelled, wraps its derivation in the pane, and stays readable
// through form edits, its variant computed again.  It edits a
// GATHER_ELEMENTS case through every kind of field of the form (dtypes,
// sizes, strides, data, an attribute, the policy), comparing after each
// edit.  Last, every example of the guides and every vector of the suite,
// chosen from its list, must show what its vector states (its variants
// too).  --screenshots DIR keeps a picture of an explained element, of a
// refused case and of NonZero's rows.
//
// Each check prints one line; the last is "N passed, N failed".  Exit 0 when
// all pass, 1 when one fails, 2 when the browser or the page cannot start.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const dmlref = path.resolve(args[0] || '');
const shotsAt = args.indexOf('--screenshots');
const shots = shotsAt >= 0 ? path.resolve(args[shotsAt + 1]) : null;
if (!args[0] || !fs.existsSync(dmlref)) {
    console.error('usage: node tests/cross/test_playground.mjs DMLREF [--screenshots DIR]');
    process.exit(3);
}
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const page = path.join(root, 'docs/playground/index.html');
if (!fs.existsSync(path.join(root, 'docs/playground/generated/dmlref.js'))) {
    console.error('test_playground: docs/playground/generated/dmlref.js is missing (make playground)');
    process.exit(2);
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'dmlref-playground-'));

let passed = 0, failed = 0;
function check(ok, what, detail) {
    if (ok) passed++;
    else failed++;
    console.log(`${ok ? 'ok' : 'FAIL'} - ${what}${ok || !detail ? '' : `\n    ${detail}`}`);
}

// ---- WebDriver ------------------------------------------------------------------

const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
let base = '', session = '', driver = null;

async function call(method, route, body) {
    const response = await fetch(`${base}${route}`, {
        method, headers: { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
    });
    const reply = await response.json();
    if (!response.ok) throw new Error(`WebDriver ${method} ${route}: ${JSON.stringify(reply.value).slice(0, 300)}`);
    return reply.value;
}
const s = (route) => `/session/${session}${route}`;
const script = (code, ...scriptArgs) => call('POST', s('/execute/sync'), { script: code, args: scriptArgs });
const find = async (css) => (await call('POST', s('/element'), { using: 'css selector', value: css }))[ELEMENT];
const click = async (css) => call('POST', s(`/element/${await find(css)}/click`), {});
// Typed as a person types: an input event for the new text, and for an
// emptied field too (WebDriver's clear sends none): its text selected, then
// deleted (Control+A, release, Backspace).
async function type(css, text) {
    const id = await find(css);
    if (text === '') {
        await call('POST', s(`/element/${id}/value`), { text: '\uE009a\uE000\uE003' });
        return;
    }
    await call('POST', s(`/element/${id}/clear`), {});
    await call('POST', s(`/element/${id}/value`), { text });
}

async function idle() {
    for (let i = 0; i < 400; ++i) {
        if (await script("return document.body.dataset.ready === '1' && document.body.dataset.busy === '0'"))
            return;
        await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the page did not settle in 20 s');
}

function freePort() {
    return new Promise((resolve) => {
        const server = net.createServer().listen(0, '127.0.0.1', () => {
            const { port } = server.address();
            server.close(() => resolve(port));
        });
    });
}

// chromedriver and the browser it started, even when the browser no longer answers
function stop() {
    if (!driver) return;
    try {
        process.kill(-driver.pid, 'SIGKILL');
    } catch (e) {
        // already gone
    }
    driver = null;
}

async function startBrowser() {
    const port = await freePort();
    // a process group of its own, the browser's processes in it: stop() ends them all
    driver = spawn('chromedriver', [`--port=${port}`], { stdio: 'ignore', detached: true });
    driver.on('error', (e) => { console.error(`test_playground: chromedriver: ${e.message}`); process.exit(2); });
    base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; ++i) {
        try {
            if ((await call('GET', '/status')).ready) break;
        } catch (e) {
            if (i === 100) throw e;
        }
        await new Promise((r) => setTimeout(r, 100));
    }
    const chrome = {
        binary: '/usr/bin/chromium',
        // offline: every request to the network goes to a proxy that is not there
        args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
               '--window-size=1400,1000', `--user-data-dir=${path.join(work, 'profile')}`,
               '--proxy-server=127.0.0.1:9', '--proxy-bypass-list=<-loopback>'],
    };
    session = (await call('POST', '/session', {
        capabilities: { alwaysMatch: { browserName: 'chrome', 'goog:chromeOptions': chrome } },
    })).sessionId;
}

// ---- the command --------------------------------------------------------------------

// The command on the case the page holds, as case.json in a folder of its
// own (the page names an edited case case.json too): stdout, stderr, status.
function command(text, verb, ...options) {
    const dir = fs.mkdtempSync(path.join(work, 'case-'));
    fs.writeFileSync(path.join(dir, 'case.json'), text);
    try {
        return { out: execFileSync(dmlref, [verb, 'case.json', ...options],
                                   { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
                 err: '', status: 0 };
    } catch (e) {
        return { out: e.stdout, err: e.stderr, status: e.status };
    }
}

// The elements of `"expected": [...]` of each output of eval's vector, as the
// file writes them (quotes dropped, null kept): the page must show the same text.
// The outputs are the lines indented by `indent` (a variant's by 6).
function expectedOf(vectorText, indent = 4) {
    const outputs = {};
    const heading = new RegExp(`^ {${indent}}"([A-Za-z]+)": \\{`);
    for (const line of vectorText.split('\n')) {
        const name = heading.exec(line);
        const at = line.indexOf('"expected": [');
        if (!name || at < 0) continue;
        const tokens = [];
        let depth = 0, quoted = false, token = '';
        for (let i = at + '"expected": ['.length; i < line.length; ++i) {
            const c = line[i];
            if (quoted) {
                if (c === '"') quoted = false;
                token += c;
            } else if (c === '"') {
                quoted = true;
                token += c;
            } else if (c === '[' || c === '{') {
                depth++;
                token += c;
            } else if ((c === ']' || c === '}') && depth > 0) {
                depth--;
                token += c;
            } else if ((c === ',' || c === ']') && depth === 0) {
                tokens.push(token.trim());
                token = '';
                if (c === ']') break;
            } else {
                token += c;
            }
        }
        const bare = (t) => t.replace(/^"(.*)"$/, '$1');
        outputs[name[1]] = tokens.map((t) => {
            const anyOf = /^\{"any_of": \[(.*)\]\}$/.exec(t);
            return t === 'null' ? null : anyOf ? `{${anyOf[1].split(', ').map(bare).join('|')}}` : bare(t);
        });
    }
    return outputs;
}

// The permitted variants a vector states: {name: its outputs' elements, as
// expectedOf gives them}.
function variantsOf(vectorText) {
    const at = vectorText.indexOf('\n  "variants": [');
    const variants = {};
    if (at < 0) return variants;
    for (const chunk of vectorText.slice(at).split('\n    {"name": ').slice(1))
        variants[/^"([a-z_]+)"/.exec(chunk)[1]] = expectedOf(chunk, 6);
    return variants;
}

// What the page shows of each permitted variant: {name: {output: cells}}.
const pageVariants = () => script(`
    const variants = {};
    for (const box of document.querySelectorAll('#tensors .tensor.variant'))
        (variants[box.dataset.variant] ??= {})[box.dataset.variantOf] = [...box.querySelectorAll('td[data-at]')]
            .map((td) => td.classList.contains('undefined') ? null : td.textContent);
    return variants;`);

// The variants shown against those stated: the same names, and in each the
// elements of every output the vector lists (the first `limit`).
function variantDifferences(shown, stated, limit = Infinity) {
    const found = [];
    const names = (o) => Object.keys(o).sort().join(' ') || '(none)';
    if (names(shown) !== names(stated)) return [`the page shows the variants ${names(shown)}, the vector ${names(stated)}`];
    for (const [name, outputs] of Object.entries(stated)) {
        for (const output of Object.keys(outputs)) outputs[output] = outputs[output].slice(0, limit);
        if (Object.keys(outputs).length)
            found.push(...differences(shown[name], outputs).map((d) => `variant ${name}: ${d}`));
    }
    return found;
}

// What the page shows of each output: its cells in row-major order, null
// where it marks an element undefined.
const pageOutputs = () => script(`
    const outputs = {};
    for (const box of document.querySelectorAll('#tensors .tensor.output'))
        outputs[box.dataset.tensor] = [...box.querySelectorAll('td[data-at]')]
            .map((td) => td.classList.contains('undefined') ? null : td.textContent);
    return outputs;`);

function differences(shown, expected) {
    const names = Object.keys(expected);
    if (names.length === 0) return ['dmlref eval wrote no expected elements'];
    const found = [];
    for (const name of names) {
        const a = shown[name], b = expected[name];
        if (!a) {
            found.push(`${name}: the page shows no such output`);
            continue;
        }
        if (a.length !== b.length) found.push(`${name}: ${a.length} elements shown, eval has ${b.length}`);
        for (let i = 0; i < Math.min(a.length, b.length); ++i)
            if (a[i] !== b[i]) found.push(`${name} element ${i}: the page shows ${a[i]}, eval ${b[i]}`);
    }
    return found;
}

// ---- the checks ----------------------------------------------------------------------

const caseNow = () => script("return document.getElementById('case').value");

// The chip of each feature level against `dmlref eval` of the same text at
// that level: valid where eval computes, and a refusal's message (the
// chip's title) as eval words it.
async function compareLevels(what, text) {
    const chips = await script(`return [...document.querySelectorAll('#levels .level')]
        .map((l) => ({ level: l.dataset.level, status: l.dataset.status, title: l.title }))`);
    const wrong = [];
    for (const chip of chips) {
        const at = `"feature_level": "${chip.level}"`;
        const moved = /"feature_level": "[0-9_]+"/.test(text) ? text.replace(/"feature_level": "[0-9_]+"/, at)
                                                               : text.replace('{', `{${at},`);
        const evaluated = command(moved, 'eval');
        const why = (/^case\.json: \$[^:]*: (.*)$/.exec(evaluated.err.trim()) || [])[1];
        if (evaluated.status === 0 ? chip.status !== 'DMLREF_OK' : chip.status === 'DMLREF_OK' || chip.title !== why)
            wrong.push(`${chip.level}: the page says ${chip.status} (${chip.title}), eval exits ${evaluated.status} ${evaluated.err.trim()}`);
    }
    check(chips.length === 15 && wrong.length === 0,
          `${what}: the chip of each of the ${chips.length} feature levels says what dmlref eval says there`,
          wrong.slice(0, 3).join('\n    '));
}

// What the page says of the case it holds, against the command on the same
// text: a text the reader refuses as `dmlref explain` refuses it (the page
// reads as explain does), a refused case with `dmlref eval`'s rule, message
// and path, a valid one with every output element `dmlref eval` writes.
async function compareWithCommand(what) {
    const text = await caseNow();
    const box = await script(`const r = document.getElementById('result');
        const m = r.querySelector('.message');
        return { unreadable: r.className === 'unreadable', status: r.dataset.status, rule: r.dataset.rule,
                 message: m ? m.textContent : '' };`);
    const explained = command(text, 'explain');
    if (explained.status !== 0 && !explained.out) {
        check(box.unreadable && box.message === explained.err.trim(),
              `${what}: unreadable, as dmlref explain says`,
              `the page: ${JSON.stringify(box)}; dmlref explain (exit ${explained.status}): ${explained.err.trim()}`);
        return;
    }
    await compareLevels(what, text);
    const evaluated = command(text, 'eval');
    if (evaluated.status === 0) {
        const found = box.status === 'DMLREF_OK'
            ? differences(await pageOutputs(), expectedOf(evaluated.out))
                .concat(variantDifferences(await pageVariants(), variantsOf(evaluated.out)))
            : [`the page refuses it: ${box.status} ${box.rule}`];
        check(found.length === 0, `${what}: every output element, and every permitted variant's, is dmlref eval's`,
              found.slice(0, 5).join('; '));
        return;
    }
    const [, where, why] = /^case\.json: (\$[^:]*): (.*)$/.exec(evaluated.err.trim()) || [];
    const rule = (/\(([A-Z][A-Z0-9-]*)\)$/.exec(why || '') || [])[1];
    check(evaluated.status === 2 && box.status !== 'DMLREF_OK' && box.rule === rule &&
          box.message === (where === '$' ? why : `${why}\nin the case file: ${where}`),
          `${what}: refused with dmlref eval's rule, message and path (${box.rule})`,
          `the page: ${JSON.stringify(box)}; dmlref eval (exit ${evaluated.status}): ${evaluated.err.trim()}`);
}

async function explainElement(what, element) {
    const [name, at] = element.replace(/\]$/, '').split('[');
    await click(`#tensors td[data-tensor="${name}"][data-at="${at}"]`);
    await idle();
    const text = await caseNow();
    const shown = await script("return document.getElementById('explain').textContent");
    const expected = command(text, 'explain', '--element', element);
    check(expected.status === 0 && shown === expected.out,
          `${what}: ${element} is explained as dmlref explain --element explains it`,
          `the page:\n${shown}\n    the command (exit ${expected.status}):\n${expected.out}${expected.err}`);
    // every highlighted element is one the derivation names
    const marked = await script(`
        return [...document.querySelectorAll('#tensors td.src-value, #tensors td.src-index')]
            .map((td) => td.dataset.tensor + '[' + td.dataset.at.split(',').join(', ') + ']');`);
    const unnamed = marked.filter((m) => !expected.out.includes(m));
    check(marked.length > 0 && unnamed.length === 0,
          `${what}: the highlighted inputs (${marked.join(' ')}) are those the derivation names`,
          marked.length ? `not in the derivation: ${unnamed.join(' ')}` : 'nothing is highlighted');
    return { shown, expected: expected.out };
}

// The download button's file, caught before the browser saves it, must be
// the vector dmlref eval writes.
async function checkDownload(what) {
    await script(`window.downloaded = null;
        const create = URL.createObjectURL;
        URL.createObjectURL = (blob) => { blob.text().then((t) => { window.downloaded = t; }); return create(blob); };
        HTMLAnchorElement.prototype.click = () => {};`);
    await click('#download');
    let file = null;
    for (let i = 0; i < 100 && file === null; ++i) {
        await new Promise((r) => setTimeout(r, 20));
        file = await script('return window.downloaded');
    }
    const evaluated = command(await caseNow(), 'eval');
    check(file !== null && file === evaluated.out, `${what}: the download is the vector dmlref eval writes`,
          file === null ? 'nothing was downloaded' : `the page:\n${file}\n    dmlref eval:\n${evaluated.out}`);
}

async function screenshot(name) {
    if (!shots) return;
    fs.mkdirSync(shots, { recursive: true });
    // the pointer off the arrays, whose cells it would light up
    await call('POST', s('/actions'), { actions: [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' },
                                                    actions: [{ type: 'pointerMove', x: 0, y: 0, origin: 'viewport' }] }] });
    fs.writeFileSync(path.join(shots, name), Buffer.from(await call('GET', s('/screenshot')), 'base64'));
}

const GATHER_ND1 = `{
"format": "dmlref-vector-1",
"name": "playground/gather_nd1_batches",
"operator": "GATHER_ND1",
"attributes": {"InputDimensionCount": 3, "IndicesDimensionCount": 3, "BatchDimensionCount": 1},
"tensors": {
"InputTensor": {"dtype": "FLOAT32", "sizes": [2, 2, 3], "data": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]},
"IndicesTensor": {"dtype": "INT32", "sizes": [2, 2, 1], "data": [1, 0, -1, 0]},
"OutputTensor": {"dtype": "FLOAT32", "sizes": [2, 2, 3]}
}
}`;

const NONZERO = `{
"format": "dmlref-vector-1",
"name": "playground/nonzero_specials",
"operator": "NONZERO_COORDINATES",
"tensors": {
"InputTensor": {"dtype": "FLOAT32", "sizes": [2, 3], "data": [0, 1.5, -0.0, "nan", 0, -2]},
"OutputCountTensor": {"dtype": "UINT32", "sizes": [1]},
"OutputCoordinatesTensor": {"dtype": "UINT32", "sizes": [6, 2]}
}
}`;

async function gatherNd1() {
    await type('#case', GATHER_ND1);
    await idle();
    check((await caseNow()) === GATHER_ND1, 'GATHER_ND1: the case typed is the case the page holds');
    await compareWithCommand('GATHER_ND1 typed');

    // an edit through the form: new indices, and the element they move
    await type('#form input[data-tensor="IndicesTensor"][data-field="data"]', '0, 1, 1, -2');
    await idle();
    const edited = JSON.parse(await caseNow());
    check(JSON.stringify(edited.tensors.IndicesTensor.data) === '[0,1,1,-2]',
          'GATHER_ND1: the form writes the indices into the case');
    await compareWithCommand('GATHER_ND1 edited');
    await checkDownload('GATHER_ND1');
    const explained = await explainElement('GATHER_ND1', 'OutputTensor[1,1,2]');
    await screenshot('explained.png');

    // the comparisons fail a page that shows something else
    await script(`document.querySelector('#tensors td[data-tensor="OutputTensor"]').textContent = '99'`);
    const text = await caseNow();
    const wrong = differences(await pageOutputs(), expectedOf(command(text, 'eval').out));
    check(wrong.length === 1, 'the output comparison fails a page that shows one wrong element',
          `it found ${wrong.length} differences`);
    await script("document.getElementById('explain').textContent += ' '");
    check((await script("return document.getElementById('explain').textContent")) !== explained.expected,
          'the derivation comparison fails a page whose text differs by one space');

    // a feature level's chip moves the case there: GATHER_ND1 arrives in 3_0
    await click('#levels .level[data-level="2_1"]');
    await idle();
    const below = await script(`const r = document.getElementById('result');
        return [r.dataset.status, r.dataset.rule, JSON.parse(document.getElementById('case').value).feature_level]`);
    check(below.join(' ') === 'DMLREF_ERROR_UNSUPPORTED_OPERATOR R-GN-8 2_1',
          'GATHER_ND1: the chip of 2_1 moves the case to 2_1, where R-GN-8 refuses it', below.join(' '));
    await click('#levels .level[data-level="6_4"]');
    await idle();

    // a refusal: the batch dimensions take every dimension of the input
    await type('#form input[data-attribute="BatchDimensionCount"]', '3');
    await idle();
    await compareWithCommand('GATHER_ND1 refused');
    const box = await script("const r = document.getElementById('result'); return r.dataset.status + ' ' + r.dataset.rule");
    check(box === 'DMLREF_ERROR_INVALID_ATTRIBUTE R-GN-3', 'GATHER_ND1 refused: by R-GN-3, as an invalid attribute', box);
    const shown = await script("return document.getElementById('explain').textContent");
    const expected = command(await caseNow(), 'explain');
    check(shown === expected.out, 'GATHER_ND1 refused: the page explains the refusal as dmlref explain does',
          `the page:\n${shown}\n    the command:\n${expected.out}`);
    const levels = await script(`return [...document.querySelectorAll('#levels .level')]
        .map((l) => l.dataset.level + ' ' + l.dataset.status)`);
    check(levels.length === 15 && levels.every((l) => l.endsWith('DMLREF_ERROR_INVALID_ATTRIBUTE') ||
                                                   l.endsWith('DMLREF_ERROR_UNSUPPORTED_OPERATOR')),
          'GATHER_ND1 refused: every feature level refuses it', levels.join(', '));
    await screenshot('refused.png');
}

// Every example of the guides, chosen from its list, shows what its vector
// states: its outputs, or the refusal it expects.
async function guideExamples() {
    const examples = await script(`return Object.values(dmlrefPlayground.guides).flat().map((g) => g.name)`);
    const wrong = [];
    for (const name of examples) {
        const operator = name.split('/')[0].toUpperCase();
        if ((await script("return document.getElementById('operator').value")) !== operator) {
            await click(`#operator option[value="${operator}"]`);
            await idle();
        }
        await click(`#example option[value="${name}"]`);
        await idle();
        const vector = fs.readFileSync(path.join(root, 'vectors', `${name}.json`), 'utf8');
        const refusal = /"expect_error": \{"status": "([A-Z_]+)", "rule": "([^"]+)"\}/.exec(vector);
        const shown = await script(`const r = document.getElementById('result');
            return { status: r.dataset.status, rule: r.dataset.rule }`);
        if (refusal) {
            if (shown.status !== refusal[1] || shown.rule !== refusal[2])
                wrong.push(`${name}: the page says ${shown.status} ${shown.rule}, the vector ${refusal[1]} ${refusal[2]}`);
            continue;
        }
        const found = shown.status === 'DMLREF_OK' ? differences(await pageOutputs(), expectedOf(vector))
                                                   : [`refused: ${shown.status} ${shown.rule}`];
        if (found.length) wrong.push(`${name}: ${found.slice(0, 2).join('; ')}`);
    }
    check(examples.length > 0 && wrong.length === 0,
          `each of the ${examples.length} guide examples, chosen from its list, shows what its vector states`,
          wrong.slice(0, 5).join('\n    '));
}

const GATHER_ELEMENTS = `{
"format": "dmlref-vector-1",
"name": "playground/gather_elements_form",
"operator": "GATHER_ELEMENTS",
"attributes": {"Axis": 1},
"tensors": {
"InputTensor": {"dtype": "FLOAT32", "sizes": [2, 3], "data": [1, 2, 3, 4, 5, 6]},
"IndicesTensor": {"dtype": "INT64", "sizes": [2, 2], "data": [2, 0, -1, 1]},
"OutputTensor": {"dtype": "FLOAT32", "sizes": [2, 2]}
}
}`;

// Every kind of field of the form, one edit at a time: each must be written
// into the case as typed, and after each the page must say what the command
// says, whether the case is valid, refused or unreadable on the way.
async function formEdits() {
    await type('#case', GATHER_ELEMENTS);
    await idle();
    const field = (tensor, name) => `#form [data-tensor="${tensor}"][data-field="${name}"]`;
    const steps = [
        ['the input dtype', field('InputTensor', 'dtype'), 'INT8', (c) => c.tensors.InputTensor.dtype === 'INT8'],
        ['the output dtype', field('OutputTensor', 'dtype'), 'INT8', (c) => c.tensors.OutputTensor.dtype === 'INT8'],
        ['the input data', field('InputTensor', 'data'), '-7, 8, 9, -7, 8, 9',
         (c) => c.tensors.InputTensor.data.join() === '-7,8,9,-7,8,9'],
        ['the input strides (a broadcast)', field('InputTensor', 'strides'), '0, 1',
         (c) => c.tensors.InputTensor.strides.join() === '0,1'],
        ['the indices sizes', field('IndicesTensor', 'sizes'), '2, 1', (c) => c.tensors.IndicesTensor.sizes.join() === '2,1'],
        ['the indices data', field('IndicesTensor', 'data'), '-3, 2', (c) => c.tensors.IndicesTensor.data.join() === '-3,2'],
        ['the output sizes', field('OutputTensor', 'sizes'), '2, 1', (c) => c.tensors.OutputTensor.sizes.join() === '2,1'],
        ['the output strides', field('OutputTensor', 'strides'), '2, 1', (c) => c.tensors.OutputTensor.strides.join() === '2,1'],
        ['the attribute Axis', '#form input[data-attribute="Axis"]', '0', (c) => c.attributes.Axis === 0],
        ['the indices sizes again', field('IndicesTensor', 'sizes'), '1, 3', (c) => c.tensors.IndicesTensor.sizes.join() === '1,3'],
        ['the indices data again, one out of range', field('IndicesTensor', 'data'), '1, -2, 5',
         (c) => c.tensors.IndicesTensor.data.join() === '1,-2,5'],
        ['the output sizes again', field('OutputTensor', 'sizes'), '1, 3', (c) => c.tensors.OutputTensor.sizes.join() === '1,3'],
        ['the output strides emptied', field('OutputTensor', 'strides'), '', (c) => !('strides' in c.tensors.OutputTensor)],
        ['the out-of-range policy', '#oob', 'clamp', (c) => c.oob === 'clamp'],
    ];
    for (const [what, css, value, written] of steps) {
        if (await script(`return document.querySelector(arguments[0]).tagName === 'SELECT'`, css))
            await click(`${css} option[value="${value}"]`);
        else
            await type(css, value);
        await idle();
        const now = JSON.parse(await caseNow());
        check(written(now), `GATHER_ELEMENTS, form: ${what} written into the case`, JSON.stringify(now.tensors));
        await compareWithCommand(`GATHER_ELEMENTS, form: after ${what}`);
    }
}

// Every vector of the suite, chosen from its operator's list in the page: the
// page must say what the vector states, its outputs (the first 4096 elements
// the page shows) or the refusal it expects.  The loop runs inside the page,
// one call per operator; the comparison here.
async function suiteVectors() {
    const wrong = [];
    let count = 0, files = 0;
    await call('POST', s('/timeouts'), { script: 300000 });
    for (const operator of ['GATHER_ELEMENTS', 'SCATTER_ELEMENTS', 'GATHER_ND', 'GATHER_ND1', 'NONZERO_COORDINATES']) {
        await click(`#operator option[value="${operator}"]`);
        await idle();
        const shown = await call('POST', s('/execute/async'), { args: [], script: `
            const done = arguments[arguments.length - 1];
            // the vectors are loaded: a choice settles within microtasks, and
            // waiting for a timer would let the browser paint after each one
            const settled = async () => {
                for (let i = 0; document.body.dataset.busy !== '0'; ++i)
                    await new Promise((resolve) => (i < 100 ? resolve() : setTimeout(resolve, 5)));
            };
            (async () => {
                const list = document.getElementById('suite');
                const seen = {};
                for (const name of [...list.options].map((o) => o.value).filter((v) => v)) {
                    list.value = name;
                    list.dispatchEvent(new Event('change'));
                    await settled();
                    const r = document.getElementById('result');
                    const outputs = {};
                    for (const box of document.querySelectorAll('#tensors .tensor.output'))
                        outputs[box.dataset.tensor] = [...box.querySelectorAll('td[data-at]')]
                            .map((td) => td.classList.contains('undefined') ? null : td.textContent);
                    const variants = {};
                    for (const box of document.querySelectorAll('#tensors .tensor.variant'))
                        (variants[box.dataset.variant] ??= {})[box.dataset.variantOf] = [...box.querySelectorAll('td[data-at]')]
                            .map((td) => td.classList.contains('undefined') ? null : td.textContent);
                    seen[name] = { status: r.dataset.status, rule: r.dataset.rule, outputs, variants,
                                   holds: document.getElementById('case').value };
                }
                return seen;
            })().then(done, (e) => done({ error: e.message }));` });
        if (shown.error) throw new Error(`choosing ${operator}'s suite vectors: ${shown.error}`);
        const folder = path.join(root, 'vectors', operator.toLowerCase());
        const names = execFileSync('find', [folder, '-name', '*.json'], { encoding: 'utf8' }).trim().split('\n')
            .map((f) => path.relative(path.join(root, 'vectors'), f).replace(/\.json$/, ''));
        files += names.length;
        const missing = names.filter((n) => !shown[n]);
        if (missing.length) wrong.push(`${operator}: not in the list: ${missing.slice(0, 3).join(' ')}`);
        for (const [name, page] of Object.entries(shown)) {
            count++;
            const vector = fs.readFileSync(path.join(root, 'vectors', `${name}.json`), 'utf8');
            const refusal = /"expect_error": \{"status": "([A-Z_]+)", "rule": "([^"]+)"\}/.exec(vector);
            if (page.holds !== vector) wrong.push(`${name}: the page holds another text`);
            else if (refusal) {
                if (page.status !== refusal[1] || page.rule !== refusal[2])
                    wrong.push(`${name}: the page says ${page.status} ${page.rule}, the vector ${refusal[1]} ${refusal[2]}`);
            } else if (page.status !== 'DMLREF_OK') {
                wrong.push(`${name}: refused: ${page.status} ${page.rule}`);
            } else {
                // the vector's own elements where it lists them; an output stated by its digest alone shows none
                const expected = expectedOf(vector);
                for (const output of Object.keys(expected)) expected[output] = expected[output].slice(0, 4096);
                const listed = Object.keys(expected).length;
                const found = listed ? differences(page.outputs, expected) : [];
                if (!listed && Object.values(page.outputs).some((o) => o.length === 0))
                    found.push('an output shows no elements');
                found.push(...variantDifferences(page.variants, variantsOf(vector), 4096));
                if (found.length) wrong.push(`${name}: ${found.slice(0, 2).join('; ')}`);
            }
        }
    }
    check(count > 0 && count === files && wrong.length === 0,
          `each of the suite's ${files} vectors, chosen from its list (${count}), shows what the vector states`,
          wrong.slice(0, 5).join('\n    '));
}

async function nonzero() {
    await click('#operator option[value="NONZERO_COORDINATES"]');
    await idle();
    const loaded = JSON.parse(await caseNow());
    check(loaded.operator === 'NONZERO_COORDINATES', 'choosing NONZERO_COORDINATES loads its guide example',
          `the page holds ${loaded.operator}`);
    // a file of one's own, opened through the file input
    const file = path.join(root, 'vectors/gather_nd/float32/2d/doc_example1.json');
    await call('POST', s(`/element/${await find('#file')}/value`), { text: file });
    await idle();
    const opened = await script(`return [document.getElementById('explain-command').textContent,
                                         document.getElementById('result').dataset.status]`);
    const found = differences(await pageOutputs(), expectedOf(fs.readFileSync(file, 'utf8')));
    check(opened[0] === '$ dmlref explain doc_example1.json' && opened[1] === 'DMLREF_OK' && found.length === 0,
          'a vector opened as a file shows the outputs it states', `${opened.join(' ')} ${found.join('; ')}`);

    await type('#case', NONZERO);
    await idle();
    await compareWithCommand('NONZERO_COORDINATES typed');
    // through the form: negative zero stays -0.0, and NaN and -inf become strings
    await type('#form input[data-tensor="InputTensor"][data-field="data"]', '-0.0, 0, 2.5, nan, -inf, 0');
    await idle();
    check((await caseNow()).includes('"data": [-0.0, 0, 2.5, "nan", "-inf", 0]'),
          'NONZERO_COORDINATES: the form writes -0.0, nan and -inf as the vector file does');
    await compareWithCommand('NONZERO_COORDINATES edited');
    const rows = await script(`return [...document.querySelectorAll(
        '#tensors .tensor[data-tensor="OutputCoordinatesTensor"] tr th:first-child')].map((th) => th.textContent)`);
    check(rows.slice(1).join(' ') === 'row 0 row 1 row 2 row 3 row 4 row 5',
          'NONZERO_COORDINATES: the coordinates are laid out as rows', rows.join(' '));
    await explainElement('NONZERO_COORDINATES', 'OutputCoordinatesTensor[2,1]');
    await screenshot('nonzero.png');
    await nonzeroOffersOnlyItsRows();
}

const explainCommand = () => script("return document.getElementById('explain-command').textContent");

// NonZero's rows at or past the count are no element of the answer: the
// page offers only the rows the count gives, a click on another selects
// nothing, and an edit that moves the count below the selected row drops
// the selection.
async function nonzeroOffersOnlyItsRows() {
    const count = Number(expectedOf(command(await caseNow(), 'eval').out).OutputCountTensor[0]);
    const offered = await script(`return [...document.querySelectorAll(
        '#tensors td[data-tensor="OutputCoordinatesTensor"]')]
        .filter((td) => getComputedStyle(td).cursor === 'pointer').map((td) => td.dataset.at)`);
    const beyond = offered.filter((at) => Number(at.split(',')[0]) >= count);
    check(offered.length === count * 2 && beyond.length === 0,
          `NONZERO_COORDINATES: only the ${count} rows of the count are offered to explain`,
          `offered: ${offered.join(' ')}`);
    await click('#tensors td[data-tensor="OutputCoordinatesTensor"][data-at="4,0"]');
    await idle();
    const after = await explainCommand();
    check(after.endsWith("--element 'OutputCoordinatesTensor[2,1]'"),
          'NONZERO_COORDINATES: a click on a row past the count selects nothing', after);
    // 2.5 and NaN: a count of 2, and row 2, selected, is undefined
    await type('#form input[data-tensor="InputTensor"][data-field="data"]', '-0.0, 0, 2.5, nan, 0, 0');
    await idle();
    const dropped = await explainCommand();
    const explained = command(await caseNow(), 'explain');
    const shown = await script("return document.getElementById('explain').textContent");
    check(!dropped.includes('--element') && shown === explained.out &&
          !(await script("return !!document.querySelector('#tensors td.selected')")),
          'NONZERO_COORDINATES: an edit that leaves the selected row past the count drops it: the whole case is explained',
          `${dropped}\n${shown}`);
}

const SUBNORMAL_EXAMPLE = 'nonzero_coordinates/float32/3d/n2_negative_zero_nan_subnormal';

// A vector with a permitted variant (format 2), the NonZero guide's example
// 2: its variant shown in the arrays, labelled; the explain pane wrapping
// its long lines; and edits through the form, which make it a case whose
// variant the library computes again.
async function formatTwo() {
    if ((await script("return document.getElementById('operator').value")) !== 'NONZERO_COORDINATES') {
        await click('#operator option[value="NONZERO_COORDINATES"]');
        await idle();
    }
    await click(`#example option[value="${SUBNORMAL_EXAMPLE}"]`);
    await idle();
    const vector = fs.readFileSync(path.join(root, 'vectors', `${SUBNORMAL_EXAMPLE}.json`), 'utf8');
    const stated = variantsOf(vector);
    const shown = await pageVariants();
    const wrong = variantDifferences(shown, stated);
    check(Object.keys(stated).length === 1 && wrong.length === 0,
          'format 2: the permitted variant the vector states is shown in the arrays', wrong.slice(0, 3).join('; '));
    const labels = await script(`return [...document.querySelectorAll(
        '#tensors .tensor.variant .variant-label, #tensors .variant-heading')].map((l) => l.textContent)`);
    check(labels.length === 3 && labels.every((l) => /permitted variant subnormals_flushed \(R-NZ-10\)/i.test(l)),
          'format 2: the variant is labelled as a permitted alternative, with its rule', labels.join(' | '));
    const picks = await script(`return [...document.querySelectorAll('#tensors .tensor.variant td')]
        .filter((td) => getComputedStyle(td).cursor === 'pointer').length`);
    check(picks === 0, 'format 2: the variant offers no element to explain (explain derives the golden answer)',
          `${picks} offered`);

    // the whole case explained: its notes are one long line
    const pane = await script(`const p = document.getElementById('explain');
        return { lines: p.textContent.split('\\n').reduce((n, l) => Math.max(n, l.length), 0),
                 scroll: p.scrollWidth, width: p.clientWidth, height: p.clientHeight,
                 page: document.documentElement.scrollWidth, window: window.innerWidth }`);
    check(pane.lines > 200 && pane.scroll <= pane.width && pane.page <= pane.window,
          `the explain pane wraps its long lines (${pane.lines} characters) within the page`,
          JSON.stringify(pane));

    const note = await script("const n = document.getElementById('form-note'); return n ? n.textContent : ''");
    check(/makes it a case/.test(note) && /variants again/.test(note),
          'format 2: the page says what an edit through the form does to the stated answer and variants', note);

    // the form shows the data as the file has it: -0.0 is not 0
    const data = '#form input[data-tensor="InputTensor"][data-field="data"]';
    const field = await script('return document.querySelector(arguments[0]).value', data);
    check(field === '1.5, -0.0, nan, 0, 1.401298464324817e-45, -2',
          'format 2: the form shows the input data as the vector writes it, -0.0 kept', field);

    // an edit that keeps the subnormal: the variant is computed again
    await type(data, '1.5, -0.0, nan, 0, 1.401298464324817e-45, 7');
    await idle();
    const edited = JSON.parse(await caseNow());
    const result = await script("const r = document.getElementById('result'); return [r.className, r.dataset.status]");
    check(edited.format === 'dmlref-vector-1' && !('variants' in edited) && result.join(' ') === 'valid DMLREF_OK',
          'format 2, form: an edit makes the vector a case of format 1 that the page reads',
          `${edited.format} ${'variants' in edited} ${result.join(' ')}`);
    await compareWithCommand('format 2, form: after an edit that keeps the subnormal');
    const evaluated = command(await caseNow(), 'eval').out;
    const again = variantDifferences(await pageVariants(), variantsOf(evaluated));
    check(evaluated.includes('"format": "dmlref-vector-2"') && Object.keys(variantsOf(evaluated)).length === 1 &&
          again.length === 0, 'format 2, form: the variant is computed again and shown as dmlref eval writes it',
          again.join('; '));
    await checkDownload('format 2, form');

    // an edit that removes the subnormal: no variant applies
    await type(data, '1.5, -0.0, nan, 0, 0, 7');
    await idle();
    await compareWithCommand('format 2, form: after an edit that removes the subnormal');
    check(Object.keys(await pageVariants()).length === 0,
          'format 2, form: with no subnormal left, no variant is shown');

    // a feature level's chip edits the vector too, opened again from the suite's list
    await click(`#suite option[value="${SUBNORMAL_EXAMPLE}"]`);
    await idle();
    check((await caseNow()) === vector, 'format 2: the vector opened from the suite list is the file');
    await click('#levels .level[data-level="5_0"]');
    await idle();
    const moved = JSON.parse(await caseNow());
    check(moved.feature_level === '5_0' && moved.format === 'dmlref-vector-1' && !('variants' in moved),
          'format 2: a feature level chip moves the vector to that level as a case of format 1',
          JSON.stringify(moved).slice(0, 200));
    await compareWithCommand('format 2: after a chip');
}

const guard = setTimeout(() => {
    console.log('FAIL - the test ran past 360 s');
    console.log(`${passed} passed, ${failed + 1} failed`);
    stop();
    fs.rmSync(work, { recursive: true, force: true });
    process.exit(1);
}, 360000);

try {
    await startBrowser();
    await call('POST', s('/url'), { url: `file://${page}` });
    await idle();
    check(true, `the page starts from disk, offline (${page})`);
    await gatherNd1();
    await nonzero();
    await formatTwo();
    await formEdits();
    await guideExamples();
    await suiteVectors();
} catch (e) {
    console.log(`FAIL - ${e.message}`);
    failed++;
    if (!session) {
        console.log(`${passed} passed, ${failed} failed`);
        stop();
        process.exit(2);
    }
} finally {
    if (session) await call('DELETE', s('')).catch(() => {});
    stop();
    clearTimeout(guard);
    fs.rmSync(work, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
