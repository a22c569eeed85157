// playground_vectors.mjs OUT - the suite and the guides' examples for the
// playground (docs/playground/), as JavaScript the page loads with <script>:
// a page opened from disk may load scripts, but not fetch files.
//
//   OUT/vectors/<operator>.js  every vector of vectors/MANIFEST under that
//                              operator, its text exactly as committed
//   OUT/guides.js              per operator, the vectors the guides
//                              (docs/operators/*.md) name, in the order they
//                              first name them, each with the heading above
//
// Prints one line.  Exit 1 when a guide names a vector the suite lacks.
import fs from 'node:fs';
import path from 'node:path';

const out = process.argv[2];
if (!out || process.argv.length !== 3) {
    console.error('usage: node scripts/build/playground_vectors.mjs OUT');
    process.exit(3);
}
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

const byOperator = {};
for (const line of fs.readFileSync(path.join(root, 'vectors/MANIFEST'), 'utf8').split('\n')) {
    const file = line.split(/\s+/)[1];
    if (!file) continue;
    const operator = file.split('/')[0];
    (byOperator[operator] ??= {})[file.replace(/\.json$/, '')] =
        fs.readFileSync(path.join(root, 'vectors', file), 'utf8');
}

const guides = {};
let missing = 0;
const pages = fs.readdirSync(path.join(root, 'docs/operators')).filter((f) => f.endsWith('.md')).sort();
for (const page of pages) {
    let heading = '';
    const lines = fs.readFileSync(path.join(root, 'docs/operators', page), 'utf8').split('\n');
    lines.forEach((line, i) => {
        const h = /^#{2,3} (.*)/.exec(line);
        if (h) heading = h[1];
        for (const m of line.matchAll(/vectors\/(([a-z0-9_]+)\/[a-z0-9_./-]+)\.json/g)) {
            const [, name, operator] = m;
            if (!byOperator[operator]?.[name]) {
                console.error(`docs/operators/${page}:${i + 1}: vectors/${name}.json is not in the suite`);
                missing++;
                continue;
            }
            const list = (guides[operator] ??= []);
            if (!list.some((g) => g.name === name))
                list.push({ name, guide: page, heading });
        }
    });
}
if (missing) process.exit(1);

fs.mkdirSync(path.join(out, 'vectors'), { recursive: true });
let count = 0;
for (const [operator, vectors] of Object.entries(byOperator)) {
    count += Object.keys(vectors).length;
    fs.writeFileSync(path.join(out, 'vectors', `${operator}.js`),
                     `dmlrefPlayground.addVectors(${JSON.stringify(operator)}, ${JSON.stringify(vectors)});\n`);
}
fs.writeFileSync(path.join(out, 'guides.js'),
                 `dmlrefPlayground.guides = ${JSON.stringify(guides, null, 1)};\n`);
const examples = Object.values(guides).reduce((n, list) => n + list.length, 0);
console.log(`playground_vectors: ${count} vectors of ${Object.keys(byOperator).length} operators and ` +
            `${examples} guide examples in ${out}`);
