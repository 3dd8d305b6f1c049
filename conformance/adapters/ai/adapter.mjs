// Adapter: the Vercel AI SDK (`ai`) tool loop behind the conformance protocol.
//
// Two columns share this file (`run` scripts in ai/ and ai-strict/), differing only in how a
// tool's zod schema writes an object (zod-schema.mjs): `ai` writes every object as `z.object`,
// the idiom of the AI SDK's docs and examples (zod strips unknown keys and never refuses them);
// `ai-strict` (pass `--exact-objects`) writes `additionalProperties: false` as `z.strictObject`
// and an open object as `z.looseObject`. The unknown-field verdicts differ between the two, and
// both are idioms an AI SDK user writes, so both are published.
//
// What is tested: `generateText({model, tools, prompt, stopWhen: stepCountIs(2)})` whose model is
// the AI SDK's own scripted `MockLanguageModelV3` (`ai/test`), offline. The first model call
// answers with the case's calls as `tool-call` parts of one step (finish reason `tool-calls`); the
// SDK parses and validates each (`parseToolCall` / `doParseToolCall`: `safeParseJSON` of the
// arguments text against the tool's schema, `src/generate-text/parse-tool-call.ts`), runs the valid
// ones (`executeTools` → `executeToolCall`, `src/generate-text/execute-tool-call.ts`, all at once)
// and turns invalid calls and thrown errors into `tool-error`s; the adapter reads the prompt of the
// model's SECOND call — what the model is shown — and reports its `tool-result` parts in order:
// `content` is the output's text (`text` / `error-text` values as they are, `json` / `error-json`
// values as JSON text, which is what every AI SDK provider sends), `is_error` whether the output
// type is an `error-*` one.
//
// Tools: `tool({description, inputSchema: <zod>, execute})` (`ai`'s `tool()` helper, zod 4, as the
// docs write tools). The handler is given the SDK's `toolCallId` and `abortSignal`, as a tool that
// passes the signal on to `fetch` is.
//
// Calls: a `tool-call` part carries its arguments as JSON text, as every provider delivers them; an
// `arguments_text` call is that text, a structured call is `JSON.stringify` of its input (what the
// provider's parser would have received); a call without `input` cannot be stated as a tool-call
// part and SKIPs; a raw block SKIPs.
//
// Handler errors: the SDK shows a thrown error's message to the model as an `error-text` result and
// has no separate "show this to the model" type: domain → `Error`, transport → an `Error` shaped
// like Node's network errors (`code: "ECONNRESET"`), internal → `Error`.
//
// Capabilities: deadline = `timeout: {stepMs}` (the SDK's step timeout: it aborts the step's
// `abortSignal`, which the tools receive; declared configurable, no default); feature
// `offered-tools` = `activeTools`; feature `cancel` = the caller's `abortSignal`, aborted
// `cancel_after_ms` after the turn starts; feature `stop-reason` = the step's finish reason
// (`tool-calls`, `stop`, `length` for a turn cut off by the output limit: the SDK runs tools only
// for the first two, `is-tool-execution-allowed-finish-reason.ts`). No cap, no codes, no retry hints.
//
// When `generateText` throws, the model sees nothing: no results are reported and the kit writes
// the error to stderr.
//
// The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
// conformance/kits/typescript (@harness-conformance/adapter).

import { readFileSync } from 'node:fs';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import * as z from 'zod';
import { Skip, defineAdapter, field, main, toJson } from '@harness-conformance/adapter';
import { KEYWORDS, zodFor } from './zod-schema.mjs';

const EXACT = process.argv.includes('--exact-objects');

const installed = (pkg) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function toolFor(caseTool, turn) {
  let inputSchema;
  try {
    inputSchema = zodFor(z, caseTool.input_schema, EXACT ? 'exact' : 'plain');
  } catch (e) {
    if (e instanceof Skip) throw new Skip(`tool ${JSON.stringify(caseTool.name)}: ${e.message}`);
    throw e;
  }
  const handle = turn.handler(caseTool);
  return tool({
    description: caseTool.description,
    inputSchema,
    execute: async (input, { toolCallId, abortSignal }) => handle(input, toolCallId, abortSignal),
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

// The finish reason the provider reports for the turn (feature `stop-reason`).
const FINISH = { tool_use: 'tool-calls', end_turn: 'stop', max_tokens: 'length' };

function build(turn) {
  const tools = Object.fromEntries(turn.case.tools.map((t) => [t.name, toolFor(t, turn)]));
  const parts = turn.case.calls.map(toolCallPart);
  const finish = FINISH[turn.case.stop_reason ?? 'tool_use'];
  const seen = {};
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      if (!seen.first) {
        seen.first = true;
        return generated(parts, finish);
      }
      seen.nextPrompt ??= options.prompt;
      return generated([{ type: 'text', text: 'done' }], 'stop');
    },
  });
  return { model, tools, parts, seen };
}

function outputText(output) {
  if (output === undefined || output === null) return '';
  if (output.type === 'text' || output.type === 'error-text') return output.value;
  if (output.type === 'json' || output.type === 'error-json') return JSON.stringify(output.value) ?? '';
  if (output.type === 'content') return output.value.filter((p) => p.type === 'text').map((p) => p.text).join('');
  if (output.type === 'execution-denied') return output.reason ?? '';
  return '';
}

// A call as the transcript keeps it: the prompt's tool-call parts hold parsed input objects.
function historyEntry(part) {
  const key = typeof part.input === 'string' ? 'arguments_text' : 'input';
  return { id: part.toolCallId ?? null, name: part.toolName ?? null, [key]: toJson(part.input) };
}

async function runTurn({ model, tools, seen }, turn) {
  const { offered, cancel_after_ms: cancelAfter } = turn.case;
  const deadline = turn.case.config.deadline_ms;
  const controller = cancelAfter === null ? undefined : new AbortController();
  const timer = controller && setTimeout(() => controller.abort(), cancelAfter);
  try {
    await turn.harnessMayRaise(turn.case.calls, async () => {
      await generateText({
        model,
        tools,
        prompt: 'run the tools',
        stopWhen: stepCountIs(2),
        maxRetries: 0,
        ...(offered === null ? {} : { activeTools: [...offered] }),
        ...(controller === undefined ? {} : { abortSignal: controller.signal }),
        ...(deadline === null ? {} : { timeout: { stepMs: deadline } }),
      });
    });
  } finally {
    if (timer) clearTimeout(timer);
  }
  // What the caller holds if the run throws: the calls the model sent (the adapter built the parts from them).
  turn.history = turn.case.calls.map((c) => ({ id: c.raw.id ?? null, name: c.raw.name ?? null,
    ...(c.form === 'arguments_text' ? { arguments_text: c.arguments_text } : { input: toJson(c.raw.input) }) }));
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
    name: `Vercel AI SDK generateText (tool() with zod ${EXACT ? 'z.strictObject / z.looseObject' : 'z.object'})`,
    language: 'typescript',
    version: `ai ${installed('ai')} (zod ${installed('zod')})`,
    homepage: 'https://github.com/vercel/ai',
  },
  capabilities: {
    cap: null,
    retryability: false,
    deadline: { configurable: true },
    keywords: KEYWORDS,
    call_forms: ['structured', 'arguments_text'],
    parallel: true,
    history: true,
    features: ['offered-tools', 'cancel', 'stop-reason'],
  },
  errors: {
    domain: (message) => new Error(message),
    transport: networkError,
    internal: (message) => new Error(message),
  },
  build,
  runTurn,
}));
