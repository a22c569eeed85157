// playground.js - the page around dmlref's library (generated/dmlref.js,
// built by `make playground` from src/web/playground.c and the library).
// The page computes nothing about the operators: it turns the form into a
// vector file, hands the text to the library, and lays out what comes back.
// A classic script, not a module: a page opened from disk may run these.
'use strict';

const dmlrefPlayground = (() => {
    const OPERATORS = ['GATHER_ELEMENTS', 'SCATTER_ELEMENTS', 'GATHER_ND', 'GATHER_ND1',
                       'NONZERO_COORDINATES'];
    const DTYPES = ['FLOAT32', 'FLOAT16', 'UINT32', 'UINT16', 'UINT8', 'INT32', 'INT16', 'INT8',
                    'FLOAT64', 'UINT64', 'INT64'];
    const LEVELS = ['1_0', '2_0', '2_1', '3_0', '3_1', '4_0', '4_1', '5_0', '5_1', '5_2', '6_0',
                    '6_1', '6_2', '6_3', '6_4'];
    // what a case computed by the page no longer holds once it is edited
    const STALE_KEYS = ['min_feature_level', 'expect_error', 'variants'];
    const STALE_TENSOR_KEYS = ['expected', 'xxh3'];

    const $ = (id) => document.getElementById(id);
    let library = null;   // the emscripten module
    let model = null;     // the case as an object, when its text parses
    let source = 'case.json';
    let element = '';
    let result = null;
    let timer = null;
    let pendingWork = 0;  // loads under way (a script of vectors, a file)
    let listed = '';      // the operator whose examples and vectors the lists hold
    const vectors = {};   // operator (lower case) -> {name: text}
    const pending = {};   // operator -> Promise of its vectors

    // ---- the library --------------------------------------------------------

    function ask(text, name, at) {
        const p = library.ccall('dmlref_playground_run', 'number', ['string', 'string', 'string'],
                                [text, name, at]);
        if (!p) throw new Error('dmlref: out of memory');
        const answer = library.UTF8ToString(p);
        library._dmlref_playground_free(p);
        return JSON.parse(answer);
    }

    // ---- the suite, loaded per operator as scripts ------------------------------

    function addVectors(operator, map) {
        vectors[operator] = map;
    }

    function loadVectors(operator) {
        if (vectors[operator]) return Promise.resolve(vectors[operator]);
        if (!pending[operator]) {
            pending[operator] = new Promise((resolve, reject) => {
                const script = document.createElement('script');
                script.src = `generated/vectors/${operator}.js`;
                script.onload = () => resolve(vectors[operator]);
                script.onerror = () => reject(new Error(`cannot load ${script.src} (make playground)`));
                document.head.appendChild(script);
            });
        }
        return pending[operator];
    }

    async function openVector(name) {
        const operator = name.split('/')[0];
        const map = await loadVectors(operator);
        if (!map[name]) throw new Error(`no vector ${name}`);
        setCase(map[name], `vectors/${name}.json`);
    }

    // ---- the case text and the form ----------------------------------------------

    // One element of a data field as the vector file writes it: a JSON number
    // where it is one (an integer beyond 2^53 stays a string, as FORMAT.md
    // asks), anything else ("nan", "-inf", "0x7fc00001") a string.
    function elementValue(token) {
        if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(token)) {
            const n = Number(token);
            if (!/^-?[0-9]+$/.test(token) || Number.isSafeInteger(n)) return n;
        }
        return token;
    }

    function splitList(text) {
        return text.split(',').map((s) => s.trim()).filter((s) => s !== '');
    }

    // JSON on one line, spaced as dmlref's vector files are; negative zero
    // as -0.0, which JSON.stringify would write 0.
    function oneLine(value) {
        if (Object.is(value, -0)) return '-0.0';
        if (Array.isArray(value)) return `[${value.map(oneLine).join(', ')}]`;
        if (value !== null && typeof value === 'object')
            return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${oneLine(v)}`).join(', ')}}`;
        return JSON.stringify(value);
    }

    // The case in the layout of dmlref's vector files: one line per tensor.
    function caseText(c) {
        const lines = Object.entries(c).map(([key, value]) => {
            if (key !== 'tensors' || value === null || typeof value !== 'object')
                return `  ${JSON.stringify(key)}: ${oneLine(value)}`;
            const tensors = Object.entries(value).map(([name, t]) => `    ${JSON.stringify(name)}: ${oneLine(t)}`);
            return `  "tensors": {\n${tensors.join(',\n')}\n  }`;
        });
        return `{\n${lines.join(',\n')}\n}\n`;
    }

    function setCase(text, name) {
        $('case').value = text;
        source = name;
        element = '';
        parseModel();
        buildForm();
        run();
    }

    function parseModel() {
        try {
            model = JSON.parse($('case').value);
            if (typeof model !== 'object' || model === null || Array.isArray(model)) model = null;
        } catch (e) {
            model = null;
        }
    }

    function option(select, value, label, selected) {
        const o = document.createElement('option');
        o.value = value;
        o.textContent = label;
        o.selected = selected;
        select.appendChild(o);
    }

    function input(attributes, value, onChange) {
        const i = document.createElement('input');
        for (const [k, v] of Object.entries(attributes)) i.setAttribute(k, v);
        i.value = value;
        i.addEventListener('input', onChange);
        return i;
    }

    function select(attributes, values, current, onChange) {
        const s = document.createElement('select');
        for (const [k, v] of Object.entries(attributes)) s.setAttribute(k, v);
        for (const [value, label] of values) option(s, value, label, value === current);
        s.addEventListener('change', onChange);
        return s;
    }

    // The form shows the fields of the case the text holds; an edit writes
    // the case back as text.  The text may say more than the form: it wins.
    function buildForm() {
        const form = $('form');
        form.textContent = '';
        if (!model) {
            form.innerHTML = '<p class="note">The text below is not a JSON object: the form ' +
                             'returns when it is.</p>';
            return;
        }
        const head = document.createElement('div');
        head.className = 'row';
        const level = select({ id: 'level' }, [['', '(latest)']].concat(LEVELS.map((l) => [l, l])),
                             model.feature_level || '', (e) => edit((c) => {
                                 if (e.target.value) c.feature_level = e.target.value;
                                 else delete c.feature_level;
                             }));
        const oob = select({ id: 'oob' }, [['error', 'error'], ['clamp', 'clamp']],
                           model.oob || 'error', (e) => edit((c) => {
                               if (e.target.value === 'clamp') c.oob = 'clamp';
                               else delete c.oob;
                           }));
        head.append(labelled('Feature level', level), labelled('Out-of-range indices', oob));
        for (const [name, value] of Object.entries(model.attributes || {})) {
            head.append(labelled(name, input({ 'data-attribute': name, type: 'number', min: 0 },
                                             value, (e) => edit((c) => {
                                                 c.attributes[name] = Number(e.target.value);
                                             }))));
        }
        form.append(head);

        const table = document.createElement('table');
        table.innerHTML = '<tr><th>tensor</th><th>dtype</th><th>sizes</th><th>strides</th>' +
                          '<th>data (row-major)</th></tr>';
        for (const [name, t] of Object.entries(model.tensors || {})) {
            if (typeof t !== 'object' || t === null) continue;
            const row = table.insertRow();
            row.insertCell().textContent = name;
            const set = (field, parse) => (e) => edit((c) => {
                const value = e.target.value.trim();
                if (value === '' && field !== 'data') delete c.tensors[name][field];
                else c.tensors[name][field] = parse(value);
            });
            const numbers = (v) => splitList(v).map(Number);
            row.insertCell().append(select({ 'data-tensor': name, 'data-field': 'dtype' },
                                           DTYPES.map((d) => [d, d]), t.dtype, set('dtype', (v) => v)));
            row.insertCell().append(input({ 'data-tensor': name, 'data-field': 'sizes' },
                                          (t.sizes || []).join(', '), set('sizes', numbers)));
            row.insertCell().append(input({ 'data-tensor': name, 'data-field': 'strides',
                                            placeholder: 'packed' },
                                          (t.strides || []).join(', '), set('strides', numbers)));
            const data = row.insertCell();
            if (Array.isArray(t.data)) {
                data.append(input({ 'data-tensor': name, 'data-field': 'data' },
                                  t.data.map((x) => (Object.is(x, -0) ? '-0.0' : String(x))).join(', '),
                                  set('data', (v) => splitList(v).map(elementValue))));
            } else if (t.generator) {
                data.textContent = 'generator (edit it in the text)';
            } else {
                data.textContent = name.includes('Output') || 'expected' in t ? '(computed)' : '';
            }
        }
        form.append(table);
        if (statesAnswer(model))
            form.append(note('This text is a vector: it states its answer (expected outputs' +
                             (model.variants ? ', permitted variants' : '') + '). An edit ' +
                             'through the form makes it a case (format dmlref-vector-1) and ' +
                             'drops what it stated; dmlref computes the answer and its ' +
                             'variants again, the arrays show them, and the download writes ' +
                             'them.', 'form-note'));
    }

    function statesAnswer(c) {
        return STALE_KEYS.some((k) => k in c) ||
               Object.values(c.tensors || {}).some((t) => t && typeof t === 'object' &&
                                                          STALE_TENSOR_KEYS.some((k) => k in t));
    }

    function labelled(text, control) {
        const l = document.createElement('label');
        l.append(`${text} `, control);
        return l;
    }

    // A form edit: the case changes, what was computed for the old one goes.
    function edit(change) {
        if (!model) return;
        change(model);
        for (const k of STALE_KEYS) delete model[k];
        for (const t of Object.values(model.tensors || {}))
            for (const k of STALE_TENSOR_KEYS) if (t && typeof t === 'object') delete t[k];
        // a case states no variants, so it is version 1 (FORMAT.md); the
        // library computes the variants again, and the download writes them
        if (model.format === 'dmlref-vector-2') model.format = 'dmlref-vector-1';
        $('case').value = caseText(model);
        source = 'case.json';
        schedule();
    }

    function schedule() {
        document.body.dataset.busy = '1';
        clearTimeout(timer);
        timer = setTimeout(run, 120);
    }

    // The page is busy (body's data-busy, which its test waits on) while a
    // run is scheduled or a load is under way.
    function settle() {
        document.body.dataset.busy = pendingWork || timer ? '1' : '0';
    }

    function working(promise) {
        pendingWork++;
        document.body.dataset.busy = '1';
        return promise.catch(fail).finally(() => {
            pendingWork--;
            settle();
        });
    }

    // ---- the answer ----------------------------------------------------------------

    function run() {
        clearTimeout(timer);
        timer = null;
        try {
            result = ask($('case').value, source, element);
            // an element of a case that no longer has it, that is refused, or
            // that an edit made undefined (NonZero's rows at or past the count):
            // explain it all
            if (element && (result.explain_error || result.result?.status !== 'DMLREF_OK' ||
                            undefinedElement(element))) {
                element = '';
                result = ask($('case').value, source, element);
            }
            render();
        } catch (e) {
            fail(e);
        }
        settle();
    }

    // Whether the answer shows `name[at]` as undefined: no element of the
    // answer, so not one to explain (the page offers only those that exist).
    function undefinedElement(name) {
        const [tensor, at] = name.replace(/\]$/, '').split('[');
        const t = (result.tensors || []).find((x) => x.name === tensor && x.role === 'output');
        if (!t || !t.values || at === undefined) return false;
        const p = at.split(',').reduce((n, c, d) => n * (t.sizes[d] ?? 0) + Number(c), 0);
        return p < t.values.length && t.values[p] === null;
    }

    function render() {
        renderLevels();
        renderResult();
        renderTensors();
        const quoted = (s) => (/^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s}'`);
        $('explain-command').textContent = result.read
            ? `$ dmlref explain ${quoted(source)}${element ? ` --element ${quoted(element)}` : ''}` : '';
        $('explain').textContent = result.read ? result.explain || result.explain_error || '' : '';
        $('show-command').textContent = `$ dmlref show ${quoted(source)}`;
        $('show').textContent = result.read ? result.show || '' : '';
        $('download').disabled = !(result.read && result.vector);
        $('download-note').textContent = result.read && result.result.status !== 'DMLREF_OK'
            ? 'a refused case downloads with the refusal it must get (expect_error)' : '';
        if (model && OPERATORS.includes(model.operator) && model.operator !== listed) {
            $('operator').value = model.operator;
            fillExamples(model.operator);
            working(fillSuite(model.operator));
        }
    }

    function renderLevels() {
        const box = $('levels');
        box.textContent = '';
        if (!result.read) return;
        for (const l of result.levels) {
            const chip = document.createElement('span');
            const valid = l.status === 'DMLREF_OK';
            chip.className = `level ${valid ? 'valid' : 'refused'}` +
                             (l.level === result.feature_level ? ' current' : '');
            chip.dataset.level = l.level;
            chip.dataset.status = l.status;
            chip.textContent = `${l.level} ${valid ? '✓' : '✗'}`;
            chip.title = valid ? `valid at ${l.level}` : l.message;
            chip.addEventListener('click', () => {
                edit((c) => { c.feature_level = l.level; });
                buildForm();
            });
            box.append(chip);
        }
    }

    function renderResult() {
        const box = $('result');
        box.textContent = '';
        if (!result.read) {
            box.className = 'unreadable';
            box.dataset.status = result.status;
            box.dataset.rule = result.rule;
            box.innerHTML = '<b>The file cannot be read</b>';
            addMessage(box, result.message);
            return;
        }
        const r = result.result;
        box.dataset.status = r.status;
        box.dataset.rule = r.rule;
        if (r.status === 'DMLREF_OK') {
            box.className = 'valid';
            box.textContent = `Valid at feature level ${result.feature_level}` +
                              ` (out-of-range indices: ${result.oob}). Click an output element ` +
                              'to see where it comes from.';
            return;
        }
        box.className = 'refused';
        box.append(`Refused at feature level ${result.feature_level}: ${r.status}`);
        if (r.rule) {
            box.append(', rule ');
            const rule = document.createElement('a');
            rule.className = 'rule';
            rule.href = '../rules.md';
            rule.textContent = r.rule;
            box.append(rule);
        }
        addMessage(box, r.message + (r.path !== '$' ? `\nin the case file: ${r.path}` : ''));
    }

    function addMessage(box, text) {
        const m = document.createElement('span');
        m.className = 'message';
        m.textContent = text;
        box.append(m);
    }

    // ---- arrays ----------------------------------------------------------------------

    function coordinatesOf(p, sizes) {
        const at = new Array(sizes.length);
        for (let d = sizes.length - 1; d >= 0; --d) {
            at[d] = p % sizes[d];
            p = Math.floor(p / sizes[d]);
        }
        return at;
    }

    // A tensor as 2-D tables: the last dimension across, the one before it
    // down, one table per coordinate of the dimensions before those.  A
    // permitted variant's output (`variant`: its name and rule) is laid out
    // the same, labelled, and offers no element to explain: explain derives
    // the golden answer.
    function renderTensor(t, variant) {
        const box = document.createElement('div');
        box.className = variant ? 'tensor variant' : `tensor ${t.role}`;
        box.dataset[variant ? 'variantOf' : 'tensor'] = t.name;
        if (variant) box.dataset.variant = variant.name;
        const title = document.createElement('div');
        title.className = 'tensor-title';
        const b = document.createElement('b');
        b.textContent = t.name;
        const dims = document.createElement('span');
        dims.className = 'dims';
        dims.textContent = `${t.dtype} [${t.sizes.join(', ')}]` +
                           (t.strides ? `, strides [${t.strides.join(', ')}]` : '');
        title.append(b, ' ', dims);
        if (variant) {
            const label = document.createElement('span');
            label.className = 'variant-label';
            label.textContent = `permitted variant ${variant.name} (${variant.rule})`;
            title.append(' ', label);
        }
        box.append(title);
        if (!t.values) {
            box.append(note(t.role === 'output' ? 'no values: the case is refused' : 'no values'));
            return box;
        }
        const rank = t.sizes.length;
        const columns = t.sizes[rank - 1];
        const nonzeroRows = t.name === 'OutputCoordinatesTensor';
        let table = null;
        t.values.forEach((value, p) => {
            const at = coordinatesOf(p, t.sizes);
            const column = at[rank - 1];
            const row = rank >= 2 ? at[rank - 2] : 0;
            if (column === 0 && row === 0) {
                const block = document.createElement('div');
                block.className = 'block';
                if (rank > 2) {
                    const label = document.createElement('div');
                    label.className = 'block-label';
                    label.textContent = `[${at.slice(0, rank - 2).join(', ')}, :, :]`;
                    block.append(label);
                }
                table = document.createElement('table');
                table.className = 'array';
                const head = table.insertRow();
                head.append(document.createElement('th'));
                for (let c = 0; c < columns; ++c) {
                    const th = document.createElement('th');
                    th.textContent = nonzeroRows ? `dim ${result.tensors[0].sizes.length - columns + c}`
                                                 : String(c);
                    head.append(th);
                }
                block.append(table);
                box.append(block);
            }
            if (column === 0) {
                const tr = table.insertRow();
                const th = document.createElement('th');
                th.textContent = nonzeroRows ? `row ${row}` : (rank >= 2 ? String(row) : '');
                tr.append(th);
            }
            const cell = table.rows[table.rows.length - 1].insertCell();
            if (!variant) cell.dataset.tensor = t.name;
            cell.dataset.at = at.join(',');
            if (value === null) {
                cell.className = 'undefined';
                cell.textContent = t.role === 'output' ? '–' : '';
                cell.title = 'any value passes here (undefined)';
            } else if (Array.isArray(value)) {
                cell.textContent = `{${value.join('|')}}`;
                cell.title = 'any one of these values passes';
            } else {
                cell.textContent = value;
            }
            // an undefined element (NonZero's rows at or past the count) is
            // none of the answer: only the elements that exist are offered
            if (t.role === 'output' && !variant && value !== null) {
                cell.classList.add('pick');
                cell.addEventListener('click', () => {
                    element = `${t.name}[${cell.dataset.at}]`;
                    run();
                });
            }
        });
        if (t.values.length < t.count)
            box.append(note(`the first ${t.values.length} of ${t.count} elements`));
        return box;
    }

    function note(text, id) {
        const p = document.createElement('p');
        p.className = 'note';
        if (id) p.id = id;
        p.textContent = text;
        return p;
    }

    function renderTensors() {
        const box = $('tensors');
        box.textContent = '';
        if (!result.read) return;
        for (const t of result.tensors) box.append(renderTensor(t));
        for (const v of result.variants || []) {
            const heading = document.createElement('p');
            heading.className = 'variant-heading';
            heading.dataset.variant = v.name;
            heading.textContent = `Permitted variant ${v.name} (${v.rule}): another whole answer ` +
                                  'DirectML allows; a conforming implementation may write these ' +
                                  'outputs instead of those above.';
            box.append(heading);
            for (const t of v.outputs) box.append(renderTensor(t, v));
        }
        if (element) {
            const selected = box.querySelector(`td[data-tensor="${element.split('[')[0]}"]` +
                                               `[data-at="${element.split('[')[1].slice(0, -1)}"]`);
            if (selected) selected.classList.add('selected');
            for (const s of result.sources) {
                const cell = box.querySelector(`td[data-tensor="${s.tensor}"][data-at="${s.at.join(',')}"]`);
                if (cell) cell.classList.add(`src-${s.role}`);
            }
            const legend = document.createElement('div');
            legend.className = 'legend';
            legend.innerHTML = '<span class="selected">the element explained</span>' +
                               '<span class="src-value">the element it comes from</span>' +
                               '<span class="src-index">the indices read</span>' +
                               (result.sources.some((s) => s.role === 'loser')
                                   ? '<span class="src-loser">updates overwritten</span>' : '');
            box.prepend(legend);
        }
    }

    // ---- start -------------------------------------------------------------------------

    function fillExamples(operator) {
        listed = operator;
        const list = (dmlrefPlayground.guides || {})[operator.toLowerCase()] || [];
        const s = $('example');
        s.textContent = '';
        option(s, '', '(choose)', true);
        for (const g of list)
            option(s, g.name, `${g.heading} — ${g.name.split('/').slice(1).join('/')}`, false);
        return list;
    }

    async function fillSuite(operator) {
        const s = $('suite');
        s.textContent = '';
        option(s, '', '(choose)', true);
        const map = await loadVectors(operator.toLowerCase());
        if (listed !== operator) return; // another operator was chosen meanwhile
        for (const name of Object.keys(map)) option(s, name, name, false);
    }

    // The operator's lists, and its first guide example unless another was
    // chosen while its vectors loaded.
    async function chooseOperator(operator) {
        const list = fillExamples(operator);
        if (list.length) $('example').value = list[0].name;
        await fillSuite(operator);
        if (list.length && $('example').value === list[0].name) await openVector(list[0].name);
    }

    async function start() {
        document.body.dataset.busy = '1';
        const op = $('operator');
        for (const o of OPERATORS) option(op, o, o, o === 'GATHER_ELEMENTS');
        op.addEventListener('change', () => working(chooseOperator(op.value)));
        $('example').addEventListener('change', (e) => e.target.value && working(openVector(e.target.value)));
        $('suite').addEventListener('change', (e) => e.target.value && working(openVector(e.target.value)));
        $('file').addEventListener('change', (e) => {
            const file = e.target.files[0];
            if (file) working(file.text().then((text) => setCase(text, file.name)));
        });
        $('case').addEventListener('input', () => {
            source = 'case.json';
            parseModel();
            buildForm();
            schedule();
        });
        $('download').addEventListener('click', () => {
            const blob = new Blob([result.vector], { type: 'application/json' });
            const a = document.createElement('a');
            a.href = URL.createObjectURL(blob);
            a.download = `${(result.name || 'case').split('/').pop()}.json`;
            a.click();
            URL.revokeObjectURL(a.href);
        });
        if (typeof createDmlref === 'undefined')
            throw new Error('generated/dmlref.js is missing: run make playground, or sh scripts/setup.sh');
        library = await createDmlref();
        $('loading').textContent = `dmlref ${library.UTF8ToString(library._dmlref_version_string())}, ` +
                                   'compiled to WebAssembly.';
        await chooseOperator('GATHER_ELEMENTS');
        document.body.dataset.ready = '1';
    }

    function fail(error) {
        $('loading').textContent = `The playground failed: ${error.message}`;
        document.body.dataset.busy = '0';
    }

    return { addVectors, start: () => start().catch(fail), guides: null };
})();
