// Adapter: put YOUR TypeScript/JavaScript harness behind the harness-conformance protocol.
//
//     npm install -D harness-conformance@{{suite}} @harness-conformance/adapter@{{suite}} typescript @types/node
//     npx tsc -p {{dir}} && npx harness-conformance run --harness 'node {{built}}'
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
{{capabilities}}

await main(defineAdapter({
  implementation: { name: {{name}}, language: {{language}}, version: {{version}}{{homepage}} },
  capabilities,
  errors: { domain: (m) => new Error(m), transport: (m) => new Error(m), internal: (m) => new Error(m) }, // YOUR error types
  build,
  runTurn,
}));
