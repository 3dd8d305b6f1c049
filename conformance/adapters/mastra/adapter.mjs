// Adapter: Mastra's agent loop (@mastra/core) behind the conformance protocol.
//
// What is tested: a Mastra `Agent` (`@mastra/core/agent`, the documented entry point) whose model
// is the AI SDK's scripted `MockLanguageModelV3` (`ai/test`), offline. On its first call the model
// streams the case's calls as `tool-call` parts of one step (finish reason `tool-calls`); Mastra
// validates and runs them (`packages/core/src/tools/validation.ts` `validateToolInput`, called by
// the tool's wrapped `execute` in `tools/tool.ts`, inside the agent's tool-call step); the adapter
// reads the prompt of the model's NEXT call — what the model is shown — and reports its
// `tool-result` parts in order: `content` is the output's text (`text` / `error-text` values as
// they are, `json` / `error-json` values as JSON text, which is what every AI SDK provider sends),
// `is_error` is whether the output type is an `error-*` one.
//
// Tools: `createTool({id, description, inputSchema, execute})` with the case's JSON Schema given as
// it is. Mastra's `Tool` accepts a plain JSON Schema (it wraps it with `toStandardSchema`, which
// validates with Ajv: draft-07 unless the schema's `$schema` names 2020-12; `strict: false`, no
// formats), the form its MCP client uses for servers' schemas; a zod rewrite would only
// approximate it. The keywords declared are those Ajv's draft-07 validator implements.
//
// Calls: the AI SDK's tool-call part carries the arguments as JSON text, as every provider
// delivers them; an `arguments_text` call is that text, a structured call is `JSON.stringify` of
// its input (what a provider's parser would have received); a call without `input` cannot be
// stated as a tool-call part and SKIPs.
//
// Handler errors: Mastra shows a thrown error's message to the model as an error result, with no
// separate "show this to the model" type; domain → `Error`, transport → an `Error` shaped like
// Node's network errors (`code: "ECONNRESET"`), internal → `Error`.
//
// When `agent.generate` throws, the model sees nothing: no results are reported and the kit writes
// the error to stderr. Telemetry, provider-registry refreshes and storage are off (`run` sets
// MASTRA_TELEMETRY_DISABLED, MASTRA_OFFLINE, MASTRA_AUTO_REFRESH_PROVIDERS before the import).
//
// The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
// conformance/kits/typescript (@harness-conformance/adapter).

import { readFileSync } from 'node:fs';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { MockLanguageModelV3 } from 'ai/test';
import { Skip, defineAdapter, field, main, toJson } from '@harness-conformance/adapter';

const installed = (pkg) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;

// What Ajv's draft-07 validator implements (without ajv-formats: `format` is not asserted).
const KEYWORDS = [
  '$ref', 'definitions', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependencies', 'items',
  'additionalItems', 'contains', 'properties', 'patternProperties', 'additionalProperties', 'propertyNames',
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties',
  'required',
  '$schema', '$id', '$comment', 'title', 'description', 'default', 'examples', 'readOnly', 'writeOnly',
];

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function toolFor(caseTool, turn) {
  const handle = turn.handler(caseTool);
  return createTool({
    id: caseTool.name,
    description: caseTool.description,
    inputSchema: caseTool.input_schema,
    execute: async (input, context) => handle(input, context?.agent?.toolCallId),
  });
}

function toolCallPart(call) {
  if (call.form === 'raw') {
    throw new Skip('the AI SDK receives calls already split into id, name and arguments; a raw block is not expressible');
  }
  let input;
  if (call.form === 'arguments_text') input = call.arguments_text;
  else if (!('input' in call.raw)) throw new Skip('an AI SDK tool-call part always carries its arguments text');
  else input = JSON.stringify(field(call, 'input'));
  return { type: 'tool-call', toolCallId: field(call, 'id'), toolName: field(call, 'name'), input };
}

function generated(content, finish) {
  return { content, finishReason: { unified: finish, raw: finish }, usage: USAGE, warnings: [] };
}

function build(turn) {
  const tools = Object.fromEntries(turn.case.tools.map((t) => [t.name, toolFor(t, turn)]));
  const parts = turn.case.calls.map(toolCallPart);
  const seen = {};
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      if (!seen.first) {
        seen.first = true;
        return generated(parts, 'tool-calls');
      }
      seen.nextPrompt ??= options.prompt;
      return generated([{ type: 'text', text: 'done' }], 'stop');
    },
  });
  const agent = new Agent({ id: 'conformance', name: 'conformance', instructions: 'Run the tools.', model, tools });
  return { agent, seen, parts };
}

function outputText(output) {
  if (output === undefined || output === null) return '';
  if (output.type === 'text' || output.type === 'error-text') return output.value;
  if (output.type === 'json' || output.type === 'error-json') return JSON.stringify(output.value);
  if (output.type === 'content') {
    return output.value.filter((p) => p.type === 'text').map((p) => p.text).join('');
  }
  return '';
}

// A call as the transcript keeps it: the prompt's tool-call parts hold parsed input objects.
function historyEntry(part) {
  const key = typeof part.input === 'string' ? 'arguments_text' : 'input';
  return { id: part.toolCallId ?? null, name: part.toolName ?? null, [key]: toJson(part.input) };
}

async function runTurn({ agent, seen, parts }, turn) {
  await turn.harnessMayRaise(turn.case.calls, async () => {
    await agent.generate('run the tools', { maxSteps: 2 });
  });
  turn.history = parts.map(historyEntry); // what the caller holds if the run throws
  for (const message of seen.nextPrompt ?? []) {
    if (message.role === 'assistant') {
      const calls = message.content.filter((p) => p.type === 'tool-call');
      if (calls.length) turn.history = calls.map(historyEntry);
    }
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const output = part.output;
      turn.report(part.toolCallId ?? null, {
        is_error: typeof output?.type === 'string' && output.type.startsWith('error-'),
        content: outputText(output),
        native: toJson(part),
      });
    }
  }
}

function networkError(message) {
  return Object.assign(new Error(message), { code: 'ECONNRESET', syscall: 'read' });
}

await main(defineAdapter({
  implementation: {
    name: 'Mastra Agent (createTool, JSON Schema input)',
    language: 'typescript',
    version: `@mastra/core ${installed('@mastra/core')} (ai ${installed('ai')})`,
    homepage: 'https://github.com/mastra-ai/mastra',
  },
  capabilities: {
    cap: null,
    retryability: false,
    keywords: KEYWORDS,
    call_forms: ['structured', 'arguments_text'],
    parallel: true,
    history: true,
  },
  errors: {
    domain: (message) => new Error(message),
    transport: networkError,
    internal: (message) => new Error(message),
  },
  build,
  runTurn,
}));
