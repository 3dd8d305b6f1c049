// Adapter: the MCP TypeScript SDK (@modelcontextprotocol/sdk) behind the conformance protocol.
//
// What is tested: an `McpServer` whose tools are registered with `registerTool(name,
// {description, inputSchema: <zod>}, handler)` — the SDK's documented way — called by the SDK's
// own `Client` over `InMemoryTransport.createLinkedPair()`. The host is the kit's one MCP host
// (`mcpHost`, PROTOCOL.md section 3b): one `client.callTool({name, arguments})` per tool_use block,
// in order; a CallToolResult becomes the tool_result (text blocks joined, `isError`); a JSON-RPC
// error (an `McpError`: unknown tool, invalid params, the client's request timeout) is shown as an
// error result carrying its message, as mainstream hosts do. MCP has no tool-use ids: the host
// pairs results with calls, and the hello declares `call_ids: false`.
//
// Schema translation: each case schema is rewritten as the zod schema a user would write
// (`toZod` below): `enum` of strings is `z.enum`, other enums and `const` are `z.literal`
// (zod 4 takes a list of literals), `prefixItems` is `z.tuple` (with `.rest` for `items`), a
// local `$ref` to `$defs` is inlined (as a user writes the shared zod schema once and reuses it),
// an object with `additionalProperties: false` is a `z.strictObject`, an open one a
// `z.looseObject` (unknown fields kept, not stripped), and a schema-valued `additionalProperties`
// is `.catchall(<zod>)`. Keywords zod cannot state faithfully (uniqueItems, oneOf, ...) make the
// case SKIP with the reason.
//
// Handler behaviours, in the SDK's idiom: a domain refusal is RETURNED as
// `{content: [...], isError: true}` (the SDK's documented way to report a tool error); transport
// and internal errors are THROWN (`Error`), which the SDK turns into an error result itself.
// Outputs are returned as a text block; JSON values are serialised by the handler with
// JSON.stringify, as a user of this SDK must do (the SDK takes content blocks, not values). So a
// non-finite output would be serialised by the adapter, not the SDK: such cases SKIP.
//
// The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
// conformance/kits/typescript (@harness-conformance/adapter).

import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import * as z from 'zod';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ReturnInstead, Skip, defineAdapter, main, mcpHost } from '@harness-conformance/adapter';

const installed = (pkg) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;

const KEYWORDS = [
  'type', 'properties', 'required', 'additionalProperties', 'enum', 'const',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern', 'items', 'minItems', 'maxItems',
  'anyOf', 'description', 'title', 'default', 'prefixItems', '$ref', '$defs',
];

// ---- JSON Schema → zod -------------------------------------------------------------------------

// The root schema's `$defs` (and draft-07 `definitions`), for inlining local `$ref`s.
let defs = {};
const inlining = [];

function resolve(ref, where) {
  const m = /^#\/(\$defs|definitions)\/([^/~]+)$/.exec(ref);
  if (!m || !(m[2] in (defs[m[1]] ?? {}))) throw new Skip(`$ref ${JSON.stringify(ref)} at ${where} is not a local $defs entry`);
  if (inlining.includes(ref)) throw new Skip(`recursive $ref ${JSON.stringify(ref)} at ${where} has no inlined zod form`);
  return defs[m[1]][m[2]];
}

function toZod(schema, path) {
  const where = path || '/';
  if (schema && typeof schema === 'object' && '$ref' in schema) {
    if (Object.keys(schema).some((k) => !['$ref', 'description', 'title'].includes(k))) {
      throw new Skip(`$ref beside other keywords at ${where}`);
    }
    const target = resolve(schema.$ref, where);
    inlining.push(schema.$ref);
    try {
      return toZod(target, `${path}/$ref`);
    } finally {
      inlining.pop();
    }
  }
  if (schema === true || (schema && typeof schema === 'object' && Object.keys(schema).length === 0)) return z.any();
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new Skip(`schema ${JSON.stringify(schema)} at ${where} has no zod equivalent`);
  for (const key of Object.keys(schema)) {
    if (!KEYWORDS.includes(key)) throw new Skip(`keyword ${JSON.stringify(key)} at ${where} has no zod equivalent`);
  }
  let out = base(schema, path, where);
  if (schema.description !== undefined) out = out.describe(schema.description);
  return out;
}

function literals(values, where) {
  for (const v of values) {
    if (v !== null && typeof v === 'object') throw new Skip(`enum/const value ${JSON.stringify(v)} at ${where} cannot be a z.literal`);
  }
  return values;
}

function base(schema, path, where) {
  if ('const' in schema) return z.literal(literals([schema.const], where)[0]);
  if ('enum' in schema) {
    const values = literals(schema.enum, where);
    // z.enum is zod's enum type (its message lists the options); a list of literals for the rest
    return values.length > 0 && values.every((v) => typeof v === 'string') ? z.enum(values) : z.literal(values);
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
      'pattern', 'items', 'minItems', 'maxItems', 'prefixItems', 'properties', 'required', 'additionalProperties'];
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
      if ('prefixItems' in schema) {
        only(['prefixItems', 'items']);
        const members = schema.prefixItems.map((s, i) => toZod(s, `${path}/prefixItems/${i}`));
        if (schema.items === false) return z.tuple(members);
        return z.tuple(members, schema.items === undefined ? z.any() : toZod(schema.items, `${path}/items`));
      }
      only(['items', 'minItems', 'maxItems']);
      if (Array.isArray(schema.items)) throw new Skip(`draft-07 tuple-form items at ${where}`);
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
  const required = schema.required ?? [];
  const props = schema.properties ?? {};
  for (const name of required) if (!(name in props)) throw new Skip(`required ${JSON.stringify(name)} without a property at ${where}`);
  const shape = {};
  for (const [key, sub] of Object.entries(props)) {
    let field = toZod(sub, `${path}/${key}`);
    if (!required.includes(key)) field = sub && typeof sub === 'object' && 'default' in sub ? field.default(sub.default) : field.optional();
    shape[key] = field;
  }
  if (extra === false) return z.strictObject(shape);
  if (extra === true) return z.looseObject(shape);
  return z.object(shape).catchall(toZod(extra, `${path}/additionalProperties`));
}

// ---- the harness for one case -------------------------------------------------------------------

// Every output is returned as one text block; JSON values are serialised by the handler with
// JSON.stringify, as a user of this SDK must do.
const textResult = (t) => ({ content: [{ type: 'text', text: t }] });
const present = (value, kind) =>
  kind === 'raise' ? value : textResult(kind === 'text' || kind === 'generate' ? value : JSON.stringify(value));

// The output a behaviour finally returns (`{kind: spec}`), or null when it raises.
function finalOutput(behavior) {
  if (behavior && typeof behavior === 'object') {
    if ('return' in behavior) return behavior.return;
    if ('then' in behavior) return finalOutput(behavior.then);
  }
  return null;
}

function build(turn) {
  const server = new McpServer({ name: 'conformance', version: '0' });
  for (const tool of turn.case.tools) {
    let inputSchema;
    try {
      const s = tool.input_schema;
      if (!s || s.type !== 'object') throw new Skip("the tool's input schema is not `type: object`");
      defs = { $defs: s.$defs ?? {}, definitions: s.definitions ?? {} };
      const { $defs: _d, definitions: _x, ...root } = s;
      inputSchema = objectSchema({ properties: {}, ...root }, '', '/');
    } catch (e) {
      if (e instanceof Skip) throw new Skip(`tool ${JSON.stringify(tool.name)}: ${e.message}`);
      throw e;
    }
    const output = finalOutput(tool.behavior);
    if (output && typeof output === 'object' && ('non_finite' in output || 'non_finite_in' in output)) {
      throw new Skip('the SDK takes content blocks, not values: serialising a non-finite number is the tool author\'s JSON.stringify, not the SDK\'s');
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
  const options = deadline === null ? undefined : { timeout: deadline };
  try {
    await mcpHost(turn, (name, args) => client.callTool({ name, arguments: args }, undefined, options), {
      isError: (e) => e instanceof McpError,
    });
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
    call_ids: false, // an MCP server never sees tool-use ids: the host pairs results with calls
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
