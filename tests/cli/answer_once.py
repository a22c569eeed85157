#!/usr/bin/python3
"""A process backend for tests/cli/test_check.sh that answers one case, then
misbehaves: `answer_once.py MARKER hang|exit`.  The first process to find no
MARKER file creates it and answers its first case "unsupported"; from then on
every case (in that process or any restarted one) hangs, or exits with
status 3."""
import json
import os
import sys
import time

marker, how = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    if not os.path.exists(marker):
        open(marker, "w").close()
        print(json.dumps({"name": json.loads(line)["name"], "status": "unsupported"}), flush=True)
        continue
    if how == "hang":
        time.sleep(1000)
    sys.exit(3)
