// The MCP host, once: what the model sees of an MCP server's answers (PROTOCOL.md section 3b).
//
// Why this module exists: an MCP SDK is a server, and what the model is shown is decided by the
// host that turns each `tool_use` into a `tools/call` request and its answer into a `tool_result`.
// If every MCP adapter wrote its own host loop, a column would judge that loop (a host that drops a
// JSON-RPC error makes the SDK look as if it answered nothing). This helper is the one host every
// MCP adapter uses, doing what mainstream hosts (Claude Desktop, Claude Code, VS Code) do:
//
// - the turn's calls go out one at a time, in order, as `tools/call` with the call's name and its
//   `input` as `arguments`, exactly as sent (absent stays absent: `undefined` reaches `callTool`);
//   raw and arguments-text calls do not exist in MCP and make the case SKIP;
// - each call gets exactly one result, carrying the model's id (the server never sees ids, so MCP
//   adapters declare `call_ids: false`);
// - a CallToolResult (MCP JSON: `content` blocks, `isError`) becomes the result, text blocks
//   concatenated in order;
// - a JSON-RPC error answering the request, the client's own request timeout, and a request the
//   client refuses to send are shown as an error result carrying the SDK client's message; the
//   adapter says which errors those are (`isError`);
// - anything else the client throws is the SDK failing: no result, logged by `harnessMayRaise`.
//
// The host adds no cap, code, retry hint or wording of its own. The SDK is the adapter's, so this
// module imports none: the adapter passes a `callTool` function that calls its SDK's client.

import type { Call } from './case.js';
import { idOrNull, MISSING } from './case.js';
import type { Json } from './json.js';
import { Skip, type Turn } from './turn.js';

/** One `tools/call` through the SDK's client; `args` is `undefined` when the call has no `input`. */
export type CallTool = (name: Json | undefined, args: Json | undefined) => Promise<unknown>;

/** How the host tells the SDK client's request errors from its crashes, and what it shows. */
export interface McpHostOptions {
  /** True for a JSON-RPC error response, the client's own timeout, or a request it refuses to send. */
  isError: (error: unknown) => boolean;
  /** The text a host shows for such an error (default: its `message`). */
  message?: (error: unknown) => string;
}

/** The text the model is shown for a CallToolResult (MCP JSON): its text blocks, in order. */
export function textOf(result: unknown): string {
  const blocks = (result as { content?: unknown } | null)?.content;
  if (!Array.isArray(blocks)) return '';
  return blocks
    .filter((b) => b && typeof b === 'object' && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('');
}

/**
 * The `blocks` to report for a CallToolResult (MCP JSON): its text, image, embedded resource, audio
 * and resource link blocks in order with only the fields the protocol reads, or null when it holds text only.
 */
export function blocksOf(result: unknown): Json[] | null {
  const content = (result as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return null;
  const out: { [key: string]: Json }[] = [];
  for (const b of content) {
    if (!b || typeof b !== 'object') continue;
    if (b.type === 'text' && typeof b.text === 'string') out.push({ type: 'text', text: b.text });
    else if (b.type === 'image' || b.type === 'audio') out.push({ type: b.type, data: b.data, mimeType: b.mimeType });
    else if (b.type === 'resource_link') {
      const link: { [key: string]: Json } = { type: 'resource_link' };
      for (const k of ['uri', 'name', 'title', 'description', 'mimeType', 'size']) if (k in b) link[k] = b[k];
      out.push(link);
    }
    else if (b.type === 'resource' && b.resource && typeof b.resource === 'object') {
      const r: { [key: string]: Json } = {};
      for (const k of ['uri', 'mimeType', 'text', 'blob']) if (k in b.resource) r[k] = b.resource[k];
      out.push({ type: 'resource', resource: r });
    }
  }
  return out.every((b) => b.type === 'text') ? null : out;
}

const messageOf = (error: unknown): string => String((error as { message?: unknown } | null)?.message ?? error);

/** Runs the turn's calls through the host, reporting one result per call the SDK answered. */
export async function mcpHost(turn: Turn, callTool: CallTool, options: McpHostOptions): Promise<void> {
  const calls = turn.case.calls;
  if (calls.some((c) => c.form !== 'structured')) {
    throw new Skip('MCP tool calls carry arguments as a JSON object; raw and text forms are not expressible');
  }
  const message = options.message ?? messageOf;
  for (const call of calls) await one(turn, call, callTool, options.isError, message);
}

async function one(
  turn: Turn, call: Call, callTool: CallTool, isError: (e: unknown) => boolean, message: (e: unknown) => string,
): Promise<void> {
  turn.currentCall = call; // one call at a time, so handlers know which call runs
  await turn.harnessMayRaise(call, async () => {
    let result: unknown;
    try {
      result = await callTool(call.name === MISSING ? undefined : call.name, call.input === MISSING ? undefined : call.input);
    } catch (e) {
      if (!isError(e)) throw e;
      turn.report(idOrNull(call), { is_error: true, content: message(e), native: { error: message(e) } });
      return;
    }
    const flagged = (result as { isError?: unknown } | null)?.isError === true;
    turn.report(idOrNull(call), { is_error: flagged, content: textOf(result), native: result, blocks: blocksOf(result) });
  });
  turn.currentCall = null;
}
