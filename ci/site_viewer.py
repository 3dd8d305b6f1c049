#!/usr/bin/env python3
"""Drops a saved report onto the matrix site's report viewer in headless Chromium, and writes the
page's DOM after the viewer showed it: what a reader sees after choosing their `report.json`.

usage: site_viewer.py INDEX.html REPORT.json DUMPED.html

`--dump-dom` cannot choose a file, so this drives Chromium over the DevTools protocol on a pipe
(`--remote-debugging-pipe`: commands on fd 3, answers on fd 4, each a JSON message ended by a NUL
byte): open the page, set the viewer's file input to REPORT (`DOM.setFileInputFiles`, which fires
its `change` event as a reader's choice does), wait until the viewer says what it showed
(`#drop-status`), and write `document.documentElement.outerHTML`. ci/check_site.py then checks the
dump (`index --viewer`). Python standard library only.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

TIMEOUT = 30.0


class Chromium:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="site-viewer-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():  # the child's fd 3 reads our commands, its fd 4 writes its answers
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={self.profile}", "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, pass_fds=(3, 4),  # kept in the child: the dup2ed pipe ends
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_chrome, 1 << 16)
                if not chunk:
                    sys.exit(f"site_viewer: chromium closed the pipe during {method}")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    sys.exit(f"site_viewer: {method}: {answer['error']}")
                return answer.get("result", {})
        sys.exit(f"site_viewer: no answer to {method} within {TIMEOUT}s")

    def close(self):
        self.proc.kill()
        self.proc.wait()
        subprocess.run(["rm", "-rf", self.profile], check=False)


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    index, report, dumped = (os.path.abspath(a) for a in argv[1:])
    chrome = Chromium()
    try:
        target = chrome.send("Target.createTarget", {"url": "file://" + index})["targetId"]
        session = chrome.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

        def evaluate(expression):
            result = chrome.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
            return result.get("result", {}).get("value")

        deadline = time.monotonic() + TIMEOUT
        # The new target starts at about:blank: wait for the page itself, loaded, script run.
        ready = "document.readyState === 'complete' && !!document.getElementById('drop-file')"
        while not evaluate(ready) and time.monotonic() < deadline:
            time.sleep(0.1)
        root = chrome.send("DOM.getDocument", {}, session)["root"]["nodeId"]
        node = chrome.send("DOM.querySelector", {"nodeId": root, "selector": "#drop-file"}, session)["nodeId"]
        if not node:
            sys.exit("site_viewer: the page has no #drop-file input")
        chrome.send("DOM.setFileInputFiles", {"nodeId": node, "files": [report]}, session)
        status = ""
        while not status and time.monotonic() < deadline:
            time.sleep(0.1)
            status = evaluate("document.getElementById('drop-status').textContent") or ""
        if not status:
            sys.exit("site_viewer: the viewer said nothing after the file was chosen")
        with open(dumped, "w", encoding="utf-8") as f:
            f.write(evaluate("document.documentElement.outerHTML"))
        print(f"site_viewer: {os.path.basename(report)}: {status}")
    finally:
        chrome.close()


if __name__ == "__main__":
    main(sys.argv)
