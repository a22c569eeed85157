#!/usr/bin/python3
"""The numpy model of tests/cross/model.py as a `dmlref check --exec` process backend.

    dmlref check --exec '/usr/bin/python3 tests/cross/model_backend.py' vectors
    dmlref check --exec '/usr/bin/python3 tests/cross/model_backend.py --no-validation' vectors

It computes every operator correctly.  By default it also validates each case
at the feature level of the request with the model's own reading of
docs/rules.md, and refuses an invalid one naming the status and the rule
({"status": "error", "error": {"status": ..., "rule": ...}}).  With
--no-validation it computes whatever it is given, as a backend that leaves
validation to "the framework above" would: `dmlref check` must fail it.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "loaders"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dmlref_vectors as dv  # noqa: E402
import model  # noqa: E402


def answer(line, validate):
    name = json.loads(line).get("name")
    try:
        try:
            v = dv.loads(line, case=True)
        except dv.VectorError:
            if not validate:
                raise
            # a case whose shapes cannot hold data comes without it: the loader
            # reads such a case's descriptors only when it expects an error, so
            # mark it so (the problems found below decide the answer)
            doc = json.loads(line)
            doc["expect_error"] = {"status": "DMLREF_ERROR_INVALID_SIZES", "rule": "R-TD-2"}
            v = dv.loads(json.dumps(doc), case=True)
        if validate:
            problems = model.validation_problems(v)
            if problems:
                status, rule = problems[0]
                return {"name": name, "status": "error", "message": "%s (%s)" % (status, rule),
                        "error": {"status": status, "rule": rule}}
        outputs = model.compute(v)
    except model.ModelRefusal as refusal:
        return {"name": name, "status": "error", "message": str(refusal),
                "error": {"status": refusal.status, "rule": refusal.rule}}
    except Exception as e:  # noqa: BLE001 - a backend that cannot compute says so
        return {"name": name, "status": "error", "message": "%s: %s" % (type(e).__name__, e)}
    return {"name": name, "outputs": {
        t.name: [dv.encode_element(t.dtype, int(b)) for b in
                 np.asarray(out).astype(t.dtype.np_uint).reshape(-1)]
        for t, out in zip(v.outputs, outputs)}}


def main(argv):
    validate = "--no-validation" not in argv[1:]
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(answer(line, validate)), flush=True)


if __name__ == "__main__":
    main(sys.argv)
