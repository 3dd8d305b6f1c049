// Per-call dispatch overhead of the MCP TypeScript SDK, through its own API: an `McpServer` with
// one tool registered with `registerTool` and a zod input schema (list: path string, limit
// integer >= 1, recursive boolean; the handler returns "ok"), called with `Client.callTool` over
// the SDK's `InMemoryTransport`, the session open and built outside the timing. A valid and an
// invalid call ({"path": 3, "limit": "10", "recursive": true}); medians per call over 9 runs.
//
//   node benches/peers/mcp_typescript.mjs <dir with node_modules> [calls]
//
// The SDK is loaded from the node_modules conformance/adapters/install.sh made (run.sh passes
// conformance/adapters/mcp-typescript). Prints one JSON line. A benchmark: no timed assertion.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dirArg, callsArg] = process.argv.slice(2);
const dir = resolve(dirArg);
const calls = Number(callsArg ?? 500);
const sdk = join(dir, 'node_modules/@modelcontextprotocol/sdk/dist/esm');
const load = (path) => import(pathToFileURL(join(sdk, path)).href);
const { McpServer } = await load('server/mcp.js');
const { Client } = await load('client/index.js');
const { InMemoryTransport } = await load('inMemory.js');
const { z } = await import(pathToFileURL(createRequire(join(dir, 'package.json')).resolve('zod')).href);
const version = JSON.parse(readFileSync(join(dir, 'node_modules/@modelcontextprotocol/sdk/package.json'))).version;

const server = new McpServer({ name: 'bench', version: '0' });
server.registerTool('list', {
  description: 'List files.',
  inputSchema: { path: z.string(), limit: z.number().int().min(1), recursive: z.boolean() },
}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: 'bench-host', version: '0' });
await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

const valid = { name: 'list', arguments: { path: 'src', limit: 10, recursive: true } };
const invalid = { name: 'list', arguments: { path: 3, limit: '10', recursive: true } };

async function timed(call) {
  await client.callTool(call);
  const runs = [];
  for (let r = 0; r < 9; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await client.callTool(call);
    runs.push(Number(process.hrtime.bigint() - start) / calls);
  }
  runs.sort((a, b) => a - b);
  return runs[4];
}

const ok = await client.callTool(valid);
const bad = await client.callTool(invalid);
if (ok.isError) throw new Error(`the valid call failed: ${JSON.stringify(ok)}`);
console.log(JSON.stringify({
  name: `MCP TypeScript SDK @modelcontextprotocol/sdk@${version} (Client.callTool, in-memory)`,
  valid_ns: await timed(valid),
  invalid_ns: await timed(invalid),
  valid_error: Boolean(ok.isError),
  invalid_error: Boolean(bad.isError),
}));
await client.close();
