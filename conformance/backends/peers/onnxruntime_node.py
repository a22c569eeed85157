"""ONNX Runtime for Node.js, from Python: one long-lived Node process
(onnxruntime_server.mjs, beside this file) that runs ONNX models on the CPU.

    runtime = OnnxRuntimeNode()     # RuntimeError when it cannot start
    outputs = runtime.run(model_bytes, [("data", array), ("indices", array)])
    runtime.close()

run() returns the model's outputs as numpy arrays, in the model's order, or
raises RuntimeFailure: MissingKernel when ORT has no kernel for an operator
and type (it cannot make the session), RuntimeFailure with the stage "run"
when ORT refuses to run the model on these inputs.  Sessions are kept by the
server, keyed by a digest of the model's bytes, so a model is sent once;
a server that has exited is started again for the next request.
"""

import base64
import hashlib
import json
import os
import subprocess

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "onnxruntime_server.mjs")

# numpy type <-> onnxruntime-node's type name
TYPE_NAMES = {np.dtype(t): t for t in ("float32", "float16", "float64", "int8", "uint8", "int16",
                                         "uint16", "int32", "uint32", "int64", "uint64")}
NUMPY_TYPES = {name: dtype for dtype, name in TYPE_NAMES.items()}


class RuntimeFailure(Exception):
    """ORT's error for a request; `stage` says where (onnxruntime_server.mjs)."""

    def __init__(self, message, stage):
        super().__init__(message)
        self.stage = stage


class MissingKernel(RuntimeFailure):
    """ORT cannot make a session of the model because it has no kernel for
    one of its operators with these types."""


class OnnxRuntimeNode:
    def __init__(self, node="node"):
        self.node, self.process = node, None
        self.versions = self.request({"versions": True})["versions"]  # ORT's, from ORT

    def start(self):
        # stderr is inherited: the server writes there only when it cannot start
        self.process = subprocess.Popen([self.node, SERVER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, cwd=HERE)
        self.sent = set()  # keys whose model the server has had

    def request(self, request):
        if self.process is None or self.process.poll() is not None:
            self.start()
        self.process.stdin.write(json.dumps(request).encode("ascii") + b"\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("onnxruntime_server.mjs exited (status %s)" % self.process.wait())
        return json.loads(line)

    def run(self, model_bytes, inputs):
        key = hashlib.sha256(model_bytes).hexdigest()
        tensors = [{"name": name, "type": TYPE_NAMES[a.dtype], "dims": list(a.shape),
                    "data": base64.b64encode(np.ascontiguousarray(a).astype(
                        a.dtype.newbyteorder("<"), copy=False).tobytes()).decode("ascii")}
                   for name, a in inputs]
        request = {"key": key, "inputs": tensors}
        if key not in self.sent:
            request["model"] = base64.b64encode(model_bytes).decode("ascii")
            self.sent.add(key)
        reply = self.request(request)
        if reply.get("stage") == "key":  # the server let the session go: send the model again
            request["model"] = base64.b64encode(model_bytes).decode("ascii")
            reply = self.request(request)
        if "error" in reply:
            missing = (reply["stage"] == "session"
                       and "Could not find an implementation" in reply["error"])
            raise (MissingKernel if missing else RuntimeFailure)(reply["error"], reply["stage"])
        return [np.frombuffer(base64.b64decode(t["data"]), dtype=NUMPY_TYPES[t["type"]]
                              .newbyteorder("<")).reshape(t["dims"]) for t in reply["outputs"]]

    def close(self):
        self.process.stdin.close()
        self.process.wait()
