#!/usr/bin/env python3
"""A tiny adapter that misbehaves on purpose, for the runner's reliability tests.

Usage: adapter.py MODE

It answers the handshake and every case correctly (each call gets a result carrying its id,
content "ok"), except that on a case whose id ends with "/trigger" it misbehaves as MODE says.
Modes that break the handshake misbehave there instead, and the hostile-text modes misbehave on
every case. Python 3 standard library only.

Environment: HC_PIDFILE, when set, is where modes that start processes write their pids (one per
line), so that a test can check they were killed; HC_STARTFILE, when set, gets the adapter's own
pid at every handshake, so that a test can count starts.
"""

import json
import os
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"

# Text a hostile adapter puts wherever the runner prints adapter strings: a screen clear, an
# OSC 8 hyperlink, a carriage return that overwrites the line, a C1 CSI (U+009B), a right-to-left
# override, and a newline followed by a forged verdict line.
HOSTILE = (
    "evil\x1b[2J\x1b]8;;https://evil.example/\x07link\x1b]8;;\x07\rPASS\u009b31m"
    "\u202etxt.exe\nresult: ok"
)
# HTML that would run script if a page put it in markup raw: in every hello string and as links.
HOSTILE_HTML = (
    "<script>alert(1)</script><img src=x onerror=alert(2)>\"'</td></tr><svg onload=alert(3)>"
)
# Markdown that would open blocks, raw HTML and an image if pasted into a report raw.
HOSTILE_MD = (
    "<img src=x onerror=alert(1)>\n# Injected heading\n![x](https://evil.example/x.png)\n"
    "```\n| a | b |\n"
)


def note_pid(pid):
    path = os.environ.get("HC_PIDFILE")
    if path:
        with open(path, "a") as f:
            f.write("%d\n" % pid)


def send(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def hello():
    keywords = ["type", "properties"]
    if MODE == "typo-keyword":
        # One letter off: every case using `properties` would silently skip if this were accepted.
        keywords = ["type", "propertie"]
    name = "misbehaving-" + MODE
    if MODE == "many-names":
        # 45,000 keywords the vocabulary does not have, in a hello under the size bound: each
        # was a line of the handshake error.
        keywords = ["zz"] * 45000
    if MODE in ("hostile-text", "hostile-markdown"):
        name = HOSTILE if MODE == "hostile-text" else HOSTILE_MD
        # Enough keywords that the cases reach the adapter (it answers every one hostilely).
        keywords += ["required", "additionalProperties", "items", "enum", "minimum", "maxLength"]
    elif MODE == "long-name":
        name = "N" * (200 * 1024)
    hello = {
        "protocol": 1,
        "implementation": {"name": name, "language": "python", "version": "0"},
        "capabilities": {"cap": None, "keywords": keywords},
    }
    if MODE == "hostile-html":
        # Every implementation string a page shows, and links no page may make live.
        keywords += ["required", "additionalProperties", "items", "enum", "minimum", "maxLength"]
        hello["implementation"] = {
            "name": HOSTILE_HTML,
            "language": "py<script>alert(4)</script>",
            "version": '1"><script>alert(5)</script>',
            "homepage": "javascript:alert(6)",
            "source": "data:text/html,<script>alert(7)</script>",
            "issues": 'https://example.invalid/"onmouseover="alert(8)',
        }
        hello["capabilities"]["codes"] = {"invalid_arguments": HOSTILE_HTML}
    if MODE == "big-text":
        # An MCP client, so that the content-block cases reach it.
        hello["capabilities"]["features"] = ["mcp-client"]
    if MODE == "huge-hello":
        # 600 KB of repeated (valid) keywords: kept by the runner for the whole run.
        hello["capabilities"]["keywords"] = ["type", "properties"] * 25000
    return hello


def answer(seq, case):
    results = [
        {"tool_use_id": call.get("id"), "is_error": False, "content": "ok"}
        for call in case["calls"]
    ]
    return {"seq": seq, "case": case["id"], "results": results, "invocations": []}


def misbehave(seq, case):
    if MODE == "hang":
        time.sleep(3600)
    elif MODE == "hang-with-child":
        # A child in the adapter's process group: killing the group must kill it too.
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        note_pid(child.pid)
        time.sleep(3600)
    elif MODE == "setsid-child":
        # A child that leaves the process group (its own session) but keeps stdout open.
        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(3600)"], start_new_session=True
        )
        note_pid(child.pid)
        time.sleep(3600)
    elif MODE == "double-fork":
        # A daemon's double fork: the child leaves the session and forks a grandchild that
        # keeps the adapter's stdin (and nothing else), then exits, orphaning it. No link to
        # the adapter is left: not the parent, not the group, not stdout or stderr. Then the
        # adapter answers as if nothing happened.
        ready_r, ready_w = os.pipe()
        child = os.fork()
        if child == 0:
            os.setsid()
            if os.fork() == 0:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
                note_pid(os.getpid())
                os.write(ready_w, b"x")
                time.sleep(3600)
                os._exit(0)
            os._exit(0)
        os.close(ready_w)
        os.waitpid(child, 0)
        os.read(ready_r, 1)  # the grandchild has noted its pid
        os.close(ready_r)
        send(answer(seq, case))
    elif MODE == "write-ahead":
        # The right answer, then hundreds of MiB of lines nobody asked for: a runner that
        # queues what it has not asked for grows by all of it.
        send(answer(seq, case))
        line = "{" + "x" * (512 * 1024) + "}\n"
        for _ in range(768):
            sys.stdout.write(line)
        sys.stdout.flush()
        time.sleep(3600)
    elif MODE in ("many-values", "values-under"):
        # Small values cost the runner far more than their text: a history of one-member
        # objects, just over (or, for the memory benchmark, just under) the runner's count.
        reply = answer(seq, case)
        reply["history"] = [{"a": 1}] * (40000 if MODE == "many-values" else 32000)
        send(reply)
    elif MODE in ("many-results", "more-results"):
        # 100,000 results is also over the count of JSON values; 2,000 only over the results.
        reply = answer(seq, case)
        reply["results"] = reply["results"] * (100000 if MODE == "many-results" else 2000)
        send(reply)
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


def hostile_reply(seq, case):
    """Adapter-supplied text in every field the runner prints: skip and error reasons."""
    text = {"hostile-text": HOSTILE, "hostile-html": HOSTILE_HTML}.get(MODE, HOSTILE_MD)
    if case["id"].endswith("/error") or case["id"].startswith("calls/"):
        return {"seq": seq, "case": case["id"], "error": "adapter broke: " + text}
    return {"seq": seq, "case": case["id"], "skip": "cannot express: " + text}


def main():
    if MODE == "stop-reading":
        # A 4 KiB stdin pipe (Linux; also what a user whose pipe quota is used up gets).
        try:
            import fcntl

            fcntl.fcntl(0, 1031, 4096)  # F_SETPIPE_SZ
        except (ImportError, OSError):
            pass
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
            if os.environ.get("HC_STARTFILE"):
                with open(os.environ["HC_STARTFILE"], "a") as f:
                    f.write("%d\n" % os.getpid())
            if MODE == "exit-handshake":
                sys.stderr.write("adapter: giving up during the handshake\n")
                sys.stderr.flush()
                os._exit(1)
            if MODE == "hang-handshake":
                time.sleep(3600)
            send(hello())
        elif cmd == "run":
            case = msg["case"]
            if MODE in ("hostile-text", "hostile-markdown", "hostile-html"):
                send(hostile_reply(msg["seq"], case))
            elif MODE == "big-text":
                # Every result a 4 MiB text: the checks run over all of it.
                reply = answer(msg["seq"], case)
                for r in reply["results"]:
                    r["content"] = "z" * (4 << 20)
                send(reply)
            elif MODE == "many-texts":
                # A thousand distinct 2.5 KB results for every case, whatever its calls.
                reply = answer(msg["seq"], case)
                reply["results"] = [
                    {"tool_use_id": "toolu_%d" % i, "is_error": False,
                     "content": ("%s %d " % (case["id"], i)) * 200}
                    for i in range(1000)
                ]
                send(reply)
            elif MODE == "fat":
                # Every case answered with a 60 MiB result (the memory benchmark's adapter).
                reply = answer(msg["seq"], case)
                reply["results"][0]["content"] = "F" * (60 * 1024 * 1024)
                send(reply)
            elif case["id"].endswith("/trigger"):
                misbehave(msg["seq"], case)
            else:
                send(answer(msg["seq"], case))
                if MODE == "stop-reading" and case["id"].endswith("/before"):
                    # Alive, but never reads stdin again.
                    time.sleep(3600)
        elif cmd == "stop":
            return


if __name__ == "__main__":
    main()
