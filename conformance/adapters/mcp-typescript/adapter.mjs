// Adapter: the MCP TypeScript SDK (@modelcontextprotocol/sdk) behind the conformance protocol.
//
// What is tested: an `McpServer` whose tools are registered with `registerTool(name,
// {description, inputSchema: <zod>}, handler)` — the SDK's documented way — called by the SDK's
// own `Client` over `InMemoryTransport.createLinkedPair()`. The adapter plays the host: for each
// tool_use block of the turn, in order, it calls `client.callTool({name, arguments})` and turns the
// CallToolResult into the tool_result the model would see (text blocks joined, `isError`). MCP has
// no tool-use id of its own; the host copies the model's id onto the result.
//
// Schema translation: each case schema is rewritten as the zod schema a user would write
// (`toZod` below). Keywords zod cannot state faithfully (uniqueItems, oneOf, ...) make the case
// SKIP with the reason. An object with `additionalProperties: false` is a `z.strictObject`, an open
// one a `z.looseObject` (the schema allows unknown fields, so they are kept, not stripped).
//
// Handler behaviours, in the SDK's idiom: a domain refusal is RETURNED as
// `{content: [...], isError: true}` (the SDK's documented way to report a tool error); transport
// and internal errors are THROWN (`Error`), which the SDK turns into an error result itself.
// Outputs are returned as a text block; JSON values are serialised by the handler with
// JSON.stringify, as a user of this SDK must do.
//
// When `client.callTool` throws instead of returning a result, the model would see nothing for
// that call: no result is reported for it; the kit writes the error to stderr.
//
// The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
// conformance/kits/typescript (@harness-conformance/adapter).

import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import * as z from 'zod';
import { ReturnInstead, Skip, defineAdapter, field, idOrNull, main } from '@harness-conformance/adapter';

const installed = (pkg) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;

const KEYWORDS = [
  'type', 'properties', 'required', 'additionalProperties', 'enum', 'const',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern', 'items', 'minItems', 'maxItems',
  'anyOf', 'description', 'title', 'default',
];

// ---- JSON Schema → zod -------------------------------------------------------------------------

function toZod(schema, path) {
  const where = path || '/';
  if (schema === true || (schema && typeof schema === 'object' && Object.keys(schema).length === 0)) return z.any();
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new Skip(`schema ${JSON.stringify(schema)} at ${where} has no zod equivalent`);
  for (const key of Object.keys(schema)) {
    if (!KEYWORDS.includes(key)) throw new Skip(`keyword ${JSON.stringify(key)} at ${where} has no zod equivalent`);
  }
  let out = base(schema, path, where);
  if (schema.description !== undefined) out = out.describe(schema.description);
  return out;
}

function literal(value, where) {
  if (value !== null && typeof value === 'object') throw new Skip(`enum/const value ${JSON.stringify(value)} at ${where} cannot be a z.literal`);
  return z.literal(value);
}

function base(schema, path, where) {
  if ('const' in schema) return literal(schema.const, where);
  if ('enum' in schema) {
    const members = schema.enum.map((v) => literal(v, where));
    return members.length === 1 ? members[0] : z.union(members);
  }
  if ('anyOf' in schema) {
    const members = schema.anyOf.map((s, i) => toZod(s, `${path}/anyOf/${i}`));
    return members.length === 1 ? members[0] : z.union(members);
  }
  const type = schema.type;
  if (type === undefined) {
    const constrained = Object.keys(schema).filter((k) => !['description', 'title', 'default'].includes(k));
    if (constrained.length) throw new Skip(`keywords ${constrained.join(', ')} without type at ${where}`);
    return z.any();
  }
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== 'null');
    if (nonNull.length === 1 && type.includes('null')) return base({ ...schema, type: nonNull[0] }, path, where).nullable();
    const constrained = Object.keys(schema).filter((k) => !['type', 'description', 'title', 'default'].includes(k));
    if (constrained.length) throw new Skip(`a list of types with constraints at ${where}`);
    return z.union(type.map((t) => base({ type: t }, path, where)));
  }
  const only = (allowed) => {
    const groups = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength',
      'pattern', 'items', 'minItems', 'maxItems', 'properties', 'required', 'additionalProperties'];
    for (const k of groups) if (k in schema && !allowed.includes(k)) throw new Skip(`${k} on type ${type} at ${where}`);
  };
  const numeric = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
  switch (type) {
    case 'string': {
      only(['minLength', 'maxLength', 'pattern']);
      let s = z.string();
      if ('minLength' in schema) s = s.min(schema.minLength);
      if ('maxLength' in schema) s = s.max(schema.maxLength);
      if ('pattern' in schema) s = s.regex(new RegExp(schema.pattern, 'u'));
      return s;
    }
    case 'integer':
    case 'number': {
      only(numeric);
      let n = type === 'integer' ? z.number().int() : z.number();
      if ('minimum' in schema) n = n.gte(schema.minimum);
      if ('maximum' in schema) n = n.lte(schema.maximum);
      if ('exclusiveMinimum' in schema) n = n.gt(schema.exclusiveMinimum);
      if ('exclusiveMaximum' in schema) n = n.lt(schema.exclusiveMaximum);
      if ('multipleOf' in schema) n = n.multipleOf(schema.multipleOf);
      return n;
    }
    case 'boolean': only([]); return z.boolean();
    case 'null': only([]); return z.null();
    case 'array': {
      only(['items', 'minItems', 'maxItems']);
      if (Array.isArray(schema.items)) throw new Skip(`tuple-form items at ${where}`);
      let a = z.array(schema.items === undefined ? z.any() : toZod(schema.items, `${path}/items`));
      if ('minItems' in schema) a = a.min(schema.minItems);
      if ('maxItems' in schema) a = a.max(schema.maxItems);
      return a;
    }
    case 'object': {
      only(['properties', 'required', 'additionalProperties']);
      return objectSchema(schema, path, where);
    }
    default:
      throw new Skip(`unknown type ${JSON.stringify(type)} at ${where}`);
  }
}

function objectSchema(schema, path, where) {
  const extra = schema.additionalProperties ?? true;
  if (schema.properties === undefined && extra !== false) {
    return z.record(z.string(), extra === true ? z.any() : toZod(extra, `${path}/additionalProperties`));
  }
  if (extra !== true && extra !== false) throw new Skip(`schema-valued additionalProperties beside properties at ${where}`);
  const required = schema.required ?? [];
  const props = schema.properties ?? {};
  for (const name of required) if (!(name in props)) throw new Skip(`required ${JSON.stringify(name)} without a property at ${where}`);
  const shape = {};
  for (const [key, sub] of Object.entries(props)) {
    let field = toZod(sub, `${path}/${key}`);
    if (!required.includes(key)) field = sub && typeof sub === 'object' && 'default' in sub ? field.default(sub.default) : field.optional();
    shape[key] = field;
  }
  return extra === false ? z.strictObject(shape) : z.looseObject(shape);
}

// ---- the harness for one case -------------------------------------------------------------------

// Every output is returned as one text block; JSON values (and NaN, which JSON.stringify writes as
// null) are serialised by the handler, as a user of this SDK must do.
const textResult = (t) => ({ content: [{ type: 'text', text: t }] });
const present = (value, kind) =>
  kind === 'raise' ? value : textResult(kind === 'text' || kind === 'generate' ? value : JSON.stringify(value));

function build(turn) {
  const server = new McpServer({ name: 'conformance', version: '0' });
  for (const tool of turn.case.tools) {
    let inputSchema;
    try {
      const s = tool.input_schema;
      if (!s || s.type !== 'object') throw new Skip("the tool's input schema is not `type: object`");
      inputSchema = objectSchema({ properties: {}, ...s }, '', '/');
    } catch (e) {
      if (e instanceof Skip) throw new Skip(`tool ${JSON.stringify(tool.name)}: ${e.message}`);
      throw e;
    }
    const handle = turn.handler(tool);
    server.registerTool(tool.name, { description: tool.description, inputSchema }, (args) => handle(args));
  }
  return server;
}

async function runTurn(server, turn) {
  const deadline = turn.case.config.deadline_ms;
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'conformance-host', version: '0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  try {
    for (const call of turn.case.calls) {
      if (call.form !== 'structured') {
        throw new Skip('MCP tool calls carry arguments as a JSON object; raw and text forms are not expressible');
      }
      turn.currentCall = call; // the host calls one tool at a time, so it knows which call runs
      await turn.harnessMayRaise(call, async () => {
        const options = deadline === null ? undefined : { timeout: deadline };
        const result = await client.callTool({ name: field(call, 'name'), arguments: field(call, 'input') }, undefined, options);
        const blocks = Array.isArray(result.content) ? result.content : [];
        turn.report(idOrNull(call), {
          is_error: result.isError === true,
          content: blocks.filter((b) => b.type === 'text').map((b) => b.text).join(''),
          native: result,
        });
      });
    }
  } finally {
    await client.close();
    await server.close();
  }
}

const adapter = defineAdapter({
  implementation: {
    name: 'mcp-typescript (McpServer.registerTool + zod)',
    language: 'typescript',
    version: `${installed('@modelcontextprotocol/sdk')} (zod ${installed('zod')})`,
    homepage: 'https://github.com/modelcontextprotocol/typescript-sdk',
  },
  capabilities: {
    cap: null,
    retryability: false,
    deadline: { configurable: true, default_ms: 60000 }, // the SDK's DEFAULT_REQUEST_TIMEOUT_MSEC
    keywords: KEYWORDS,
    call_forms: ['structured'],
    parallel: false,
    history: false,
  },
  // A domain refusal is RETURNED as {content, isError: true} (the SDK's documented way to report a
  // tool error); transport and internal errors are THROWN, which the SDK turns into a result itself.
  errors: {
    domain: (message) => new ReturnInstead({ ...textResult(message), isError: true }),
    transport: (message) => new Error(message),
    internal: (message) => new Error(message),
  },
  present,
  build,
  runTurn,
});

await main(adapter);
