// Adapter: put YOUR TypeScript/JavaScript harness behind the harness-conformance protocol.
//
//     npm install -D harness-conformance@1.1.0 @harness-conformance/adapter@1.1.0 typescript @types/node
//     npx tsc -p . && npx harness-conformance run --harness 'node dist/adapter.js'
//
// The kit owns the protocol: the JSON-lines loop, strict JSON, the hello, every scripted tool
// behaviour, the invocation log and who is blamed for what. You write the three parts marked
// PLUG IN. As written this drives ToyHarness, a deliberately tiny harness, so the adapter runs green
// against its first baseline at once; delete it and call yours.
import { defineAdapter, field, idOrNull, main, type Capabilities, type Turn } from '@harness-conformance/adapter';

type Handler = (args: unknown) => Promise<unknown>;
type Schema = { required?: string[]; properties?: Record<string, { type?: string | string[] } | boolean> };

class ToyHarness { // ===== delete this class: it stands in for your harness =======================
  tools = new Map<string, { schema: Schema; handler: Handler }>();
  register(name: string, schema: Schema, handler: Handler): void { this.tools.set(name, { schema, handler }); }
  async call(name: unknown, args: unknown): Promise<{ error: boolean; text: string }> {
    const tool = typeof name === 'string' ? this.tools.get(name) : undefined;
    if (!tool) return { error: true, text: `unknown tool ${JSON.stringify(name)}` };
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return { error: true, text: 'arguments must be an object' };
    for (const key of tool.schema.required ?? []) if (!(key in args)) return { error: true, text: `/${key}: required` };
    for (const [key, sub] of Object.entries(tool.schema.properties ?? {})) {
      const types = sub === false ? ['nothing'] : [(sub === true ? undefined : sub?.type) ?? []].flat();
      const value = (args as Record<string, unknown>)[key];
      if (key in args && types.length && !types.some((t) => matches(t, value))) {
        return { error: true, text: `/${key}: expected ${types.join(' or ')}, received ${JSON.stringify(value)}` };
      }
    }
    try {
      const out = await tool.handler(args);
      return { error: false, text: typeof out === 'string' ? out : String(JSON.stringify(out)) };
    } catch {
      return { error: true, text: 'the tool failed' };
    }
  }
}
const matches = (type: string, v: unknown): boolean => ({
  string: typeof v === 'string', integer: Number.isInteger(v), number: typeof v === 'number', boolean: typeof v === 'boolean',
  object: typeof v === 'object' && v !== null && !Array.isArray(v), array: Array.isArray(v), null: v === null,
} as Record<string, boolean>)[type] ?? false;

// ===== PLUG IN 1: build the case's tools in a fresh harness. ====================================
function build(turn: Turn): ToyHarness {
  const harness = new ToyHarness();
  for (const tool of turn.case.tools) harness.register(tool.name, tool.input_schema as Schema, turn.handler(tool));
  return harness; // throw new Skip('why') for a case your harness cannot express
}

// ===== PLUG IN 2: feed one turn's calls the way your agent loop does; report what the model sees.
async function runTurn(harness: ToyHarness, turn: Turn): Promise<void> {
  for (const call of turn.case.calls) {
    turn.currentCall = call; // handlers not told their call's id record this one
    await turn.harnessMayRaise(call, async () => { // if your harness throws, the model sees nothing
      const out = await harness.call(field(call, 'name'), field(call, 'input'));
      turn.report(idOrNull(call), { is_error: out.error, content: out.text });
    });
  }
}

// ===== PLUG IN 3: describe your harness; declare only what it really does. ======================
// A capability declared but missing shows up as FAILs; one left out is an honest SKIP (PROTOCOL.md
// section 2). Every capability of protocol 1 is below, with the names it takes; uncomment and edit
// what your harness has. (Written by `harness-conformance init` from the vocabulary of suite
// 1.1.0.)
const capabilities: Capabilities = {
  // cap: the output cap (none: the harness has no cap, and cap cases FAIL, by design). `unit`: what
  //   the limit counts (`tokens` with an `estimator`, PROTOCOL.md 4l); `strategies`: how it cuts,
  //   the first the default; `configurable`: a case may set the limit, the unit and the strategy.
  //   Units: bytes, chars, lines, tokens. Strategies: head_tail, head_only, reject, spill.
  // cap: { unit: 'chars', limit: 16384, strategies: ['head_tail'], configurable: false },
  cap: null,
  // codes: each outcome class your harness tells apart -> its own machine code (several classes may
  //   share one). Classes: invalid_arguments, unknown_tool, malformed_call, duplicate_call_id,
  //   tool_refused, tool_unavailable, timeout, internal_error, invalid_tool_output,
  //   semantic_violation, permission_denied, budget_exhausted, idempotency_conflict,
  //   commit_rejected, output_too_large, cancelled.
  // codes: { invalid_arguments: 'INVALID_ARGS', unknown_tool: 'NO_SUCH_TOOL' },
  // retryability: results say whether retrying the same call can help.
  // retryability: true,
  // deadline: handler deadlines: `configurable`, a case may set one; `default_ms`, the one the
  //   harness applies when none is set.
  // deadline: { configurable: true, default_ms: 30000 },
  // keywords: the JSON Schema keywords your harness enforces as the schema says (a case whose tools
  //   use another is skipped). Keywords: $ref, $defs, $anchor, $dynamicRef, $dynamicAnchor,
  //   definitions, allOf, anyOf, oneOf, not, if, then, else, dependentSchemas, dependencies,
  //   prefixItems, items, additionalItems, contains, properties, patternProperties,
  //   additionalProperties, propertyNames, unevaluatedItems, unevaluatedProperties, type, enum,
  //   const, multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum, maxLength,
  //   minLength, pattern, maxItems, minItems, uniqueItems, maxContains, minContains, maxProperties,
  //   minProperties, required, dependentRequired, format, contentEncoding, contentMediaType,
  //   contentSchema.
  // keywords: ['type', 'properties', 'required', 'additionalProperties', 'enum'],
  keywords: ['type', 'properties', 'required'],
  // call_forms: how a call may reach the harness: a structured block, its arguments as JSON text,
  //   or raw text. Forms: structured, arguments_text, raw.
  // call_forms: ['structured', 'arguments_text'],
  call_forms: ['structured'],
  // parallel: a turn's calls reach the harness as one batch.
  // parallel: true,
  // history: replies carry the calls as the harness's transcript keeps them.
  // history: true,
  // features: optional feature sets (PROTOCOL.md sections 4a-4f); declare only those your harness
  //   has. Features: authorization, bounds, budget, idempotency, path-confinement, prepare-commit,
  //   offered-tools, stop-reason, repair, cancel, serial-calls, mcp-client, resume, image-limits,
  //   spill-lifecycle, pause, context-cap.
  // features: ['authorization', 'budget'],
  // folds: a class your harness does not tell apart -> the class it answers it as (which has a
  //   code), so it is judged on the partition it has.
  // folds: { malformed_call: 'invalid_arguments' },
  // behaviors: scripted behaviours beyond the base set whose results your harness carries
  //   faithfully (the kit performs them all). Behaviours: non_finite_in, non_json, output_schema,
  //   content_blocks, audio_blocks, resource_link_blocks, stream.
  // behaviors: ['non_finite_in'],
  // call_ids: false for a harness that never sees the model's tool-use ids (an MCP server: its host
  //   pairs results with calls); the id cases are then skipped.
  // call_ids: false,
  // dialect: the model provider whose request format your harness's results go into; every result
  //   is then judged by that provider's acceptance rules (PROTOCOL.md 4i). Dialects:
  //   anthropic-messages, bedrock-converse.
  // dialect: 'anthropic-messages',
  // wrapper: the markers your harness frames every result in, as a tool's untrusted text, and the
  //   escapes it applies to copies of them in an output (PROTOCOL.md 4l).
  // wrapper: { open: '<tool_output>\n', close: '\n</tool_output>' },
};

await main(defineAdapter({
  implementation: { name: 'toy-harness', language: 'javascript', version: '0.1', homepage: 'https://example.invalid/toy' },
  capabilities,
  errors: { domain: (m) => new Error(m), transport: (m) => new Error(m), internal: (m) => new Error(m) }, // YOUR error types
  build,
  runTurn,
}));
