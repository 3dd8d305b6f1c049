// Scripted tool behaviours (PROTOCOL.md section 4) as JavaScript functions.
//
// Why this module exists: every case's handlers are scripts — return this, raise that kind of
// error, sleep, change my own arguments, then return — and every adapter must perform them
// exactly, since the runner materialises the same outputs for its checks. The three registries
// below are the only place each word of the script is given meaning:
//
// - STEPS: behaviour kind → one step (`return`, `raise`, `sleep_ms`, `mutate_args`);
// - OUTPUTS: output kind → the value a handler returns (`text`, `json`, `generate`, ...);
// - GENERATORS: generator kind → the text it expands to, sized in the case's unit.
//
// To add a behaviour, an output or a generator: write one function and register it under the word
// the schema uses. The kit's tests compare each registry with `vocabulary` (generated from
// run.schema.json), so a word the protocol gained and the kit lacks fails the tests.
//
// How an error or a value looks in a given harness is the adapter's choice: `Errors` maps each
// raise kind to the harness's idiomatic error (or to a value returned instead, for harnesses whose
// tools report refusals by returning), and `present` may turn a returned value into the harness's
// own result type.

import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, KitError, quote } from './errors.js';
import { toJson, type Json } from './json.js';
import * as vocabulary from './vocabulary.js';

type JsonObject = { [key: string]: Json };

/** From an `Errors` factory: the handler returns `value` instead of throwing. */
export class ReturnInstead {
  constructor(readonly value: unknown) {}
}

/** message → the error to throw (or a ReturnInstead) for one raise kind. */
export type ErrorFactory = (message: string) => unknown;

/**
 * How the harness's tools fail, one factory per raise kind (vocabulary.RAISE_KINDS):
 * `domain` a refusal meant for the model, `transport` a connection or service failure,
 * `internal` an unexpected error whose message holds a secret that must never reach the model.
 */
export interface Errors {
  domain: ErrorFactory;
  transport: ErrorFactory;
  internal: ErrorFactory;
}

/** (value, output kind) → what the handler returns to the harness; identity by default. */
export type Present = (value: unknown, kind: string) => unknown;

// ---- generated text ----------------------------------------------------------------------------

/** The size of `text` in `unit`: UTF-8 bytes or Unicode scalar values (code points). */
export function measure(text: string, unit: string): number {
  if (unit === 'bytes') return Buffer.byteLength(text, 'utf8');
  let n = 0;
  for (const _ of text) n++;
  return n;
}

type Generator = (spec: JsonObject, unit: string) => string;

export const GENERATORS: Record<string, Generator> = {
  text: (spec) => String(spec.text),
  repeat: (spec, unit) => {
    const piece = String(spec.repeat);
    return piece.repeat(Math.floor(Number(spec.size) / measure(piece, unit)));
  },
  lines: (spec, unit) => {
    const { size, width, last } = spec.lines as { size: number; width: number; last: string };
    const count = Math.floor(Math.max(size - measure(last, unit), 0) / (width + 1));
    const body: string[] = [];
    for (let i = 1; i <= count; i++) body.push(`${String(i % 1000000).padStart(6, '0')} `.padEnd(width, 'x') + '\n');
    return body.join('') + last;
  },
  concat: (spec, unit) => (spec.concat as JsonObject[]).map((part) => expand(part, unit)).join(''),
};

function kindOf(spec: Json | undefined, registry: Record<string, unknown>, what: string): string {
  if (spec !== null && typeof spec === 'object' && !Array.isArray(spec)) {
    for (const key of Object.keys(spec)) if (Object.prototype.hasOwnProperty.call(registry, key)) return key;
  }
  const keys = spec !== null && typeof spec === 'object' ? Object.keys(spec).sort() : spec;
  throw new KitError(ErrorCode.UNKNOWN_BEHAVIOUR, { what, keys: quote(keys), known: Object.keys(registry).join(', ') });
}

/** The text a generator gives, every size already resolved by the runner, in `unit`. */
export function expand(gen: JsonObject, unit: string): string {
  const generate = GENERATORS[kindOf(gen, GENERATORS, 'generator')] as Generator;
  return generate(gen, unit);
}

// ---- returned values ---------------------------------------------------------------------------

const NON_FINITE: Record<string, number> = { nan: NaN, inf: Infinity, '-inf': -Infinity };

type Output = (spec: JsonObject, args: unknown, unit: string) => unknown;

/**
 * An object whose only state is private and which has no JSON form (`non_json` kind `opaque`):
 * `JSON.stringify` sees no enumerable properties on it.
 */
export class Handle {
  #fd = 7;
  get fd(): number {
    return this.#fd;
  }
}

/** JavaScript's own value for a `non_json` kind other than `cycle`. */
function nonJsonValue(kind: string): unknown {
  switch (kind) {
    case 'set':
      return new Set([1, 2, 3]);
    case 'bytes':
      return Uint8Array.of(0x00, 0xff, 0x41);
    case 'date':
      return new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
    case 'opaque':
      return new Handle();
    default:
      throw new KitError(ErrorCode.UNKNOWN_BEHAVIOUR, { what: 'non_json kind', keys: quote(kind), known: 'cycle, set, bytes, date, opaque' });
  }
}

/**
 * A handler's multi-part answer (behaviour `content_blocks`): `blocks` in MCP's JSON form, in
 * order. The adapter's `present` turns them into the harness's own multi-part result; they are
 * never text the handler built (PROTOCOL.md section 4e).
 */
export class ContentBlocks {
  constructor(readonly blocks: JsonObject[]) {}
}

/**
 * A raw MCP `CallToolResult` (feature `mcp-client`): the MCP server the harness consumes sends
 * `json` (`content`, optional `isError` and `structuredContent`) verbatim as its `tools/call`
 * answer.
 */
export class McpResult {
  constructor(readonly json: JsonObject) {}
}

/**
 * A handler's output written in parts over time (behaviour `stream`): `parts` in order, each a
 * text (a string) or a wait in milliseconds (a number). The adapter's `present` hands it to its
 * harness's streaming mechanism — an async generator tool, a ReadableStream, progress
 * notifications — iterating `chunks()`, which waits where the case waits; it is never joined into
 * one text by the handler (PROTOCOL.md section 4g).
 */
export class Stream {
  constructor(readonly parts: ReadonlyArray<string | number>) {}

  /** The texts, in order, awaiting a timer where the stream waits. */
  async *chunks(): AsyncGenerator<string> {
    for (const part of this.parts) {
      if (typeof part === 'string') yield part;
      else await sleep(part);
    }
  }

  /** Every part joined: what a harness that read the whole stream in time holds. */
  text(): string {
    return this.parts.filter((p): p is string => typeof p === 'string').join('');
  }
}

export const OUTPUTS: Record<string, Output> = {
  text: (spec) => spec.text,
  json: (spec) => structuredClone(spec.json),
  generate: (spec, _args, unit) => expand(spec.generate as JsonObject, unit),
  non_finite: (spec) => {
    const name = String(spec.non_finite);
    if (!(name in NON_FINITE)) {
      throw new KitError(ErrorCode.UNKNOWN_BEHAVIOUR, { what: 'non_finite value', keys: quote(name), known: Object.keys(NON_FINITE).join(', ') });
    }
    return NON_FINITE[name];
  },
  echo_args: (_spec, args) => toJson(args),
  non_finite_in: (spec, args, unit) => {
    const { value, at } = spec.non_finite_in as { value: Json; at: Record<string, string> };
    let out: unknown = structuredClone(value);
    for (const [pointer, name] of Object.entries(at)) {
      const number = (OUTPUTS.non_finite as Output)({ non_finite: name }, args, unit);
      if (pointer === '') out = number;
      else setPointer(out, pointer, number);
    }
    return out;
  },
  // The structured value with JavaScript's own non-JSON values inside it: a Set of 1, 2, 3, a
  // Uint8Array 00 FF 41, a Date (2024-01-02T03:04:05Z), a Handle, or (`cycle`) the value itself.
  non_json: (spec) => {
    const { value, at } = spec.non_json as { value: Json; at: Record<string, string> };
    let out: unknown = structuredClone(value);
    const cycles: string[] = [];
    for (const [pointer, kind] of Object.entries(at)) {
      if (kind === 'cycle') cycles.push(pointer);
      else if (pointer === '') out = nonJsonValue(kind);
      else setPointer(out, pointer, nonJsonValue(kind));
    }
    for (const pointer of cycles) {
      if (pointer === '' || out === null || typeof out !== 'object') {
        throw new KitError(ErrorCode.BAD_POINTER, { pointer: quote(pointer), problem: 'a cycle goes inside an object or array value' });
      }
      setPointer(out, pointer, out);
    }
    return out;
  },
  content_blocks: (spec) => new ContentBlocks(structuredClone(spec.content_blocks) as JsonObject[]),
  mcp_result: (spec) => new McpResult(structuredClone(spec.mcp_result) as JsonObject),
  stream: (spec, _args, unit) =>
    new Stream((spec.stream as JsonObject[]).map((part) => {
      const kind = kindOf(part, { text: null, generate: null, sleep_ms: null }, 'stream part');
      if (kind === 'text') return String(part.text);
      if (kind === 'generate') return expand(part.generate as JsonObject, unit);
      return Number(part.sleep_ms);
    })),
};

/**
 * Optional behaviours that are tool fields, not scripts: `Tool` carries each for the adapter to give
 * its harness (`output_schema`: the tool's output schema, as MCP's `outputSchema`).
 */
export const TOOL_OPTIONS = ['output_schema'] as const;

/**
 * Optional behaviours that are block kinds inside `content_blocks` and `mcp_result` (`audio`,
 * `resource_link`): the scripted handler hands every block over unchanged, so the kit carries them;
 * an adapter declares one when its `present` gives that kind to its harness and its reply reports it
 * (PROTOCOL.md section 4e).
 */
export const BLOCK_KINDS = ['audio_blocks', 'resource_link_blocks'] as const;

/** The non-finite names OUTPUTS.non_finite knows (compared with vocabulary.NON_FINITE). */
export const NON_FINITE_NAMES = Object.keys(NON_FINITE);

// ---- JSON pointers into the handler's own arguments --------------------------------------------

/** Sets `value` at RFC 6901 `pointer` inside `doc`, in place; the parent must exist. */
export function setPointer(doc: unknown, pointer: string, value: unknown): void {
  const bad = (problem: string) => new KitError(ErrorCode.BAD_POINTER, { pointer: quote(pointer), problem });
  const tokens = pointer.split('/').slice(1).map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (tokens.length === 0) throw bad('cannot replace the whole argument object');
  let node: unknown = doc;
  for (const token of tokens.slice(0, -1)) {
    const next: unknown = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[Array.isArray(node) ? Number(token) : token] : undefined;
    if (next === undefined) throw bad(`no ${quote(token)} on the way`);
    node = next;
  }
  const last = tokens[tokens.length - 1] as string;
  if (Array.isArray(node)) {
    const index = last === '-' ? node.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > node.length) throw bad('index out of range');
    node[index] = value;
  } else if (node !== null && typeof node === 'object') {
    (node as Record<string, unknown>)[last] = value;
  } else {
    throw bad('its parent is not an object or array');
  }
}

// ---- behaviour steps ---------------------------------------------------------------------------

type Step = { sleep: number; then: JsonObject } | { next: JsonObject } | { done: unknown; kind: string };
type StepFn = (behavior: JsonObject, args: unknown, script: Script) => Step;

export const STEPS: Record<string, StepFn> = {
  return: (behavior, args, script) => {
    const output = behavior.return as JsonObject;
    const kind = kindOf(output, OUTPUTS, 'output');
    return { done: (OUTPUTS[kind] as Output)(output, args, script.unit), kind };
  },
  raise: (behavior, _args, script) => {
    const { kind, message } = behavior.raise as { kind: string; message: string };
    const factory = (script.errors as unknown as Record<string, ErrorFactory>)[kind];
    if (typeof factory !== 'function') {
      throw new KitError(ErrorCode.UNKNOWN_BEHAVIOUR, { what: 'raise kind', keys: quote(kind), known: vocabulary.RAISE_KINDS.join(', ') });
    }
    const made = factory(message);
    if (made instanceof ReturnInstead) return { done: made.value, kind: 'raise' };
    throw made;
  },
  sleep_ms: (behavior) => ({ sleep: Number(behavior.sleep_ms), then: behavior.then as JsonObject }),
  mutate_args: (behavior, args) => {
    for (const [pointer, value] of Object.entries((behavior.mutate_args as { set: JsonObject }).set)) {
      setPointer(args, pointer, structuredClone(value));
    }
    return { next: behavior.then as JsonObject };
  },
};

const identity: Present = (value) => value;

/**
 * One tool's scripted behaviour, performed against the arguments its handler received.
 * `onKitError` is told about a KitError (a behaviour this kit cannot perform, a pointer that leads
 * nowhere) before it is thrown into the harness: such a failure is the adapter's, even if the
 * harness turns the exception into an ordinary error result.
 */
export class Script {
  readonly present: Present;

  constructor(
    readonly behavior: JsonObject,
    readonly unit: string,
    readonly errors: Errors,
    present?: Present | null,
    readonly onKitError?: (error: KitError) => void,
  ) {
    this.present = present ?? identity;
  }

  private step(behavior: JsonObject, args: unknown): Step {
    try {
      return (STEPS[kindOf(behavior, STEPS, 'behaviour')] as StepFn)(behavior, args, this);
    } catch (e) {
      if (e instanceof KitError) this.onKitError?.(e);
      throw e;
    }
  }

  /**
   * Performs the script; sleeps are timers (the event loop keeps running). `signal`: the turn's
   * cancellation as the harness hands it to its tools (feature `cancel`); when it aborts, the
   * sleep rejects with an `AbortError` and the handler stops there.
   */
  async run(args: unknown, signal?: AbortSignal): Promise<unknown> {
    let behavior = this.behavior;
    for (;;) {
      const step = this.step(behavior, args);
      if ('done' in step) return this.present(step.done, step.kind);
      if ('sleep' in step) {
        await sleep(step.sleep, undefined, signal === undefined ? undefined : { signal });
        behavior = step.then;
      } else {
        behavior = step.next;
      }
    }
  }

  /** Performs the script synchronously, for harnesses whose handlers cannot be async (sleeps block). */
  runSync(args: unknown): unknown {
    let behavior = this.behavior;
    for (;;) {
      const step = this.step(behavior, args);
      if ('done' in step) return this.present(step.done, step.kind);
      if ('sleep' in step) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, step.sleep);
        behavior = step.then;
      } else {
        behavior = step.next;
      }
    }
  }
}
