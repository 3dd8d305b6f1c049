#!/usr/bin/env node
// Adapter template: put YOUR JavaScript/TypeScript harness behind the harness-conformance protocol.
//
// Copy this one file (Node standard library only), change the three places marked PLUG IN, then:
//
//     harness-conformance run --harness 'node path/to/adapter.mjs'
//
// As shipped it drives ToyHarness, a deliberately tiny harness, so the template itself can be run
// and tested. The protocol (JSON lines on stdin/stdout) is in conformance/PROTOCOL.md.
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

// ===== PLUG IN 1: describe your harness. Declare only what it really does. =====================
const HELLO = {
  protocol: 1,
  implementation: { name: 'toy-harness', language: 'javascript', version: '0.1', homepage: 'https://example.invalid/toy' },
  capabilities: {
    cap: null, // no output cap; else {unit, limit, configurable, strategies}
    keywords: ['type', 'properties', 'required'], // schema keywords your harness enforces
    call_forms: ['structured'],
    // codes: {...}, retryability: true, deadline: {...}, parallel: true, history: true
  },
};

// ===== delete this class: it stands in for your harness ========================================
class ToyHarness {
  tools = new Map();
  register(name, schema, handler) { this.tools.set(name, { schema, handler }); }
  async call(name, args) {
    const tool = typeof name === 'string' ? this.tools.get(name) : undefined;
    if (!tool) return { error: true, text: `unknown tool ${JSON.stringify(name)}` };
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return { error: true, text: 'arguments must be an object' };
    for (const key of tool.schema.required ?? []) if (!(key in args)) return { error: true, text: `/${key}: required` };
    for (const [key, sub] of Object.entries(tool.schema.properties ?? {})) {
      const types = sub === false ? ['nothing'] : [sub?.type ?? []].flat();
      if (key in args && types.length && !types.some((t) => matches(t, args[key]))) {
        return { error: true, text: `/${key}: expected ${types.join(' or ')}, received ${JSON.stringify(args[key])}` };
      }
    }
    try {
      const out = await tool.handler(args);
      return { error: false, text: typeof out === 'string' ? out : JSON.stringify(out) };
    } catch {
      return { error: true, text: 'the tool failed' };
    }
  }
}
const matches = (type, v) => ({
  string: typeof v === 'string', integer: Number.isInteger(v), number: typeof v === 'number', boolean: typeof v === 'boolean',
  object: typeof v === 'object' && v !== null && !Array.isArray(v), array: Array.isArray(v), null: v === null,
})[type] ?? false;

// ===== PLUG IN 2: build the case's tools in your harness. =====================================
function buildHarness(c, makeHandler) {
  const harness = new ToyHarness();
  for (const tool of c.tools) harness.register(tool.name, tool.input_schema, makeHandler(tool));
  return harness;
}

// ===== PLUG IN 3: feed one turn's calls the way your agent loop does; say what the model sees. ==
async function runTurn(harness, c, log) {
  const results = [];
  for (const call of c.calls) {
    log.currentId = call.id;
    const out = await harness.call(call.name, call.input);
    results.push({ tool_use_id: call.id ?? null, is_error: out.error, content: out.text, native: out });
  }
  return results;
}

// ---- scripted handlers (keep; map raise kinds to your harness's own error types) ---------------
function expand(gen, unit) {
  const size = (s) => (unit === 'bytes' ? Buffer.byteLength(s) : [...s].length);
  if ('text' in gen) return gen.text;
  if ('repeat' in gen) return gen.repeat.repeat(Math.floor(gen.size / size(gen.repeat)));
  if ('lines' in gen) {
    const { size: total, width, last } = gen.lines;
    const n = Math.floor(Math.max(total - size(last), 0) / (width + 1));
    return Array.from({ length: n }, (_, i) => `${String((i + 1) % 1000000).padStart(6, '0')} `.padEnd(width, 'x') + '\n').join('') + last;
  }
  return gen.concat.map((g) => expand(g, unit)).join('');
}

const makeHandlerFactory = (c, log) => (tool) => async (args) => {
  log.invocations.push({ tool: tool.name, tool_use_id: log.currentId ?? null, args: structuredClone(args) });
  let b = tool.behavior;
  while (!('return' in b)) {
    if ('raise' in b) throw new Error(b.raise.message); // domain / transport / internal: use YOUR error types
    if ('sleep_ms' in b) await sleep(b.sleep_ms);
    for (const [ptr, val] of Object.entries(b.mutate_args?.set ?? {})) {
      const path = ptr.split('/').slice(1);
      const last = path.pop();
      path.reduce((node, p) => node[p], args)[last] = val;
    }
    b = b.then;
  }
  const out = b.return;
  if ('non_finite' in out) return { nan: NaN, inf: Infinity, '-inf': -Infinity }[out.non_finite];
  if ('echo_args' in out) return args;
  if ('generate' in out) return expand(out.generate, c.config?.cap?.unit ?? 'chars');
  return 'text' in out ? out.text : out.json;
};

// ---- the protocol loop (keep) -----------------------------------------------------------------
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const msg = JSON.parse(line);
  let reply;
  if (msg.cmd === 'start') {
    if (msg.protocol !== 1) { process.stderr.write(`adapter speaks protocol 1, not ${msg.protocol}\n`); process.exit(1); }
    reply = HELLO;
  }
  else if (msg.cmd === 'stop') break;
  else {
    const c = msg.case;
    const log = { invocations: [], currentId: null };
    try {
      const results = await runTurn(buildHarness(c, makeHandlerFactory(c, log)), c, log);
      reply = { seq: msg.seq, case: c.id, results, invocations: log.invocations };
    } catch (e) { // a case your harness cannot express: reply {skip: reason} instead
      reply = { seq: msg.seq, case: c.id, error: String(e?.message ?? e) };
    }
  }
  process.stdout.write(JSON.stringify(reply) + '\n');
}
