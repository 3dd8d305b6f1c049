// Scripted behaviours: generated sizes in the case's unit, each raise kind in the harness's idiom.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blocksOf, ContentBlocks, ErrorCode, KitError, McpResult, ReturnInstead, Script, Stream, expand } from '../dist/index.js';

class Refused extends Error {}
const ERRORS = { domain: (m) => new Refused(m), transport: (m) => new TypeError(m), internal: (m) => new RangeError(m) };
const perform = (behavior, args = {}, unit = 'chars', present) => new Script(behavior, unit, ERRORS, present).run(args);

test('generators expand exactly, in the unit asked', () => {
  const cases = [
    [{ text: 'abc' }, 'chars', 'abc'],
    [{ repeat: 'é', size: 5 }, 'bytes', 'éé'],
    [{ repeat: 'é', size: 5 }, 'chars', 'ééééé'],
    [{ repeat: '😀', size: 9 }, 'bytes', '😀😀'],
    [{ repeat: '😀', size: 2 }, 'chars', '😀😀'],
    [{ concat: [{ text: 'a' }, { repeat: 'b', size: 2 }, { text: 'c' }] }, 'chars', 'abbc'],
    [{ lines: { size: 5, width: 8, last: 'END' } }, 'chars', 'END'],
    [{ lines: { size: 21, width: 8, last: 'END' } }, 'chars', '000001 x\n000002 x\nEND'],
  ];
  for (const [gen, unit, text] of cases) assert.equal(expand(gen, unit), text, JSON.stringify(gen));
  const lines = expand({ lines: { size: 1_000_001 * 8 + 1, width: 7, last: '' } }, 'chars').split('\n');
  assert.equal(lines[999_999], '000000 ');
});

test('returns, non-finite, fresh JSON copies, echo after mutation', async () => {
  assert.equal(await perform({ return: { text: 't' } }), 't');
  assert.ok(Number.isNaN(await perform({ return: { non_finite: 'nan' } })));
  assert.equal(await perform({ return: { non_finite: '-inf' } }), -Infinity);
  const behavior = { return: { json: { a: [1] } } };
  (await perform(behavior)).a.push(2);
  assert.deepEqual(await perform(behavior), { a: [1] });
  const args = { o: { a: 'x' }, l: [1, 2] };
  const out = await perform({ mutate_args: { set: { '/o/a': 'y', '/l/0': 9, '/l/-': 3, '/a~1b~0': 1 } }, then: { return: { echo_args: true } } }, args);
  assert.deepEqual(out, { o: { a: 'y' }, l: [9, 2, 3], 'a/b~': 1 });
  assert.equal(args.o.a, 'y');
});

test('non_finite_in places numbers inside a structured value', async () => {
  const out = await perform({ return: { non_finite_in: { value: { a: [1, 2], b: {} }, at: { '/a/1': 'inf', '/b/c': 'nan' } } } });
  assert.equal(out.a[1], Infinity);
  assert.ok(Number.isNaN(out.b.c));
  assert.equal(await perform({ return: { non_finite_in: { value: 0, at: { '': '-inf' } } } }), -Infinity);
});

test('each raise kind uses its idiom; a factory may return instead; present sees the kind', async () => {
  for (const [kind, type] of [['domain', Refused], ['transport', TypeError], ['internal', RangeError]]) {
    await assert.rejects(perform({ raise: { kind, message: 'boom' } }), (e) => e instanceof type && e.message === 'boom');
  }
  const script = new Script({ raise: { kind: 'domain', message: 'no' } }, 'chars', { ...ERRORS, domain: (m) => new ReturnInstead({ isError: true, m }) });
  assert.deepEqual(await script.run({}), { isError: true, m: 'no' });
  const kinds = [];
  assert.equal(await perform({ return: { json: 'x' } }, {}, 'chars', (v, k) => (kinds.push(k), `<${v}>`)), '<x>');
  assert.deepEqual(kinds, ['json']);
});

test('sleeps: an async sleep lets the event loop run, a sync one blocks it', async () => {
  const script = new Script({ sleep_ms: 20, then: { return: { text: 'late' } } }, 'chars', ERRORS);
  const order = [];
  const sleeping = script.run({}).then((v) => order.push(`script ${v}`));
  setImmediate(() => order.push('loop ran'));
  await sleeping;
  assert.deepEqual(order, ['loop ran', 'script late']);
  const blocked = [];
  setImmediate(() => blocked.push('loop ran'));
  assert.equal(script.runSync({}), 'late');
  assert.deepEqual(blocked, []); // nothing else ran during the synchronous sleep
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(blocked, ['loop ran']);
});

test('what the kit cannot perform is a KitError told to the adapter first', async () => {
  const cases = [
    [{ dance: true }, ErrorCode.UNKNOWN_BEHAVIOUR],
    [{ return: { image: 'x' } }, ErrorCode.UNKNOWN_BEHAVIOUR],
    [{ return: { generate: { zigzag: 1 } } }, ErrorCode.UNKNOWN_BEHAVIOUR],
    [{ raise: { kind: 'cosmic', message: 'm' } }, ErrorCode.UNKNOWN_BEHAVIOUR],
    [{ mutate_args: { set: { '/no/such': 1 } }, then: { return: { text: '' } } }, ErrorCode.BAD_POINTER],
    [{ mutate_args: { set: { '': 1 } }, then: { return: { text: '' } } }, ErrorCode.BAD_POINTER],
  ];
  for (const [behavior, code] of cases) {
    const told = [];
    const script = new Script(behavior, 'chars', ERRORS, null, (e) => told.push(e));
    await assert.rejects(script.run({}), (e) => e instanceof KitError && e.code === code && told[0] === e, JSON.stringify(behavior));
  }
});

test('non_json builds JavaScript\'s own values inside a structured value', async () => {
  const out = await perform({ return: { non_json: { value: { a: [0], b: null }, at: { '/a/0': 'set', '/b': 'bytes', '/d': 'date', '/h': 'opaque', '/me': 'cycle' } } } });
  assert.deepEqual([...out.a[0]], [1, 2, 3]);
  assert.ok(out.a[0] instanceof Set);
  assert.deepEqual([...out.b], [0, 255, 65]);
  assert.equal(out.d.toISOString(), '2024-01-02T03:04:05.000Z');
  assert.equal(JSON.stringify(out.h), '{}');
  assert.equal(out.me, out);
  assert.ok((await perform({ return: { non_json: { value: {}, at: { '': 'set' } } } })) instanceof Set);
});

test('content_blocks and mcp_result are values for the adapter to present', async () => {
  const image = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
  const out = await perform({ return: { content_blocks: [{ type: 'text', text: 'chart:' }, image] } });
  assert.ok(out instanceof ContentBlocks);
  assert.deepEqual(out.blocks, [{ type: 'text', text: 'chart:' }, image]);
  const raw = { content: [{ type: 'text', text: 'no such table' }], isError: true };
  const mcp = await perform({ return: { mcp_result: raw } });
  assert.ok(mcp instanceof McpResult);
  assert.deepEqual(mcp.json, raw);
  assert.equal(blocksOf(raw), null);
  assert.deepEqual(blocksOf({ content: [{ ...image, annotations: { audience: ['user'] } }] }), [image]);
});

test('a stream is a value whose chunks wait where the case waits', async () => {
  const out = await perform({ return: { stream: [{ text: 'a\n' }, { sleep_ms: 30 }, { generate: { repeat: 'b', size: 3 } }] } });
  assert.ok(out instanceof Stream);
  assert.deepEqual(out.parts, ['a\n', 30, 'bbb']);
  assert.equal(out.text(), 'a\nbbb');
  const started = Date.now();
  const parts = [];
  for await (const part of out.chunks()) parts.push(part);
  assert.deepEqual(parts, ['a\n', 'bbb']);
  assert.ok(Date.now() - started >= 25);
});
