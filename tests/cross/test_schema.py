#!/usr/bin/python3
"""vectors/schema.json is a tested contract.

    python3 tests/cross/test_schema.py [-v]

With python3-jsonschema (JSON Schema draft 2020-12) it checks that

  - vectors/schema.json is a valid draft 2020-12 schema;
  - every committed vector (every *.json below vectors/ but vectors/schema.json)
    validates against it;
  - every malformed file of tests/cli/malformed/ fails it, in each mode that
    tests/cli/malformed/EXPECTED lists for the file: "verify" reads a vector (the
    schema itself), "eval" reads a case (schema.json#/$defs/case);
  - except the pairs that EXPECTED marks "# SCHEMA-EXEMPT: FILE[ MODE]: REASON",
    mistakes a JSON Schema cannot express (exact representability, counts
    against the sizes, duplicate keys, digests, descriptor validity, ...):
    each of those must still validate, or not be JSON at all, so that the
    list stays exact.

A file is read with Python's json, as a schema validator sees a document:
NaN and Infinity literals are refused, a duplicate key keeps its last value.
Prints each failure and ends with one line, "... N passed, N failed"; exits 1
if anything failed, 2 if python3-jsonschema is missing.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMA = os.path.join(ROOT, "vectors", "schema.json")
VECTORS = os.path.join(ROOT, "vectors")
MALFORMED = os.path.join(ROOT, "tests", "cli", "malformed")
EXEMPT_MARK = "# SCHEMA-EXEMPT: "
MODES = ("verify", "eval")

try:
    import jsonschema
except ImportError:
    print("test_schema: python3-jsonschema is missing (sh scripts/build/install_deps.sh installs it); "
          "the schema cannot be checked")
    sys.exit(2)


def load_json(path):
    """The document, or raises ValueError when the file is not JSON."""
    def no_constant(name):
        raise ValueError("%s is not JSON" % name)
    with open(path, "rb") as f:
        raw = f.read()
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=no_constant)
    except (UnicodeDecodeError, RecursionError) as e:
        raise ValueError(str(e)) from None


def vector_files():
    found = []
    for root, dirs, files in os.walk(VECTORS):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            if name.endswith(".json") and path != SCHEMA:
                found.append(path)
    return found


def read_expected():
    """({file: set of modes}, {(file, mode): reason}) from EXPECTED."""
    modes, exempt = {}, {}
    with open(os.path.join(MALFORMED, "EXPECTED"), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith(EXEMPT_MARK):
                what, sep, reason = line[len(EXEMPT_MARK):].partition(": ")
                parts = what.split(" ")
                if not sep or not reason or len(parts) > 2 or (len(parts) == 2 and parts[1] not in MODES):
                    raise SystemExit("EXPECTED:%d: not \"%sFILE[ MODE]: REASON\"" % (number, EXEMPT_MARK))
                for mode in parts[1:] or MODES:
                    exempt[(parts[0], mode)] = reason
                continue
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            listed = fields[3].split() if len(fields) > 3 else list(MODES)
            modes.setdefault(fields[0], set()).update(listed)
    return modes, exempt


def first_error(validator, doc):
    errors = list(validator.iter_errors(doc))
    if not errors:
        return None
    e = jsonschema.exceptions.best_match(errors)
    where = "$" + "".join("[%d]" % p if isinstance(p, int) else ".%s" % p for p in e.absolute_path)
    return "%s: %s" % (where, e.message[:200])


def main(argv):
    verbose = "-v" in argv
    passed = failed = 0

    def result(ok, message):
        nonlocal passed, failed
        if ok:
            passed += 1
            if verbose:
                print("ok   " + message)
        else:
            failed += 1
            print("FAIL " + message)

    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    validator_class = jsonschema.Draft202012Validator
    try:
        validator_class.check_schema(schema)
        result(True, "vectors/schema.json is a valid draft 2020-12 schema")
    except jsonschema.exceptions.SchemaError as e:
        result(False, "vectors/schema.json is not a valid draft 2020-12 schema: %s" % e.message)
        print("%d passed, %d failed" % (passed, failed))
        return 1
    validators = {
        "verify": validator_class(schema),
        "eval": validator_class({"$ref": "#/$defs/case", "$defs": schema["$defs"]}),
    }

    # every committed vector validates
    files = vector_files()
    versions = {}
    valid = 0
    for path in files:
        rel = os.path.relpath(path, ROOT)
        try:
            doc = load_json(path)
        except ValueError as e:
            result(False, "%s: not JSON: %s" % (rel, e))
            continue
        problem = first_error(validators["verify"], doc)
        result(problem is None, "%s: %s" % (rel, problem or "validates"))
        if problem is None:
            valid += 1
            fmt = doc.get("format")
            versions[fmt] = versions.get(fmt, 0) + 1
    result(len(files) > 0, "vectors/ holds vectors (%d)" % len(files))

    # every malformed file fails it, unless exempt; exempt ones pass or are not JSON
    modes, exempt = read_expected()
    for (name, mode) in sorted(exempt):
        if mode not in modes.get(name, ()):
            result(False, "EXPECTED: %s%s %s: EXPECTED does not run that file in that mode"
                   % (EXEMPT_MARK, name, mode))
    refused = exempted = 0
    refused_files, exempt_files = set(), set()
    for name in sorted(modes):
        path = os.path.join(MALFORMED, name)
        if not os.path.exists(path):
            continue  # tests/cli/test_malformed.sh reports it
        try:
            doc, not_json = load_json(path), None
        except ValueError as e:
            doc, not_json = None, str(e).splitlines()[0][:80]
        for mode in sorted(modes[name]):
            what = "tests/cli/malformed/%s (%s)" % (name, mode)
            reason = exempt.get((name, mode))
            if not_json is not None:
                result(reason is not None, "%s: not JSON (%s)%s" % (
                    what, not_json, "" if reason else ": mark it " + EXEMPT_MARK.strip()))
                exempted += reason is not None
                if reason is not None:
                    exempt_files.add(name)
                continue
            problem = first_error(validators[mode], doc)
            if reason is None:
                result(problem is not None, "%s: %s" % (
                    what, "the schema refuses it: " + problem if problem else
                    "the schema accepts it; make the schema refuse it, or mark it "
                    + EXEMPT_MARK.strip() + " with the reason a schema cannot"))
                refused += problem is not None
                if problem is not None:
                    refused_files.add(name)
            else:
                result(problem is None, "%s: %s" % (
                    what, "exempt (%s) and the schema accepts it" % reason if problem is None else
                    "marked exempt (%s), but the schema refuses it: %s; drop the mark"
                    % (reason, problem)))
                exempted += problem is None
                if problem is None:
                    exempt_files.add(name)

    print("vectors/schema.json: %d vectors validate (%s); malformed: %d files fail it (%d file-mode "
          "pairs), %d files exempt and %d partly (%d pairs); %d passed, %d failed"
          % (valid, ", ".join("%d %s" % (n, f) for f, n in sorted(versions.items())),
             len(refused_files), refused, len(exempt_files - refused_files),
             len(exempt_files & refused_files), exempted, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
