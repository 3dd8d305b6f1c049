#!/usr/bin/env python3
"""Checks the matrix site as headless Chromium rendered it: DOM assertions on the page Chromium
dumped (`chromium --headless --dump-dom`, so after the page's script ran), not pixel colours.

usage: check_site.py index DUMPED.html HARNESS [HARNESS ...]
       check_site.py harness DUMPED.html
       check_site.py badge BADGE.json

`index`: one column per HARNESS, the summary and teaching tables, the filters, area rows and
requirement rows with a status cell per harness, case rows collapsed by the script, at least one
passing and one non-passing cell. `harness`: the metadata table, the result, and every failure
with a reproducer. `badge`: a shields.io endpoint document. Python standard library only.
"""
import json
import sys
from html.parser import HTMLParser


class Dom(HTMLParser):
    """A flat list of elements: (tag, attributes, text inside it up to the next element)."""

    def __init__(self):
        super().__init__()
        self.elements = []
        self.stack = []

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.elements.append(element)
        if tag not in ("meta", "input", "br", "link", "img"):
            self.stack.append(element)

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()["tag"] == tag:
                break

    def handle_data(self, data):
        for element in self.stack:
            element["text"] += data


def classes(e):
    return e["attrs"].get("class", "").split()


def select(dom, tag=None, cls=None, **attrs):
    out = []
    for e in dom.elements:
        if tag and e["tag"] != tag:
            continue
        if cls and cls not in classes(e):
            continue
        if any(e["attrs"].get(k.replace("_", "-")) != v for k, v in attrs.items()):
            continue
        out.append(e)
    return out


problems = []


def expect(ok, what):
    if not ok:
        problems.append(what)


def load(path):
    dom = Dom()
    with open(path, encoding="utf-8") as f:
        dom.feed(f.read())
    return dom


def check_index(path, harnesses):
    dom = load(path)
    heads = [e["attrs"].get("data-harness") for e in select(dom, "th", "harness")]
    expect(sorted(heads) == sorted(harnesses), f"harness columns {heads}, expected {harnesses}")
    for table in ("summary", "teaching", "grid"):
        expect(select(dom, "table", id=table), f"no table #{table}")
    for control in ("f-text", "f-must", "f-should", "f-bad", "f-cases"):
        expect(select(dom, "input", id=control), f"no filter control #{control}")
    levels = {e["attrs"].get("data-level") for e in select(dom, "tr", "level-summary")}
    expect(levels == {"MUST", "SHOULD"}, f"MUST/SHOULD summary rows: {levels}")
    expect(select(dom, "tr", "area"), "no area rows")
    reqs = select(dom, "tr", "req")
    expect(reqs, "no requirement rows")
    statuses = [e["attrs"].get("data-status") for e in dom.elements if "data-status" in e["attrs"]]
    expect(len(statuses) == len(reqs) * len(harnesses),
           f"{len(statuses)} requirement cells for {len(reqs)} rows × {len(harnesses)} harnesses")
    expect("PASS" in statuses, "no passing requirement cell")
    expect(any(s != "PASS" for s in statuses), "every requirement cell passes: the grid shows no difference")
    cases = select(dom, "tr", "case")
    expect(cases, "no case rows")
    expect(all("hidden" in classes(c) for c in cases), "case rows are not collapsed (did the script run?)")
    verdicts = {e["attrs"]["data-verdict"] for e in dom.elements if "data-verdict" in e["attrs"]}
    expect("PASS" in verdicts and len(verdicts) > 1, f"case verdicts shown: {sorted(verdicts)}")
    links = [e["attrs"].get("href", "") for e in select(dom, "a")]
    for h in harnesses:
        expect(f"harness/{h}.html" in links, f"no link to harness/{h}.html")


def check_harness(path):
    dom = load(path)
    expect(select(dom, "td", id="impl-name"), "no implementation name")
    expect(select(dom, "td", id="impl-version"), "no implementation version")
    result = select(dom, "td", id="result")
    expect(result, "no result")
    failures = select(dom, "div", "failure")
    if result and "FAILED" in result[0]["text"]:
        expect(failures, "a failed run with no failure listed")
    for f in failures:
        expect(f["attrs"].get("id", "").startswith("case-"), "a failure without an anchor")
        expect("harness-conformance run" in f["text"], f"failure {f['attrs'].get('id')} has no reproducer")


def check_badge(path):
    with open(path, encoding="utf-8") as f:
        badge = json.load(f)
    expect(badge.get("schemaVersion") == 1, "badge schemaVersion is not 1")
    expect(badge.get("label") == "MUST", f"badge label {badge.get('label')!r}")
    expect(isinstance(badge.get("message"), str) and badge.get("color"), f"badge {badge}")


def main(argv):
    if len(argv) < 3 or argv[1] not in ("index", "harness", "badge"):
        sys.exit(__doc__)
    kind, path = argv[1], argv[2]
    if kind == "index":
        check_index(path, argv[3:])
    elif kind == "harness":
        check_harness(path)
    else:
        check_badge(path)
    if problems:
        for p in problems:
            print(f"check_site: {path}: {p}", file=sys.stderr)
        sys.exit(1)
    print(f"check_site: {path}: ok ({kind})")


if __name__ == "__main__":
    main(sys.argv)
