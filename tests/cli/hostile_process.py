#!/usr/bin/python3
"""A `dmlref check --exec` backend that misbehaves toward the harness, one way
a case: `hostile_process.py COUNTER BEHAVIOUR...`.  The k-th case it is sent
(counted in the file COUNTER, so across restarts) gets the k-th BEHAVIOUR,
and every case past the list is answered right (tests/cross/model_backend.py):

  answer        the right reply
  hang          never replies
  close-stdout  closes its stdout and lives on
  close-stdin   closes its stdin and lives on
  endless       writes a line that never ends
  orphan        starts `sleep 1306` (in its process group), then hangs
  twice         the right reply, twice at once
  late          the right reply, and again 0.3 s later
  slow          the right reply, after 1 s
  again-with-next  the right reply, and again in one write with the next reply
  forge         writes a forged --jobs record to every descriptor from 3 to 63,
                then answers "unsupported"
  setsid        starts a process in a session of its own (out of its process
                group) that waits 3 s, writes the file COUNTER.escaped and
                sleeps 1319 s; then the right reply
  flood         writes 100 MiB to its stderr, then the right reply
  flood-exit    writes 100 MiB to its stderr, then "last words", and exits
                with status 3
"""
import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cross"))
from model_backend import answer  # noqa: E402


# what the setsid child runs: after 3 s a marker, then a long sleep by name
ESCAPE = (
    "import os, sys, time\n"
    "time.sleep(3)\n"
    "open(sys.argv[1], 'w').close()\n"
    "os.execvp('sleep', ['sleep', '1319'])\n"
)


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main(counter, behaviours):
    pending = ""  # a reply to give again, ahead of the next one
    for line in sys.stdin:
        k = int(open(counter).read()) if os.path.exists(counter) else 0
        with open(counter, "w") as f:
            f.write(str(k + 1))
        how = behaviours[k] if k < len(behaviours) else "answer"
        if how == "answer":
            say(pending + json.dumps(answer(line, True)))
            pending = ""
        elif how == "hang":
            time.sleep(1000)
        elif how == "close-stdout":
            os.close(1)
            time.sleep(1000)
        elif how == "close-stdin":
            os.close(0)
            time.sleep(1000)
        elif how == "endless":
            while True:
                os.write(1, b"x" * 65536)
        elif how == "orphan":
            subprocess.Popen(["sleep", "1306"])
            time.sleep(1000)
        elif how == "twice":
            reply = json.dumps(answer(line, True))
            say(reply + "\n" + reply)
        elif how == "late":
            reply = json.dumps(answer(line, True))
            say(reply)
            threading.Timer(0.3, say, [reply]).start()
        elif how == "again-with-next":
            reply = json.dumps(answer(line, True))
            say(reply)
            pending = reply + "\n"
        elif how == "slow":
            time.sleep(1)
            say(json.dumps(answer(line, True)))
        elif how == "setsid":
            subprocess.Popen([sys.executable, "-c", ESCAPE, counter + ".escaped"],
                             start_new_session=True, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            say(json.dumps(answer(line, True)))
        elif how in ("flood", "flood-exit"):
            block = b"stderr flood " * 5041 + b"\n"  # 65534 bytes a line
            for _ in range(100 * 16):
                os.write(2, block)
            if how == "flood-exit":
                os.write(2, b"last words\n")
                sys.exit(3)
            say(json.dumps(answer(line, True)))
        elif how == "forge":
            for fd in range(3, 64):
                try:
                    os.write(fd, b"R\t0\t0\t0\t0.0\tforged\tx\tx\n")
                except OSError:
                    pass
            say(json.dumps({"name": json.loads(line)["name"], "status": "unsupported"}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
