// Adapter: LangGraph.js's prebuilt `ToolNode` (@langchain/langgraph) behind the conformance protocol.
//
// Two implementations share this file (`run` scripts in langgraph-js/ and langchain-js-agent/):
// the prebuilt `ToolNode` in a one-node graph (below), and, with `--create-agent`, LangChain.js
// v1's `createAgent` — the agent its docs recommend — whose tool step is langchain's own
// `ToolNode` (`langchain/dist/agents/nodes/ToolNode.js`: other error handling, other messages). The
// agent is driven by a scripted chat model (a `BaseChatModel` whose first answer is the case's
// `AIMessage` and which records the messages of its next call, what the model is shown).
//
// What is tested: a one-node `StateGraph(MessagesAnnotation)` holding `new ToolNode(tools)` — the
// tool step of every LangGraph.js agent, with its defaults (`handleToolErrors: true`) — invoked
// with the case's calls as one `AIMessage`. Structured calls become `AIMessage({tool_calls})`;
// calls with arguments as text become the provider-style `additional_kwargs.tool_calls`, which
// @langchain/core parses itself (`defaultToolCallParser`; unparseable ones land in
// `invalid_tool_calls`, as with a real chat model). The adapter reports the `ToolMessage`s the
// graph appends — what the model is shown on its next turn: `content`, `status === "error"`,
// `tool_call_id`.
//
// Tools: `tool(fn, {name, description, schema})` from @langchain/core/tools with the case's JSON
// Schema given as it is. @langchain/core documents both zod and JSON Schema for `schema`, and
// validates a JSON Schema in full with @cfworker/json-schema (`StructuredTool.call`, draft
// 2019-09, its default), so the JSON form is exact where a zod rewrite would approximate; the
// keywords declared are those @cfworker/json-schema implements. The handler is told its call id
// by the ToolNode (`config.toolCall.id`).
//
// Handler errors: the ToolNode shows every thrown error's message to the model, so there is no
// separate "show this to the model" type; domain → `Error`, transport → an `Error` shaped like
// Node's network errors (`code: "ECONNRESET"`, `syscall: "read"`), internal → `Error`.
//
// Deadline: the compiled graph's `stepTimeout` (ms), set from the case's `deadline_ms`; LangGraph
// has no default. When it fires, or the graph throws, the whole step is lost and the model sees
// nothing: no results are reported and the kit writes the error to stderr.
//
// The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
// conformance/kits/typescript (@harness-conformance/adapter).

import { readFileSync } from 'node:fs';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { createAgent } from 'langchain';
import { Skip, defineAdapter, field, main, toJson } from '@harness-conformance/adapter';

process.env.LANGCHAIN_TRACING_V2 = 'false';
process.env.LANGSMITH_TRACING = 'false';
process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';

const CREATE_AGENT = process.argv.slice(2).includes('--create-agent');

const installed = (pkg) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;

// What @cfworker/json-schema validates (dist/esm/validate.js, dereference.js), plus annotations.
const KEYWORDS = [
  '$ref', '$defs', '$anchor', 'definitions', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else',
  'dependentSchemas', 'dependencies', 'prefixItems', 'items', 'additionalItems', 'contains', 'properties',
  'patternProperties', 'additionalProperties', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties',
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains',
  'maxProperties', 'minProperties', 'required', 'dependentRequired', 'format',
  '$schema', '$id', '$comment', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly',
];

function toolFor(caseTool, turn) {
  const handle = turn.handler(caseTool);
  return tool(async (input, config) => handle(input, config?.toolCall?.id), {
    name: caseTool.name,
    description: caseTool.description,
    schema: caseTool.input_schema,
  });
}

function aiMessage(calls) {
  const structured = [];
  const provider = [];
  for (const call of calls) {
    if (call.form === 'raw') {
      throw new Skip('langchain receives calls already split into name, id and arguments; a raw block is not expressible');
    }
    if (call.form === 'arguments_text') {
      provider.push({ id: field(call, 'id'), type: 'function',
        function: { name: field(call, 'name'), arguments: call.arguments_text } });
    } else {
      structured.push({ name: field(call, 'name'), args: field(call, 'input'), id: field(call, 'id'), type: 'tool_call' });
    }
  }
  if (provider.length && structured.length) {
    throw new Skip('one assistant message cannot mix parsed tool calls with provider-format tool calls');
  }
  if (provider.length) return new AIMessage({ content: '', additional_kwargs: { tool_calls: provider } });
  return new AIMessage({ content: '', tool_calls: structured });
}

// The calls as the assistant message keeps them after the turn.
function historyOf(message) {
  const provider = message.additional_kwargs?.tool_calls;
  if (provider?.length) {
    // provider-format calls: the message keeps the model's text verbatim here
    return provider.map((c) => ({ id: c.id ?? null, name: c.function?.name ?? null, arguments_text: c.function?.arguments ?? null }));
  }
  return (message.tool_calls ?? []).map((c) => ({ id: c.id ?? null, name: c.name ?? null, input: toJson(c.args) }));
}

function contentText(content) {
  if (typeof content === 'string') return content;
  return content.filter((b) => b && b.type === 'text').map((b) => b.text ?? '').join('');
}

// A chat model that answers the first request with the case's calls and records the next one.
class ScriptedChatModel extends BaseChatModel {
  constructor(seen) {
    super({});
    this.seen = seen;
  }

  _llmType() {
    return 'scripted';
  }

  bindTools() {
    return this;
  }

  async _generate(messages) {
    if (!this.seen.first) {
      this.seen.first = true;
      return { generations: [{ message: this.seen.message, text: '' }] };
    }
    this.seen.next ??= messages;
    return { generations: [{ message: new AIMessage('done'), text: 'done' }] };
  }
}

function buildAgent(turn) {
  const seen = {};
  const agent = createAgent({ model: new ScriptedChatModel(seen), tools: turn.case.tools.map((t) => toolFor(t, turn)) });
  return { agent, seen };
}

async function runAgentTurn({ agent, seen }, turn) {
  await turn.harnessMayRaise(turn.case.calls, async () => { seen.message = aiMessage(turn.case.calls); });
  if (seen.message === undefined) return;
  await turn.harnessMayRaise(turn.case.calls, async () => {
    await agent.invoke({ messages: [new HumanMessage('run the tools')] });
  });
  turn.history = historyOf(seen.message);
  for (const m of seen.next ?? []) {
    if (ToolMessage.isInstance(m)) reportToolMessage(m, turn);
    else if (AIMessage.isInstance(m) && m !== seen.message && (m.tool_calls?.length || m.additional_kwargs?.tool_calls?.length)) {
      turn.history = historyOf(m);
    }
  }
}

function reportToolMessage(m, turn) {
  turn.report(m.tool_call_id ?? null, {
    is_error: m.status === 'error',
    content: contentText(m.content),
    native: toJson({ type: 'tool', tool_call_id: m.tool_call_id, status: m.status, name: m.name, content: m.content }),
  });
}

function build(turn) {
  const node = new ToolNode(turn.case.tools.map((t) => toolFor(t, turn)));
  const app = new StateGraph(MessagesAnnotation)
    .addNode('tools', node)
    .addEdge(START, 'tools')
    .addEdge('tools', END)
    .compile();
  const deadline = turn.case.config.deadline_ms;
  if (deadline !== null) app.stepTimeout = deadline;
  return app;
}

async function runTurn(app, turn) {
  let message;
  await turn.harnessMayRaise(turn.case.calls, async () => { message = aiMessage(turn.case.calls); });
  if (message === undefined) return;
  turn.history = historyOf(message); // what the caller holds if the graph throws
  await turn.harnessMayRaise(turn.case.calls, async () => {
    const state = await app.invoke({ messages: [message] });
    for (const m of state.messages) {
      if (ToolMessage.isInstance(m)) reportToolMessage(m, turn);
      else if (AIMessage.isInstance(m)) turn.history = historyOf(m);
    }
  });
}

function networkError(message) {
  return Object.assign(new Error(message), { code: 'ECONNRESET', syscall: 'read' });
}

await main(defineAdapter({
  implementation: {
    name: CREATE_AGENT ? 'LangChain.js createAgent (its ToolNode, defaults)' : 'LangGraph.js ToolNode (handleToolErrors default)',
    language: 'typescript',
    version: `@langchain/langgraph ${installed('@langchain/langgraph')}, @langchain/core ${installed('@langchain/core')}, `
      + `langchain ${installed('langchain')}`,
    homepage: 'https://github.com/langchain-ai/langgraphjs',
  },
  capabilities: {
    cap: null,
    retryability: false,
    ...(CREATE_AGENT ? {} : { deadline: { configurable: true } }),
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
  build: CREATE_AGENT ? buildAgent : build,
  runTurn: CREATE_AGENT ? runAgentTurn : runTurn,
}));
