// The one MCP host: results, JSON-RPC errors shown as error results, crashes shown as nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defineAdapter, hello, mcpHost, runCase, textOf } from '../dist/index.js';

/** Stands in for an SDK's JSON-RPC error type. */
class RpcError extends Error {}

const sent = [];

/** A server answering `tools/call` the way an MCP SDK does: results, errors, or a crash. */
function fakeServer(turn) {
  const handlers = new Map(turn.case.tools.map((t) => [t.name, turn.handler(t)]));
  return async (name, args) => {
    sent.push([name, args]);
    if (name === 'crash') throw new TypeError('the client fell over');
    if (!handlers.has(name)) throw new RpcError(`MCP error -32602: Tool ${name} not found`);
    const out = await handlers.get(name)(args ?? {});
    return { content: [{ type: 'text', text: out }, { type: 'image', data: 'x' }, { type: 'text', text: '!' }] };
  };
}

const ADAPTER = defineAdapter({
  implementation: { name: 'fake-mcp', language: 'javascript', version: '0' },
  capabilities: { keywords: ['type'], call_ids: false },
  errors: { domain: (m) => new RpcError(m), transport: (m) => new Error(m), internal: (m) => new Error(m) },
  build: fakeServer,
  runTurn: (callTool, turn) => mcpHost(turn, callTool, { isError: (e) => e instanceof RpcError }),
});

const tool = { name: 't', description: '', input_schema: { type: 'object' }, behavior: { return: { text: 'ok' } } };

async function run(calls) {
  sent.length = 0;
  const logged = [];
  const reply = await runCase(ADAPTER, { id: 'area/case', tools: [tool], calls }, (l) => logged.push(l));
  return { reply, logged: logged.join('\n') };
}

test('every call gets its result in order with the model\'s id; JSON-RPC errors are error results', async () => {
  const { reply } = await run([{ id: 'c1', name: 't', input: { a: 1 } }, { id: 'c2', name: 'nope', input: {} }, { name: 't' }]);
  assert.deepEqual(reply.results.map((r) => [r.tool_use_id, r.is_error, r.content]), [
    ['c1', false, 'ok!'], ['c2', true, 'MCP error -32602: Tool nope not found'], [null, false, 'ok!'],
  ]);
  assert.deepEqual(sent, [['t', { a: 1 }], ['nope', {}], ['t', undefined]], 'absent input stays absent');
  assert.deepEqual(reply.invocations[0], { tool: 't', args: { a: 1 }, tool_use_id: 'c1' });
});

test('a crash of the client shows nothing for that call and says so', async () => {
  const { reply, logged } = await run([{ id: 'c1', name: 'crash', input: {} }, { id: 'c2', name: 't', input: {} }]);
  assert.deepEqual(reply.results.map((r) => r.tool_use_id), ['c2']);
  assert.match(logged, /harness raised: the client fell over \[for call "c1"\]/);
});

test('calls MCP cannot carry skip; text blocks only; the hello says the server never sees ids', async () => {
  const { reply } = await run([{ id: 'c1', name: 't', arguments_text: '{}' }]);
  assert.match(reply.skip, /raw and text forms/);
  assert.equal(textOf({ content: [{ type: 'text', text: 'a' }, { type: 'text' }, { type: 'text', text: 'b' }] }), 'ab');
  assert.equal(textOf({ content: 'no' }), '');
  assert.equal(textOf(null), '');
  assert.equal(hello(ADAPTER.implementation, ADAPTER.capabilities).capabilities.call_ids, false);
});
