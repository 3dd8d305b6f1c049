#!/usr/bin/env python3
"""Checks the matrix site as headless Chromium rendered it: DOM assertions on the page Chromium
dumped (`chromium --headless --dump-dom`, so after the page's script ran), not pixel colours.
One check per feature a reader relies on (issue 29's list), so a feature that goes missing fails.

usage: check_site.py index DUMPED.html [--baselined SLUG] [--area A] [--lang L] [--opened]
                            [--viewer SLUG] HARNESS...
       check_site.py harness DUMPED.html [--history | --earlier | --standalone] [--failures]
       check_site.py badge BADGE.json
       check_site.py size SITE_DIR

`index`: the harness summary (verdict word, scores, run date, suite, http-only links), the
viewer's drop zone, the teaching table, the filters, one anchored column per HARNESS with its run
date and suite, anchored area and requirement rows with one status cell per harness, a verdict
word that is green only beside a 100% MUST, and baselined failures shown as failures. With
`--baselined SLUG` that harness must have a baselined failing cell; `--area`/`--lang`: the page
was opened with that filter in its URL and shows only its rows/columns; `--opened`: it was opened
with `?all=1`, so the case rows were loaded on demand and are shown; `--viewer SLUG`: a saved
report of SLUG's run was chosen in the report viewer (ci/site_viewer.py), which must show it as
a row and a column saying what the published ones say. `harness`: implementation,
links, run date, suite, the verdict and gate, capabilities as a table, MUST and SHOULD badges
with a preview and snippets, every unexpected result anchored, in plain words, linked to its
requirements and with a reproducer that names no local path; `--history`: the history table;
`--earlier`: an earlier run's page (no badges); `--standalone`: `report --format html` (no
badges, nothing loaded, the run's own reproducers); `--failures`: it lists unexpected results.
`badge`: a shields.io endpoint document. `size`: index.html stays small as columns grow (the
case level lives in data/*.js). Every page is also checked script-safe: no script but the site's
own, no event-handler attribute, no link that is not http(s) or the site's own.
Python standard library only.
"""
import argparse
import json
import os
import re
import sys
from html.parser import HTMLParser

# Attributes that hold a URL, and the schemes a page may link to.
URL_ATTRS = ("href", "src", "action", "formaction", "srcdoc", "data", "xlink:href")
WORDS = {"NO HANDSHAKE", "FAILS MUST", "ERRORS", "INCOMPLETE", "NOT TESTED", "MEETS MUST"}
STATUS_CLASSES = {"p", "f", "nt", "ne", "na", "no"}
DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class Dom(HTMLParser):
    """A list of elements: (tag, attributes, text inside it, parent index)."""

    def __init__(self):
        super().__init__()
        self.elements = []
        self.stack = []

    def handle_starttag(self, tag, attrs):
        parent = self.stack[-1]["index"] if self.stack else None
        element = {"tag": tag, "attrs": dict(attrs), "text": "", "parent": parent, "index": len(self.elements)}
        self.elements.append(element)
        if tag not in ("meta", "input", "br", "link", "img", "col", "hr", "source", "wbr"):
            self.stack.append(element)

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()["tag"] == tag:
                break

    def handle_data(self, data):
        for element in self.stack:
            element["text"] += data

    def children(self, e, tag=None):
        return [c for c in self.elements if c["parent"] == e["index"] and (tag is None or c["tag"] == tag)]

    def inside(self, e, ancestor):
        p = e["parent"]
        while p is not None:
            if p == ancestor["index"]:
                return True
            p = self.elements[p]["parent"]
        return False


def classes(e):
    return e["attrs"].get("class", "").split()


def hidden(e):
    return "hidden" in classes(e) or "hidden" in e["attrs"]


def select(dom, tag=None, cls=None, within=None, **attrs):
    out = []
    for e in dom.elements:
        if tag and e["tag"] != tag:
            continue
        if cls and cls not in classes(e):
            continue
        if any(e["attrs"].get(k.replace("_", "-")) != v for k, v in attrs.items()):
            continue
        if within is not None and not dom.inside(e, within):
            continue
        out.append(e)
    return out


def one(dom, what, **kw):
    found = select(dom, **kw)
    expect(len(found) == 1, f"expected one {what}, found {len(found)}")
    return found[0] if found else None


problems = []


def expect(ok, what):
    if not ok:
        problems.append(what)


def load(path):
    dom = Dom()
    with open(path, encoding="utf-8") as f:
        dom.feed(f.read())
    return dom


def check_safe(dom, root):
    """Script-safe: the site's own scripts only, no inline handler, no script or data URL."""
    for e in dom.elements:
        if e["tag"] == "script":
            src = e["attrs"].get("src", "")
            ok = src in (root + "site.js",) or (src.startswith(root + "data/") and src.endswith(".js"))
            expect(ok and not e["text"].strip(), f"a script that is not the site's own: src={src!r}")
        for name, value in e["attrs"].items():
            expect(not name.startswith("on"), f"an event-handler attribute {name!r} on <{e['tag']}>")
            if name in URL_ATTRS and value is not None:
                v = value.strip().lower()
                expect(
                    "://" not in v or v.startswith(("http://", "https://")),
                    f"<{e['tag']} {name}={value[:60]!r}>: not an http(s) URL",
                )
                expect(not v.startswith(("javascript:", "data:", "vbscript:")), f"<{e['tag']} {name}={value[:60]!r}>")
                if e["tag"] in ("script", "img", "link", "iframe", "embed", "object"):
                    expect("://" not in v and not v.startswith("//"), f"an external resource: {value[:60]!r}")
    expect(not select(dom, "iframe") and not select(dom, "object") and not select(dom, "embed"), "an embedded frame")


def check_index(path, args):
    dom = load(path)
    check_safe(dom, "")
    harnesses = args.harnesses
    # The summary first: one row per harness.
    summary = one(dom, "table #harnesses", tag="table", id="harnesses")
    for h in harnesses:
        row = select(dom, "tr", id=f"h-{h}")
        expect(row, f"no summary row #h-{h}")
        if not row:
            continue
        row = row[0]
        cells = dom.children(row, "td")
        verdict = [c for c in cells if "verdict" in classes(c)]
        expect(verdict, f"{h}: no verdict cell")
        word = select(dom, "b", "word", within=verdict[0]) if verdict else []
        expect(word and word[0]["text"].strip() in WORDS, f"{h}: verdict word {word and word[0]['text']!r}")
        must = [c for c in cells if "must" in classes(c)]
        expect(must, f"{h}: no MUST score")
        if verdict and must:
            green = "p" in classes(verdict[0])
            expect(not green or must[0]["text"].strip() == "100%",
                   f"{h}: a green verdict beside MUST {must[0]['text'].strip()}")
        expect(any(DAY.match(c["text"].strip()) for c in cells), f"{h}: no run date in its summary row")
        for a in select(dom, "a", within=row):
            if "data-link" in a["attrs"]:
                expect(a["attrs"].get("href", "").startswith(("http://", "https://")), f"{h}: a live non-http link")
    expect(summary is None or summary["index"] < min(
        (e["index"] for e in select(dom, "table", id="grid")), default=10**9), "the summary is not before the grid")
    # The report viewer: a drop zone and a file input, nothing that sends.
    expect(select(dom, "div", id="drop") and select(dom, "input", id="drop-file"), "no report viewer drop zone")
    expect(not select(dom, "form"), "a form on the index")
    expect(select(dom, "table", id="teaching"), "no teaching table")
    # Filters, kept in the URL (the permalink says the state).
    for control in ("f-text", "f-must", "f-should", "f-may", "f-bad", "f-cases"):
        expect(select(dom, "input", id=control), f"no filter control #{control}")
    for control in ("f-lang", "f-area"):
        expect(select(dom, "select", id=control), f"no filter #{control}")
    langs = [o["attrs"].get("value") for s in select(dom, "select", id="f-lang") for o in dom.children(s, "option")]
    expect(len(langs) >= 2, f"the language filter offers {langs}")
    permalink = select(dom, "a", id="permalink")
    expect(permalink, "no permalink")
    # The grid: a column per harness, anchored, with its version, run date and suite.
    grid = one(dom, "table #grid", tag="table", id="grid")
    heads = [th for th in (select(dom, "th", "harness", within=grid) if grid else []) if "local" not in classes(th)]
    slugs = [e["attrs"].get("data-slug") for e in heads]
    expect(sorted(slugs) == sorted(harnesses), f"harness columns {slugs}, expected {harnesses}")
    for th in heads:
        slug = th["attrs"].get("data-slug")
        expect(th["attrs"].get("id") == f"col-{slug}", f"column {slug} has no anchor")
        when = select(dom, "small", "when", within=th)
        expect(when and DAY.match(when[0]["text"].split("·")[0].strip() or "-"),
               f"column {slug}: no run date ({when and when[0]['text']!r})")
        expect(when and "·" in when[0]["text"] and when[0]["text"].split("·")[1].strip(), f"column {slug}: no suite version")
        expect(select(dom, "a", within=th, href=f"harness/{slug}.html"), f"column {slug}: no link to its page")
    areas = select(dom, "tbody", within=grid) if grid else []
    expect(areas, "no area groups")
    for tb in areas:
        expect(tb["attrs"].get("id") == f"area-{tb['attrs'].get('data-area')}", "an area group without an anchor")
    reqs = select(dom, "tr", "req", within=grid) if grid else []
    expect(reqs, "no requirement rows")
    cells = []
    for tr in reqs:
        rid = tr["attrs"].get("id")
        expect(rid and select(dom, "a", within=tr, href=f"#{rid}"), f"requirement row {rid} has no anchor link")
        tds = dom.children(tr, "td")[1:]  # the level first
        if args.viewer:
            mine = tds.pop()  # the dropped report's column comes last
            theirs = tds[slugs.index(args.viewer)] if args.viewer in slugs and len(tds) == len(slugs) else None
            expect(theirs is not None and classes(mine) == classes(theirs)
                   and bool(select(dom, "i", "bl", within=mine)) == bool(select(dom, "i", "bl", within=theirs)),
                   f"row {rid}: the viewer shows {classes(mine)}, the published column {theirs and classes(theirs)}")
        expect(len(tds) == len(harnesses), f"row {rid}: {len(tds)} status cells for {len(harnesses)} harnesses")
        cells += tds
    statuses = [(classes(c) or ["?"])[0] for c in cells]
    expect(all(s in STATUS_CLASSES for s in statuses), f"unknown status classes {set(statuses) - STATUS_CLASSES}")
    expect("p" in statuses, "no passing requirement cell")
    expect(any(s != "p" for s in statuses), "every requirement cell passes: the grid shows no difference")
    # The truth, not the baseline: a baselined mark sits only on a failing or untestable cell.
    for c in cells:
        if select(dom, "i", "bl", within=c):
            expect(classes(c)[:1] in (["f"], ["nt"]), f"a baselined cell shown as {classes(c)}: {c['text']!r}")
    if args.baselined:
        col = slugs.index(args.baselined) if args.baselined in slugs else None
        expect(col is not None, f"no column {args.baselined}")
        if col is not None:
            own = [dom.children(tr, "td")[1 + col] for tr in reqs if len(dom.children(tr, "td")) > 1 + col]
            expect(any("f" in classes(c) and select(dom, "i", "bl", within=c) for c in own),
                   f"{args.baselined}: no baselined failure shown as a failure")
    # The report viewer, after site_viewer.py chose a saved report of the harness `--viewer`
    # names: a row and a column of its own, with the same word, scores and gate the published
    # row shows for that run (site.js and verdict.rs give one answer).
    if args.viewer:
        local = select(dom, "tr", "local", within=summary) if summary else []
        expect(len(local) == 1, f"the viewer added {len(local)} summary rows")
        published = select(dom, "tr", id=f"h-{args.viewer}")
        if local and published:
            def said(row):
                cells = dom.children(row, "td")
                verdict = [c for c in cells if "verdict" in classes(c)]
                parts = [" ".join(e["text"].split()) for e in select(dom, None, within=verdict[0]) if e["tag"] in ("b", "small")] if verdict else []
                return {
                    "class": verdict and classes(verdict[0]),
                    "verdict": parts,
                    "must": [c["text"].strip() for c in cells if "must" in classes(c)],
                    "should": [c["text"].strip() for c in cells if "should" in classes(c)],
                    "day": [c["text"].strip() for c in cells if DAY.match(c["text"].strip())],
                }
            expect(said(local[0]) == said(published[0]),
                   f"the viewer says {said(local[0])}, the published row {said(published[0])}")
        expect(select(dom, "th", "local", within=grid) if grid else False, "the viewer added no column")
        status = select(dom, "p", id="drop-status")
        expect(status and status[0]["text"].startswith("Shown:"), f"the viewer says {status and status[0]['text']!r}")
    # Filters from the URL.
    if args.area:
        for tb in areas:
            shown = tb["attrs"].get("data-area") == args.area
            expect(hidden(tb) != shown, f"?area={args.area}: area {tb['attrs'].get('data-area')} hidden={hidden(tb)}")
    if args.lang:
        for th in heads:
            expect(hidden(th) != (th["attrs"].get("data-lang") == args.lang),
                   f"?lang={args.lang}: column {th['attrs'].get('data-slug')} hidden={hidden(th)}")
        for tr in select(dom, "tr", within=summary) if summary else []:
            if tr["attrs"].get("data-lang"):
                expect(hidden(tr) != (tr["attrs"]["data-lang"] == args.lang), f"?lang={args.lang}: summary row {tr['attrs'].get('id')}")
    if args.area or args.lang:
        href = permalink[0]["attrs"].get("href", "") if permalink else ""
        for key, value in (("area", args.area), ("lang", args.lang)):
            if value:
                expect(f"{key}={value}" in href, f"the permalink {href!r} does not keep {key}={value}")
    # The case level, loaded on demand.
    cases = select(dom, "tr", "case", within=grid) if grid else []
    verdicts = {e["attrs"]["data-verdict"] for e in dom.elements if "data-verdict" in e["attrs"]}
    if args.opened:
        expect(cases, "?all=1 opened no case rows (did data/*.js load?)")
        expect(not any(hidden(c) for c in cases), "case rows hidden though every requirement is open")
        expect("PASS" in verdicts and len(verdicts) > 1, f"case verdicts shown: {sorted(verdicts)}")
        fails = [e for e in dom.elements if e["attrs"].get("data-verdict") == "FAIL" and e["tag"] == "td"]
        for td in fails:
            a = select(dom, "a", within=td)
            expect(a and re.match(r"^harness/[^/]+\.html#case-", a[0]["attrs"].get("href", "")),
                   "a failing case cell with no link to its failure")
    else:
        expect(all(hidden(c) for c in cases), "case rows shown though no requirement is open")


def check_harness(path, args):
    dom = load(path)
    check_safe(dom, "../")
    if args.standalone:
        expect(not select(dom, "script") and not select(dom, "link"), "a standalone page that loads something")
        args.earlier = True  # no badges either
    for cell in ("impl-name", "impl-version", "impl-language", "run-date", "suite"):
        expect(select(dom, "td", id=cell), f"no #{cell}")
    date = select(dom, "td", id="run-date")
    expect(date and re.match(r"^\d{4}-\d{2}-\d{2}T", date[0]["text"].strip()), "no run date")
    for tr in select(dom, "tr", "link"):
        for a in select(dom, "a", within=tr):
            expect(a["attrs"].get("href", "").startswith(("http://", "https://")), "a live link that is not http(s)")
    verdict = one(dom, "#verdict", tag="div", id="verdict")
    if verdict:
        word = select(dom, "b", "word", within=verdict)
        expect(word and word[0]["text"].strip() in WORDS, f"verdict word {word and word[0]['text']!r}")
        expect(select(dom, "span", "gate", within=verdict), "no gate line")
    caps = select(dom, "table", id="caps")
    expect(caps, "capabilities are not a table")
    expect(not any(e["text"].lstrip().startswith("{\"") for e in select(dom, "pre")), "capabilities as raw JSON")
    badges = select(dom, "div", "badge")
    expected = set() if args.earlier else {"MUST", "SHOULD"}
    expect({b["attrs"].get("data-level") for b in badges} == expected, f"badges {badges and [b['attrs'] for b in badges]}")
    for b in badges:
        img = select(dom, "img", within=b)
        expect(img and img[0]["attrs"].get("src", "").endswith(".svg") and img[0]["attrs"].get("alt"), "a badge without a preview")
        kinds = {p["attrs"].get("data-kind") for p in select(dom, "pre", within=b)}
        expect(kinds == {"markdown", "html"}, f"badge snippets {kinds}")
        expect(len(select(dom, "button", "copy", within=b)) == 2, "badge snippets without copy buttons")
    result = select(dom, "span", "gate")
    failures = select(dom, "div", "failure")
    if result and result[0]["attrs"].get("data-gate") == "red":
        why = verdict["text"].split("gate red", 1)[-1].strip(" :") if verdict else ""
        expect(failures or why, "a red gate that neither lists a failure nor says why")
    for f in failures:
        fid = f["attrs"].get("id", "")
        expect(fid.startswith("case-"), "a failure without an anchor")
        expect(select(dom, "a", "case", within=f, href=f"#{fid}"), f"failure {fid}: no link to itself")
        means = select(dom, "p", "means", within=f)
        expect(means and means[0]["text"].strip(), f"failure {fid}: not said in plain words")
        reqs = select(dom, "a", "req", within=f)
        expect(reqs, f"failure {fid}: no link to a requirement")
        for a in reqs:
            target = a["attrs"].get("href", "")[1:]
            expect(select(dom, "tr", id=target), f"failure {fid}: links {target}, which is not on the page")
        expect(select(dom, "code", "show", within=f), f"failure {fid}: no way to see the case")
        rep = select(dom, "pre", "reproduce", within=f)
        expect(rep and "harness-conformance run" in rep[0]["text"], f"failure {fid} has no reproducer")
        expect(args.standalone or (rep and not re.search(r"(^|[\s'\"=])(/|~/)", rep[0]["text"])),
               f"failure {fid}: a local path in {rep and rep[0]['text']!r}")
    expect(failures or not args.failures, "no unexpected result listed")
    if args.history:
        runs = select(dom, "tr", "run")
        expect(len(runs) >= 2, f"history with {len(runs)} runs")
        for r in runs:
            tds = dom.children(r, "td")
            expect(len(tds) >= 2 and DAY.match(tds[1]["text"].strip()), "a history row without a run date")
        expect(select(dom, "td", "changes"), "history without what changed")


def check_badge(path):
    with open(path, encoding="utf-8") as f:
        badge = json.load(f)
    expect(badge.get("schemaVersion") == 1, "badge schemaVersion is not 1")
    expect(badge.get("label") in ("MUST", "SHOULD"), f"badge label {badge.get('label')!r}")
    expect(isinstance(badge.get("message"), str) and badge.get("color"), f"badge {badge}")
    expect(len(json.dumps(badge)) < 300, "a badge document larger than a badge")


def check_size(site):
    """index.html holds no case level: it grows by at most a few KiB per column."""
    columns = len([n for n in os.listdir(os.path.join(site, "data")) if n.endswith(".js") and n != "cases.js"])
    size = os.path.getsize(os.path.join(site, "index.html"))
    bound = 128 * 1024 + 16 * 1024 * columns
    expect(size <= bound, f"index.html is {size} bytes for {columns} columns (bound {bound})")
    print(f"check_site: {site}: index.html {size} bytes for {columns} columns")


def main(argv):
    if len(argv) < 3 or argv[1] not in ("index", "harness", "badge", "size"):
        sys.exit(__doc__)
    kind, path = argv[1], argv[2]
    if kind == "index":
        p = argparse.ArgumentParser(prog="check_site.py index")
        p.add_argument("--baselined")
        p.add_argument("--area")
        p.add_argument("--lang")
        p.add_argument("--opened", action="store_true")
        p.add_argument("--viewer")
        p.add_argument("harnesses", nargs="+")
        check_index(path, p.parse_args(argv[3:]))
    elif kind == "harness":
        p = argparse.ArgumentParser(prog="check_site.py harness")
        p.add_argument("--history", action="store_true")
        p.add_argument("--earlier", action="store_true")
        p.add_argument("--failures", action="store_true")
        p.add_argument("--standalone", action="store_true")
        check_harness(path, p.parse_args(argv[3:]))
    elif kind == "badge":
        check_badge(path)
    else:
        check_size(path)
    if problems:
        for problem in problems:
            print(f"check_site: {path}: {problem}", file=sys.stderr)
        sys.exit(1)
    print(f"check_site: {path}: ok ({kind})")


if __name__ == "__main__":
    main(sys.argv)
