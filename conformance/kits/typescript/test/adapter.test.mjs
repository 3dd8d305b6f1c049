// The protocol loop and the blame rule, end to end over in-memory streams.
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { test } from 'node:test';
import { MISSING, Skip, Turn, defineAdapter, hello, loads, offeredTools, parseCase, serve } from '../dist/index.js';

class Refused extends Error {}
const ERRORS = { domain: (m) => new Refused(m), transport: (m) => new Error(m), internal: (m) => new Error(m) };

/** A tiny harness: unknown tools and non-object arguments are error results; 'crash' throws. */
class Toy {
  tools = new Map();
  async call(name, args) {
    if (name === 'crash') throw new TypeError('the harness fell over');
    const tool = this.tools.get(name);
    if (!tool) return [true, `unknown tool ${JSON.stringify(name)}`];
    if (typeof args !== 'object' || args === null) return [true, 'arguments must be an object'];
    try {
      const out = await tool(args);
      return [false, typeof out === 'string' ? out : JSON.stringify(out)];
    } catch (e) {
      return [true, e instanceof Refused ? e.message : 'the tool failed'];
    }
  }
}

const base = {
  implementation: { name: 'toy', language: 'javascript', version: '0' },
  capabilities: { keywords: ['type'] },
  errors: ERRORS,
  build(turn) {
    const toy = new Toy();
    for (const tool of turn.case.tools) {
      if (tool.name === 'unexpressible') throw new Skip('this harness cannot express that tool');
      toy.tools.set(tool.name, turn.handler(tool));
    }
    return toy;
  },
  async runTurn(toy, turn) {
    for (const call of turn.case.calls) {
      turn.currentCall = call;
      await turn.harnessMayRaise(call, async () => {
        const [isError, content] = await toy.call(call.name, call.input);
        turn.report(call.id, { is_error: isError, content });
      });
    }
  },
};
const ADAPTER = defineAdapter(base);

async function serveLines(lines, adapter = ADAPTER) {
  const stdin = Readable.from(lines.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)) + '\n'));
  const stdout = new PassThrough();
  const chunks = [];
  stdout.on('data', (c) => chunks.push(c));
  const logged = [];
  const write = process.stderr.write;
  process.stderr.write = (s) => (logged.push(String(s)), true);
  try {
    const status = await serve(adapter, { stdin, stdout });
    return { status, out: Buffer.concat(chunks).toString().split('\n').filter(Boolean).map(loads), err: logged.join('') };
  } finally {
    process.stderr.write = write;
  }
}

const tool = (name = 't', behavior = { return: { text: 'ok' } }) => ({ name, description: '', input_schema: { type: 'object' }, behavior });

async function runOne(c, adapter = ADAPTER) {
  const { status, out, err } = await serveLines([{ cmd: 'start', protocol: 1 }, { cmd: 'run', seq: 3, case: { id: 'area/case', ...c } }, { cmd: 'stop' }], adapter);
  assert.equal(status, 0);
  assert.equal(out.length, 2);
  assert.equal(out[1].seq, 3);
  assert.equal(out[1].case, 'area/case');
  return { reply: out[1], err };
}

test('start, stop, nothing after stop; another protocol version is refused without an answer', async () => {
  let r = await serveLines([{ cmd: 'start', protocol: 1 }, { cmd: 'stop' }, { cmd: 'start', protocol: 1 }]);
  assert.deepEqual(r.out, [hello(ADAPTER.implementation, ADAPTER.capabilities)]);
  r = await serveLines([{ cmd: 'start', protocol: 2 }]);
  assert.equal(r.status, 1);
  assert.deepEqual(r.out, []);
  assert.match(r.err, /speaks protocol 1, the runner asked for 2/);
  r = await serveLines(['{"cmd": "start", "cmd": "stop"}']);
  assert.equal(r.status, 2);
  assert.match(r.err, /duplicate key/);
});

test('results and invocations with args copied on entry', async () => {
  const { reply } = await runOne({
    tools: [tool('t', { mutate_args: { set: { '/a': 2 } }, then: { return: { echo_args: true } } })],
    calls: [{ id: 'c1', name: 't', input: { a: 1 } }, { id: 'c2', name: 'nope', input: {} }],
  });
  assert.deepEqual(reply, {
    seq: 3, case: 'area/case',
    results: [{ tool_use_id: 'c1', is_error: false, content: '{"a":2}' }, { tool_use_id: 'c2', is_error: true, content: 'unknown tool "nope"' }],
    invocations: [{ tool: 't', args: { a: 1 }, tool_use_id: 'c1' }],
  });
});

test('an absent input differs from null', () => {
  const c = parseCase({ id: 'x', tools: [], calls: [{ id: 'a' }, { id: 'b', input: null }] });
  assert.equal(c.calls[0].input, MISSING);
  assert.equal(c.calls[1].input, null);
});

test('offered names the turn\'s tool subset', () => {
  const tools = ['read', 'delete'].map((name) => ({ name, input_schema: { type: 'object' }, behavior: { return: { text: 'x' } } }));
  const every = parseCase({ id: 'x', tools, calls: [] });
  assert.equal(every.offered, null);
  assert.deepEqual(offeredTools(every).map((t) => t.name), ['read', 'delete']);
  const subset = parseCase({ id: 'x', tools, calls: [], offered: ['read'] });
  assert.deepEqual(offeredTools(subset).map((t) => t.name), ['read']);
  assert.throws(() => parseCase({ id: 'x', tools, calls: [], offered: 'read' }));
});

test('stop_reason is read and checked', () => {
  assert.equal(parseCase({ id: 'x', tools: [], calls: [] }).stop_reason, null);
  assert.equal(parseCase({ id: 'x', tools: [], calls: [], stop_reason: 'max_tokens' }).stop_reason, 'max_tokens');
  assert.throws(() => parseCase({ id: 'x', tools: [], calls: [], stop_reason: 'length' }));
});

test('cancel_after_ms and parallel_calls are read and checked', () => {
  const plain = parseCase({ id: 'x', tools: [], calls: [] });
  assert.equal(plain.cancel_after_ms, null);
  assert.equal(plain.parallel_calls, null);
  const c = parseCase({ id: 'x', tools: [], calls: [], cancel_after_ms: 100, parallel_calls: false });
  assert.equal(c.cancel_after_ms, 100);
  assert.equal(c.parallel_calls, false);
  for (const bad of [{ cancel_after_ms: -1 }, { cancel_after_ms: 1.5 }, { parallel_calls: 'no' }]) {
    assert.throws(() => parseCase({ id: 'x', tools: [], calls: [], ...bad }));
  }
});

test('an aborted handler stops in its sleep and its invocation says so', async () => {
  const slow = { ...tool('slow'), behavior: { sleep_ms: 5000, then: { return: { text: 'late' } } } };
  const turn = new Turn(parseCase({ id: 'x', tools: [slow], calls: [] }), 'chars', {});
  const abort = new AbortController();
  setTimeout(() => abort.abort(), 50);
  await assert.rejects(turn.handler('slow')({ q: 1 }, undefined, abort.signal));
  assert.deepEqual(turn.invocations, [{ tool: 'slow', args: { q: 1 }, stopped: true }]);
});

test('a harness that throws shows nothing for that call, and says so on stderr', async () => {
  const { reply, err } = await runOne({ tools: [tool()], calls: [{ id: 'c1', name: 'crash', input: {} }, { id: 'c2', name: 't', input: {} }] });
  assert.deepEqual(reply.results, [{ tool_use_id: 'c2', is_error: false, content: 'ok' }]);
  assert.match(err, /harness raised: the harness fell over \[for call "c1"\]/);
});

test('the harness-raised line is one bounded line with controls escaped', async () => {
  const { oneLine } = await import('../dist/index.js');
  const line = oneLine(new Error('a\x1b[31mb\nc' + 'x'.repeat(5000)));
  assert.ok(line.startsWith('a\\x1b[31mb c'), line.slice(0, 20));
  assert.ok(line.length <= 1000 + 3 && !line.includes('\n'));
});

test('skip carries its reason; an adapter bug is an error; a kit failure inside a handler is the adapter\'s', async () => {
  assert.deepEqual((await runOne({ tools: [tool('unexpressible')], calls: [] })).reply,
    { seq: 3, case: 'area/case', skip: 'this harness cannot express that tool' });
  const broken = defineAdapter({ ...base, runTurn() { throw new RangeError('oops'); } });
  assert.equal((await runOne({ tools: [], calls: [] }, broken)).reply.error, 'adapter failed: RangeError: oops');
  const { reply } = await runOne({
    tools: [tool('t', { mutate_args: { set: { '/x/y': 1 } }, then: { return: { text: '' } } })],
    calls: [{ id: 'c1', name: 't', input: {} }],
  });
  assert.match(reply.error, /mutate_args pointer "\/x\/y"/);
});

test('generated sizes use the declared cap unit when the case sets none', async () => {
  const bytes = defineAdapter({ ...base, capabilities: { cap: { unit: 'bytes', limit: 100 }, keywords: ['type'] } });
  const gen = { return: { generate: { repeat: 'é', size: 6 } } };
  let { reply } = await runOne({ tools: [tool('t', gen)], calls: [{ id: 'c', name: 't', input: {} }] }, bytes);
  assert.equal(reply.results[0].content, 'ééé');
  ({ reply } = await runOne({ config: { cap: { unit: 'chars' } }, tools: [tool('t', gen)], calls: [{ id: 'c', name: 't', input: {} }] }, bytes));
  assert.equal(reply.results[0].content, 'éééééé');
});

test('a result of the wrong shape is an adapter error; natives without a JSON form are spelled out', async () => {
  const bad = defineAdapter({ ...base, runTurn(_, turn) { turn.report('c', { is_error: false, content: 42 }); } });
  assert.match((await runOne({ tools: [], calls: [] }, bad)).reply.error, /^adapter failed: KitError: result content/);
  const nan = defineAdapter({ ...base, runTurn(_, turn) { turn.report('c', { is_error: false, content: 'x', native: { v: NaN } }); } });
  assert.deepEqual((await runOne({ tools: [], calls: [] }, nan)).reply.results[0].native, { v: { $non_finite: 'nan' } });
});

test('an invalid hello stops the adapter before it answers', async () => {
  const r = await serveLines([{ cmd: 'start', protocol: 1 }], { ...base, capabilities: { call_forms: ['telepathy'] } });
  assert.equal(r.status, 2);
  assert.deepEqual(r.out, []);
  assert.match(r.err, /capability call_forms: "telepathy" is not one of/);
});
