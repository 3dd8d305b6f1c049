// Typed, read-only views of one case as the runner sends it (run.schema.json#/$defs/case).
//
// Why this module exists: the wire case is nested JSON where absence carries meaning (an absent
// `input` differs from `"input": null`; an absent `deadline_ms` means the harness's own default).
// These views name every field once, keep absence visible (`MISSING`), and keep the raw JSON at
// hand (`.raw`) for fields a newer protocol adds before this kit models them.

import type { CallForm } from './capabilities.js';
import { ErrorCode, KitError } from './errors.js';
import type { Json } from './json.js';

/** A field the case leaves out (distinct from JSON null). */
export const MISSING: unique symbol = Symbol('MISSING');
export type Missing = typeof MISSING;

type JsonObject = { [key: string]: Json };

const malformed = (what: string, problem: string) => new KitError(ErrorCode.MALFORMED_MESSAGE, { what, problem });

function object(value: Json | undefined, what: string): JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw malformed(what, 'not a JSON object');
  return value;
}

/** One tool of the case: register it in the harness exactly as given. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: JsonObject;
  readonly behavior: JsonObject;
  readonly policy: JsonObject | null;
  readonly raw: JsonObject;
  /** The JSON Schema its structured results must match (behaviour `output_schema`), or null. */
  readonly output_schema: JsonObject | boolean | null;
}

/** One call of the turn, in the form the model sent it; `id`, `name`, `input` may be MISSING. */
export interface Call {
  readonly form: CallForm;
  readonly id: Json | Missing;
  readonly name: Json | Missing;
  readonly input: Json | Missing;
  readonly arguments_text: string | null;
  readonly raw_text: string | null;
  readonly raw: JsonObject;
}

/** The case's configuration; each field null when absent (the harness's own default). */
export interface Config {
  readonly cap_limit: number | null;
  readonly cap_unit: string | null;
  readonly cap_strategy: string | null;
  readonly deadline_ms: number | null;
  /** The model provider's image limits (feature `image-limits`, PROTOCOL.md section 4h). */
  readonly image_limit: ImageLimit | null;
  /** The room left in the model's context window, in the cap's unit (feature `context-cap`, PROTOCOL.md section 4l). */
  readonly cap_remaining: number | null;
}

/** Inclusive bounds on one image: pixels wide, pixels high, length of its base64 text. */
export interface ImageLimit {
  readonly max_width?: number;
  readonly max_height?: number;
  readonly max_base64_bytes?: number;
}

/** One case: build these tools in a fresh harness, feed these calls as one turn. */
export interface Case {
  readonly id: string;
  readonly config: Config;
  readonly tools: readonly Tool[];
  readonly calls: readonly Call[];
  readonly context: JsonObject | null;
  readonly security: JsonObject | null;
  /**
   * The tools this turn offers the model when it offers only some of them (feature
   * `offered-tools`); null means every tool. A call to any other tool is refused like an
   * unknown one.
   */
  readonly offered: readonly string[] | null;
  /**
   * Why the model's turn ended when the case is about it (feature `stop-reason`): `max_tokens`
   * means the output limit cut the turn off, so its last call may be incomplete and must not
   * run. Null otherwise.
   */
  readonly stop_reason: 'tool_use' | 'end_turn' | 'max_tokens' | null;
  /**
   * Feature `cancel`: cancel the turn this many ms after handing it to the harness, the way its
   * user would (an AbortController, a stop button). Null otherwise.
   */
  readonly cancel_after_ms: number | null;
  /**
   * Feature `serial-calls`: false when the harness is to run with parallel tool calls disabled
   * (the model sent several calls anyway). Null otherwise.
   */
  readonly parallel_calls: boolean | null;
  readonly raw: JsonObject;
}

/** The tools this turn offers the model: all of them unless `offered` names a subset. */
export const offeredTools = (c: Case): readonly Tool[] =>
  c.offered === null ? c.tools : c.tools.filter((t) => c.offered!.includes(t.name));

/** The call's id with an absent id as null (what most harnesses' call types hold). */
export const idOrNull = (call: Call): Json => (call.id === MISSING ? null : call.id);

/** A field of the call as sent, `undefined` when absent. */
export const field = (call: Call, key: string): Json | undefined => call.raw[key];

export function parseTool(value: Json | undefined): Tool {
  const raw = object(value, 'tool');
  for (const key of ['name', 'input_schema', 'behavior']) if (!(key in raw)) throw malformed('tool', `missing ${key}`);
  if (typeof raw.name !== 'string') throw malformed('tool', 'name is not a string');
  return {
    name: raw.name,
    description: typeof raw.description === 'string' ? raw.description : '',
    input_schema: object(raw.input_schema, 'tool input_schema'),
    behavior: object(raw.behavior, 'tool behavior'),
    policy: raw.policy === undefined || raw.policy === null ? null : object(raw.policy, 'tool policy'),
    raw,
    output_schema: typeof raw.output_schema === 'boolean' ? raw.output_schema : raw.output_schema == null ? null : object(raw.output_schema, 'tool output_schema'),
  };
}

export function parseCall(value: Json | undefined): Call {
  const raw = object(value, 'call');
  const form: CallForm = 'raw' in raw ? 'raw' : 'arguments_text' in raw ? 'arguments_text' : 'structured';
  const has = (k: string) => Object.prototype.hasOwnProperty.call(raw, k);
  return {
    form,
    id: has('id') ? (raw.id as Json) : MISSING,
    name: has('name') ? (raw.name as Json) : MISSING,
    input: has('input') ? (raw.input as Json) : MISSING,
    arguments_text: form === 'arguments_text' ? String(raw.arguments_text) : null,
    raw_text: form === 'raw' ? String(raw.raw) : null,
    raw,
  };
}

export function parseCase(value: Json | undefined): Case {
  const raw = object(value, 'case');
  if (typeof raw.id !== 'string') throw malformed('case', 'id is missing or not a string');
  if (!Array.isArray(raw.tools)) throw malformed('case', 'tools is missing or not an array');
  if (!Array.isArray(raw.calls)) throw malformed('case', 'calls is missing or not an array');
  const config = raw.config === undefined || raw.config === null ? {} : object(raw.config, 'config');
  const cap = config.cap === undefined || config.cap === null ? {} : object(config.cap, 'config cap');
  const num = (v: Json | undefined) => (typeof v === 'number' ? v : null);
  const str = (v: Json | undefined) => (typeof v === 'string' ? v : null);
  const offered = raw.offered === undefined || raw.offered === null ? null : raw.offered;
  if (offered !== null && !(Array.isArray(offered) && offered.every((n) => typeof n === 'string'))) {
    throw malformed('case', 'offered is not an array of tool names');
  }
  const stop = raw.stop_reason === undefined || raw.stop_reason === null ? null : raw.stop_reason;
  if (stop !== null && stop !== 'tool_use' && stop !== 'end_turn' && stop !== 'max_tokens') {
    throw malformed('case', 'stop_reason is not tool_use, end_turn or max_tokens');
  }
  const cancelAfter = raw.cancel_after_ms === undefined || raw.cancel_after_ms === null ? null : raw.cancel_after_ms;
  if (cancelAfter !== null && !(typeof cancelAfter === 'number' && Number.isInteger(cancelAfter) && cancelAfter >= 0)) {
    throw malformed('case', 'cancel_after_ms is not a non-negative integer');
  }
  const parallel = raw.parallel_calls === undefined || raw.parallel_calls === null ? null : raw.parallel_calls;
  if (parallel !== null && typeof parallel !== 'boolean') {
    throw malformed('case', 'parallel_calls is not a boolean');
  }
  return {
    id: raw.id,
    config: { cap_limit: num(cap.limit), cap_unit: str(cap.unit), cap_strategy: str(cap.strategy), deadline_ms: num(config.deadline_ms),
      image_limit: config.image_limit === undefined || config.image_limit === null ? null : (object(config.image_limit, 'config image_limit') as ImageLimit),
      cap_remaining: num(cap.remaining) },
    tools: raw.tools.map(parseTool),
    calls: raw.calls.map(parseCall),
    context: raw.context === undefined ? null : object(raw.context, 'context'),
    security: raw.security === undefined ? null : object(raw.security, 'security'),
    offered: offered === null ? null : (offered as string[]),
    stop_reason: stop,
    cancel_after_ms: cancelAfter as number | null,
    parallel_calls: parallel as boolean | null,
    raw,
  };
}
