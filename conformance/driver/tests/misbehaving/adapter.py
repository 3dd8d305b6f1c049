#!/usr/bin/env python3
"""A tiny adapter that misbehaves on purpose, for the runner's reliability tests.

Usage: adapter.py MODE

It answers the handshake and every case correctly (each call gets a result carrying its id,
content "ok"), except that on a case whose id ends with "/trigger" it misbehaves as MODE says.
Modes that break the handshake misbehave there instead. Python 3 standard library only.
"""

import json
import os
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def hello():
    keywords = ["type", "properties"]
    if MODE == "typo-keyword":
        # One letter off: every case using `properties` would silently skip if this were accepted.
        keywords = ["type", "propertie"]
    return {
        "protocol": 1,
        "implementation": {"name": "misbehaving-" + MODE, "language": "python", "version": "0"},
        "capabilities": {"cap": None, "keywords": keywords},
    }


def answer(seq, case):
    results = [
        {"tool_use_id": call.get("id"), "is_error": False, "content": "ok"}
        for call in case["calls"]
    ]
    return {"seq": seq, "case": case["id"], "results": results, "invocations": []}


def misbehave(seq, case):
    if MODE == "hang":
        time.sleep(3600)
    elif MODE == "crash":
        sys.stderr.write("Traceback (most recent call last):\nRuntimeError: adapter crashed mid-case\n")
        sys.stderr.flush()
        os._exit(3)
    elif MODE == "garbage":
        sys.stdout.write("garbage \x01 <html>not json</html>\n")
        sys.stdout.flush()
    elif MODE == "partial":
        sys.stdout.write('{"seq": %d, "case": "%s", "resu' % (seq, case["id"]))
        sys.stdout.flush()
        os._exit(0)
    elif MODE == "huge":
        chunk = "A" * (1 << 20)
        for _ in range(100):
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
        sys.stdout.flush()
    elif MODE == "two-answers":
        reply = answer(seq, case)
        reply["skip"] = "and also skipped"
        send(reply)
    elif MODE == "wrong-id":
        reply = answer(seq, case)
        reply["case"] = "somewhere/else"
        send(reply)
    else:
        send(answer(seq, case))


def main():
    if MODE == "flood":
        # 50 MB of stderr before anything else: a runner that does not drain it deadlocks.
        block = "noise " * 10000 + "\n"
        for _ in range(850):
            sys.stderr.write(block)
        sys.stderr.flush()
    for line in sys.stdin:
        msg = json.loads(line)
        cmd = msg.get("cmd")
        if cmd == "start":
            if MODE == "exit-handshake":
                sys.stderr.write("adapter: giving up during the handshake\n")
                sys.stderr.flush()
                os._exit(1)
            if MODE == "hang-handshake":
                time.sleep(3600)
            send(hello())
        elif cmd == "run":
            case = msg["case"]
            if case["id"].endswith("/trigger"):
                misbehave(msg["seq"], case)
            else:
                send(answer(msg["seq"], case))
        elif cmd == "stop":
            return


if __name__ == "__main__":
    main()
