// The matrix site's script: filters kept in the URL, case rows loaded on demand, badge snippets
// to copy, and a viewer for a report of your own. No dependency and no network: the case data
// are scripts of this site (data/*.js, loaded as <script> so a page opened from disk works too),
// and a dropped report is read with FileReader and never leaves the browser (the pages' CSP says
// connect-src 'none'). Everything added to a page is built with textContent, never markup.
// The verdict rules for a dropped report mirror report/src/site/verdict.rs (standing, caseCode).
(function () {
  'use strict';
  var doc = document;
  function $(id) { return doc.getElementById(id); }
  function each(list, f) { Array.prototype.forEach.call(list, f); }
  function el(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function cut(s, max) {
    s = String(s);
    return s.length <= max ? s : s.slice(0, max - 1) + '…';
  }

  // Badge snippets: copy the text of the snippet a button names.
  each(doc.querySelectorAll('button.copy'), function (b) {
    b.addEventListener('click', function () {
      var text = $(b.getAttribute('data-for')).textContent;
      var done = function () { b.textContent = 'copied'; };
      if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, function () {});
    });
  });

  var grid = $('grid');
  if (!grid) return;

  // ---- columns: the published ones from the grid's head; a dropped report adds one.
  var OFFSET = 2; // requirement and level come first
  var cols = [];
  var bySlug = {};
  each(grid.tHead.rows[0].querySelectorAll('th.harness'), function (th, i) {
    var c = { slug: th.getAttribute('data-slug'), lang: th.getAttribute('data-lang'), index: i, shown: true };
    cols.push(c);
    bySlug[c.slug] = c;
  });

  // ---- case data, loaded on demand as scripts of the site.
  var HC = (window.HC = {});
  var order = null; // every case, in the grid's order
  var byReq = null; // requirement id -> positions in `order`
  var requested = {};
  function load(src) {
    if (requested[src]) return;
    requested[src] = true;
    var s = doc.createElement('script');
    s.src = src;
    doc.body.appendChild(s);
  }
  HC.cases = function (d) {
    order = d.order;
    byReq = d.by;
    each(grid.querySelectorAll('tr.req.open'), function (tr) { caseRows(tr); });
    apply();
  };
  HC.column = function (slug, d) {
    var c = bySlug[slug];
    if (!c) return;
    c.data = d;
    fillColumn(c);
    apply();
  };

  // What a case's code shows: class, text, the mark beside it (the truth, not the baseline).
  var CASE = {
    P: ['p', 'PASS'], F: ['f', 'FAIL'], B: ['f', 'FAIL', 'baselined'], Q: ['p', 'PASS', 'stale baseline'],
    R: ['f', 'FAIL', 'stale baseline'], S: ['sk', 'SKIP'], N: ['sk', 'SKIP', 'new skip'],
    E: ['er', 'ERROR'], G: ['er', 'BUG IN CASE'], '-': ['no', '·']
  };
  function anchor(id) {
    var out = '';
    for (var ch of id) out += /^[A-Za-z0-9_-]$/.test(ch) ? ch : '-';
    return 'case-' + out;
  }
  function codeOf(c, i) {
    if (c.local) return c.local.codes[order[i]] || '-';
    return c.data ? c.data.v.charAt(i) || '-' : null;
  }
  function messageOf(c, i) {
    if (c.local) return c.local.messages[order[i]] || '';
    return (c.data && c.data.m[i]) || '';
  }
  function fillCell(td, c, i) {
    var code = codeOf(c, i);
    if (code === null) { td.className = 'no'; td.textContent = '…'; return; }
    var shown = CASE[code] || CASE['-'];
    td.className = shown[0];
    td.textContent = '';
    td.setAttribute('data-verdict', shown[1]);
    var message = messageOf(c, i);
    if (message) td.title = message;
    if (!c.local && code !== 'P' && code !== '-' && code !== 'S') {
      var a = el('a', '', shown[1]);
      a.href = 'harness/' + c.slug + '.html#' + anchor(order[i]);
      td.appendChild(a);
    } else {
      td.appendChild(doc.createTextNode(shown[1]));
    }
    if (shown[2]) {
      var mark = el('i', 'bl', shown[2] === 'baselined' ? 'b' : shown[2]);
      mark.title = shown[2];
      td.appendChild(mark);
    }
    td.filled = true;
  }
  function fillColumn(c) {
    each(grid.querySelectorAll('tr.case'), function (tr) {
      var td = tr.cells[OFFSET + c.index];
      if (td && !td.filled) fillCell(td, c, tr.caseAt);
    });
  }
  // The case rows of a requirement row, made once (after data/cases.js has come).
  function caseRows(tr) {
    if (tr.caseRowsMade || !order) return;
    tr.caseRowsMade = true;
    var req = tr.id;
    var after = tr;
    (byReq[req] || []).forEach(function (i) {
      var row = el('tr', 'case');
      row.id = req + ':' + order[i];
      row.setAttribute('data-req', req);
      row.caseAt = i;
      var name = el('td', 'case');
      var self = el('a', '', order[i]);
      self.href = '#' + row.id;
      name.appendChild(self);
      row.appendChild(name);
      row.appendChild(el('td'));
      cols.forEach(function (c) {
        var td = el('td');
        row.appendChild(td);
        fillCell(td, c, i);
      });
      after.parentNode.insertBefore(row, after.nextSibling);
      after = row;
    });
  }
  function open(tr, yes) {
    tr.classList.toggle('open', yes);
    var button = tr.querySelector('button.toggle');
    button.textContent = yes ? '▾' : '▸';
    button.setAttribute('aria-expanded', String(yes));
    if (!yes) return;
    load('data/cases.js');
    caseRows(tr);
    cols.forEach(function (c) { if (c.shown && !c.local) load('data/' + c.slug + '.js'); });
  }

  // ---- filters, kept in the URL's query.
  var f = {
    lang: $('f-lang'), area: $('f-area'), text: $('f-text'), bad: $('f-bad'), all: $('f-cases'),
    MUST: $('f-must'), SHOULD: $('f-should'), MAY: $('f-may')
  };
  var LEVELS = ['MUST', 'SHOULD', 'MAY'];
  var BAD = { f: 1, nt: 1, ne: 1, sk: 1, er: 1 };
  function readURL() {
    var q = new URLSearchParams(location.search);
    f.lang.value = q.get('lang') || '';
    if (f.lang.selectedIndex < 0) f.lang.value = '';
    f.area.value = q.get('area') || '';
    if (f.area.selectedIndex < 0) f.area.value = '';
    var levels = q.get('level');
    LEVELS.forEach(function (l) { f[l].checked = !levels || levels.split(',').indexOf(l) >= 0; });
    f.text.value = q.get('q') || '';
    f.bad.checked = q.get('bad') === '1';
    f.all.checked = q.get('all') === '1';
    (q.get('open') || '').split(',').forEach(function (id) {
      var tr = id && $(id);
      if (tr && tr.classList.contains('req')) open(tr, true);
    });
  }
  function writeURL() {
    var q = new URLSearchParams();
    if (f.lang.value) q.set('lang', f.lang.value);
    if (f.area.value) q.set('area', f.area.value);
    var levels = LEVELS.filter(function (l) { return f[l].checked; });
    if (levels.length < LEVELS.length) q.set('level', levels.join(','));
    if (f.text.value) q.set('q', f.text.value);
    if (f.bad.checked) q.set('bad', '1');
    if (f.all.checked) q.set('all', '1');
    var opened = [];
    each(grid.querySelectorAll('tr.req.open'), function (tr) { opened.push(tr.id); });
    if (opened.length) q.set('open', opened.join(','));
    var search = q.toString() ? '?' + q.toString() : '';
    $('permalink').href = (search || location.pathname.split('/').pop() || 'index.html') + location.hash;
    try { history.replaceState(null, '', location.pathname + search + location.hash); } catch (e) { /* some file:// browsers */ }
  }
  function bad(tr) {
    for (var k = 0; k < cols.length; k++) {
      var td = tr.cells[OFFSET + k];
      if (td && cols[k].shown && BAD[td.className.split(' ')[0]]) return true;
    }
    return false;
  }
  function apply() {
    var lang = f.lang.value;
    cols.forEach(function (c) { c.shown = !lang || c.lang === lang || !!c.local; });
    [grid, $('teaching')].forEach(function (table) {
      if (!table) return;
      each(table.rows, function (tr) {
        var offset = table === grid ? OFFSET : 1;
        if (tr.cells.length < offset + 1 || tr.classList.contains('area')) return;
        cols.forEach(function (c) {
          var cell = tr.cells[offset + c.index];
          if (cell) cell.hidden = !c.shown;
        });
      });
    });
    each($('harnesses').tBodies[0].rows, function (tr) {
      tr.hidden = !!lang && tr.getAttribute('data-lang') !== lang && !tr.classList.contains('local');
    });
    var text = f.text.value.trim().toLowerCase();
    var area = f.area.value;
    each(grid.tBodies, function (tbody) {
      var areaShown = !area || tbody.getAttribute('data-area') === area;
      tbody.hidden = !areaShown;
      if (!areaShown) return;
      var reqShown = false;
      var any = false;
      each(tbody.rows, function (tr) {
        if (tr.classList.contains('area')) return;
        var show;
        if (tr.classList.contains('req')) {
          show = f[tr.getAttribute('data-level')].checked !== false &&
            (!text || tr.cells[0].textContent.toLowerCase().indexOf(text) >= 0) &&
            (!f.bad.checked || bad(tr));
          if (f.all.checked && show && !tr.classList.contains('open')) open(tr, true);
          reqShown = show;
          any = any || show;
        } else {
          var req = $(tr.getAttribute('data-req'));
          show = reqShown && req.classList.contains('open') && (!f.bad.checked || bad(tr));
        }
        tr.classList.toggle('hidden', !show);
      });
      tbody.rows[0].classList.toggle('hidden', !any);
    });
    cols.forEach(function (c) {
      if (c.shown && !c.local && !c.data && grid.querySelector('tr.req.open')) load('data/' + c.slug + '.js');
    });
    writeURL();
  }
  grid.addEventListener('click', function (e) {
    var button = e.target.closest && e.target.closest('button.toggle');
    if (!button) return;
    var tr = button.closest('tr');
    open(tr, !tr.classList.contains('open'));
    apply();
  });
  each($('filters').querySelectorAll('input,select'), function (i) {
    i.addEventListener(i.tagName === 'SELECT' || i.type === 'checkbox' ? 'change' : 'input', apply);
  });
  window.addEventListener('hashchange', writeURL);

  // ---- the report viewer: a saved report, read here, shown beside the published columns.
  var MAX_BYTES = 64 * 1024 * 1024;
  var MAX_CASES = 20000;
  var dropped = 0;
  function say(text) { $('drop-status').textContent = text; }
  function parse(text) {
    var lines = text.split('\n').filter(function (l) { return l.trim(); });
    var start, summary, cases = [];
    lines.forEach(function (line, n) {
      var v;
      try { v = JSON.parse(line); } catch (e) { throw new Error('line ' + (n + 1) + ' is not JSON'); }
      if (!v || typeof v !== 'object') throw new Error('line ' + (n + 1) + ' is not a JSON object');
      if (n === 0) {
        if (v.type !== 'start') throw new Error('the first line is not a start line: not a report of run --format json');
        var format = String(v.report_format || '').split('.');
        if (format[0] !== '2' || !(Number(format[1]) <= 1)) throw new Error('report format ' + cut(v.report_format, 20) + ' is not one this page reads (2.0 to 2.1)');
        start = v;
      } else if (v.type === 'case') {
        if (cases.length === MAX_CASES) throw new Error('more than ' + MAX_CASES + ' cases');
        cases.push(v);
      } else if (v.type === 'summary') {
        summary = v;
      } else {
        throw new Error('line ' + (n + 1) + ' is of an unknown type');
      }
    });
    if (!start) throw new Error('the file is empty');
    if (!summary || !Array.isArray(summary.requirements)) throw new Error('the report has no summary line: it was cut short');
    return { start: start, cases: cases, summary: summary };
  }
  function text(v, max) { return typeof v === 'string' ? cut(v, max) : ''; }
  // A run's date as the published rows show it: the day (`2025-06-01`).
  function day(v) { return typeof v === 'string' ? v.slice(0, 10) : ''; }
  // What verdict.rs's `standing` says, for a dropped report.
  function standing(rep) {
    var musts = rep.summary.requirements.filter(function (r) { return r.level === 'MUST'; });
    function count(f) { return musts.filter(f).length; }
    var failing = count(function (r) { return r.status === 'FAIL' || r.status === 'XFAIL'; });
    var untestable = count(function (r) { return r.status === 'NOT TESTABLE'; });
    var unevaluated = count(function (r) { return r.status === 'NOT EVALUATED'; });
    var applicable = count(function (r) { return r.status !== 'NOT APPLICABLE'; });
    var errors = rep.cases.filter(function (c) { return c.verdict === 'ERROR' || c.verdict === 'BUG IN CASE'; }).length;
    var w;
    if (rep.summary.handshake_error) w = ['NO HANDSHAKE', 'er', 'the handshake failed, so no case ran'];
    else if (failing) w = ['FAILS MUST', 'f', failing + ' of ' + applicable + ' MUST requirements fail'];
    else if (errors) w = ['ERRORS', 'er', errors + ' case(s) errored'];
    else if (untestable + unevaluated) w = ['INCOMPLETE', 'nt', 'no MUST fails; ' + untestable + ' not testable, ' + unevaluated + ' not evaluated of ' + applicable];
    else if (!applicable) w = ['NOT TESTED', 'na', 'no MUST requirement applies'];
    else w = ['MEETS MUST', 'p', 'all ' + applicable + ' MUST requirements pass'];
    var gate;
    if (!rep.summary.ok) gate = 'gate red';
    else {
      var known = rep.cases.filter(function (c) { return c.verdict === 'XFAIL'; }).length;
      var baselined = count(function (r) { return r.status === 'NOT TESTABLE' && r.baselined; });
      var parts = [];
      if (known) parts.push(known + ' known failing case(s)');
      if (baselined) parts.push(baselined + ' untestable MUST(s)');
      gate = parts.length ? 'gate green only with its baseline (' + parts.join(', ') + ')' : 'gate green';
    }
    return { word: w[0], cls: w[1], detail: w[2], gate: gate };
  }
  function percent(rep, level) {
    var reqs = rep.summary.requirements.filter(function (r) { return r.level === level && r.status !== 'NOT APPLICABLE'; });
    if (!reqs.length) return '—';
    var pass = reqs.filter(function (r) { return r.status === 'PASS'; }).length;
    return Math.floor(pass * 100 / reqs.length) + '%';
  }
  // verdict.rs's `case_truth`.
  function caseCode(c) {
    var failed = (c.checks || []).some(function (k) { return k && k.failure !== undefined && k.failure !== null; });
    return { PASS: 'P', FAIL: 'F', XFAIL: 'B', STALE: failed ? 'R' : 'Q', SKIP: 'S', 'NEW SKIP': 'N', ERROR: 'E', 'BUG IN CASE': 'G' }[c.verdict] || '-';
  }
  var TRUTH = {
    PASS: ['p', '✓'], FAIL: ['f', '✗'], XFAIL: ['f', '✗'], 'NOT TESTABLE': ['nt', '!'],
    'NOT EVALUATED': ['ne', '⁇'], 'NOT APPLICABLE': ['na', '–']
  };
  function show(name, rep) {
    dropped += 1;
    var slug = 'yours-' + dropped;
    var impl = rep.start.implementation || {};
    var s = standing(rep);
    var local = { codes: {}, messages: {} };
    rep.cases.forEach(function (c) {
      var id = text(c.id, 200);
      local.codes[id] = caseCode(c);
      if (Array.isArray(c.messages) && c.messages.length) local.messages[id] = text(c.messages[0], 200);
    });
    var c = { slug: slug, lang: text(impl.language, 40).toLowerCase(), index: cols.length, shown: true, local: local };
    cols.push(c);
    bySlug[slug] = c;
    // A row in the harnesses table.
    var row = el('tr', 'local');
    row.id = 'h-' + slug;
    var th = el('th', '', 'your report: ' + cut(name, 60));
    th.appendChild(el('br'));
    th.appendChild(el('small', '', text(impl.name, 80) + ' (not published)'));
    row.appendChild(th);
    row.appendChild(el('td', 'lang', c.lang || 'unknown'));
    row.appendChild(el('td', '', text(impl.version, 40) || '—'));
    row.appendChild(el('td', '', day(rep.start.date) || '—'));
    row.appendChild(el('td', '', text(rep.start.suite, 40)));
    var verdict = el('td', 'verdict ' + s.cls);
    verdict.appendChild(el('b', 'word', s.word));
    verdict.appendChild(el('br'));
    verdict.appendChild(el('small', 'detail', s.detail));
    verdict.appendChild(el('br'));
    verdict.appendChild(el('small', 'gate', s.gate));
    row.appendChild(verdict);
    row.appendChild(el('td', 'must', percent(rep, 'MUST')));
    row.appendChild(el('td', 'should', percent(rep, 'SHOULD')));
    row.appendChild(el('td', '', rep.cases.length + ' cases'));
    row.appendChild(el('td', 'links', ''));
    $('harnesses').tBodies[0].appendChild(row);
    // A column in the grid.
    var head = el('th', 'harness local');
    head.id = 'col-' + slug;
    head.setAttribute('data-slug', slug);
    head.appendChild(doc.createTextNode('yours: ' + cut(name, 30)));
    head.appendChild(el('br'));
    head.appendChild(el('small', 'version', text(impl.version, 40) || '—'));
    head.appendChild(el('br'));
    head.appendChild(el('small', 'when', (day(rep.start.date) || '—') + ' · ' + text(rep.start.suite, 20)));
    grid.tHead.rows[0].appendChild(head);
    var statuses = {};
    rep.summary.requirements.forEach(function (r) { if (r && typeof r.id === 'string') statuses[r.id] = r; });
    each(grid.tBodies, function (tbody) {
      each(tbody.rows, function (tr) {
        if (tr.classList.contains('area')) { tr.cells[0].colSpan += 1; return; }
        var td = el('td');
        if (tr.classList.contains('req')) {
          var r = statuses[tr.id];
          var t = r && TRUTH[r.status];
          if (!t) { td.className = 'no'; td.textContent = '·'; }
          else {
            td.className = t[0];
            td.textContent = t[1] + (t[0] === 'f' ? ' ' + (r.failing_cases || []).length + '/' + r.tested_cases : '');
            if (r.status === 'XFAIL' || (r.status === 'NOT TESTABLE' && r.baselined)) td.appendChild(el('i', 'bl', 'b'));
          }
        } else {
          fillCell(td, c, tr.caseAt);
        }
        tr.appendChild(td);
      });
    });
    var teaching = $('teaching');
    if (teaching) each(teaching.rows, function (tr, i) { tr.appendChild(el(i ? 'td' : 'th', i ? 'no' : 'harness local', i ? '·' : 'yours')); });
    say('Shown: ' + cut(name, 60) + ', ' + rep.cases.length + ' cases, read in this browser. ' + s.word + ', MUST ' + percent(rep, 'MUST') + '.');
    apply();
  }
  function read(file) {
    if (!file) return;
    if (file.size > MAX_BYTES) { say(cut(file.name, 60) + ': larger than 64 MiB, not a report'); return; }
    var reader = new FileReader();
    reader.onload = function () {
      try { show(file.name, parse(String(reader.result))); } catch (e) { say(cut(file.name, 60) + ': ' + e.message); }
    };
    reader.onerror = function () { say(cut(file.name, 60) + ': could not be read'); };
    reader.readAsText(file);
  }
  var drop = $('drop');
  ['dragenter', 'dragover'].forEach(function (type) {
    drop.addEventListener(type, function (e) { e.preventDefault(); drop.classList.add('over'); });
  });
  drop.addEventListener('dragleave', function () { drop.classList.remove('over'); });
  drop.addEventListener('drop', function (e) {
    e.preventDefault();
    drop.classList.remove('over');
    read(e.dataTransfer && e.dataTransfer.files[0]);
  });
  $('drop-file').addEventListener('change', function () { read(this.files[0]); });

  readURL();
  apply();
})();
