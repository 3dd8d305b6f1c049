// Strict JSON both ways, and the JSON form of whatever a harness hands back.
//
// Why this module exists: JavaScript's JSON is lax where this suite probes. `JSON.stringify`
// silently writes NaN and Infinity as `null` and drops `undefined`, so a harness's non-finite
// output would reach the runner disguised as a JSON null; `JSON.parse` silently keeps the last of
// duplicate keys. Every protocol line the kit reads or writes goes through `loads`/`dumps`:
//
// - `loads` is JSON.parse (which already refuses NaN and Infinity) plus a refusal of duplicate
//   keys (the runner never sends them; PROTOCOL.md section 1.5: decoding is strict on both sides);
// - `dumps` refuses non-finite numbers, functions, symbols and `undefined` array items, writes a
//   bigint as its exact digits, and leaves lone surrogates escaped (`\ud800`), as well-formed
//   JSON.stringify does, so the runner sees and counts them (PROTOCOL.md section 1.7).
//
// Numbers follow JavaScript: an integer beyond 2^53 is rounded by JSON.parse, exactly as in the
// harness's own JSON parsing, so the adapter hands the harness what a real deployment would.
//
// `toJson` turns what a harness produced (class instances, Maps, non-finite numbers, cycles, ...)
// into a JSON value for reports (`native`, invocation `args`); it never throws.

import { inspect } from 'node:util';
import { ErrorCode, KitError, quote } from './errors.js';

/** A decoded JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Where the first duplicate key of a syntactically valid JSON text is, if any. */
function duplicateKey(text: string): string | undefined {
  if (!text.includes('{')) return undefined;
  const stack: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top && expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.has(key)) return key;
        top.add(key);
        expectKey = false;
      }
      i = j;
    } else if (c === '{') {
      stack.push(new Set());
      expectKey = true;
    } else if (c === '[') {
      stack.push(null);
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      expectKey = stack[stack.length - 1] != null;
    }
  }
  return undefined;
}

/** Decodes one strict JSON text (see the module doc); throws KitError(invalid_json). */
export function loads(text: string): Json {
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch (e) {
    throw new KitError(ErrorCode.INVALID_JSON, { problem: String((e as Error).message).slice(0, 300) });
  }
  const dup = duplicateKey(text);
  if (dup !== undefined) throw new KitError(ErrorCode.INVALID_JSON, { problem: `duplicate key ${quote(dup)}` });
  return value;
}

function encode(value: unknown, out: string[]): void {
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'bigint':
      out.push(value.toString());
      return;
    case 'number':
      if (!Number.isFinite(value)) {
        throw new KitError(ErrorCode.UNENCODABLE, { problem: `the number ${String(value)} (JSON has no NaN or Infinity)` });
      }
      out.push(JSON.stringify(value));
      return;
    case 'object':
      break;
    default:
      throw new KitError(ErrorCode.UNENCODABLE, { problem: `a ${typeof value} is not a JSON value` });
  }
  if (value === null) {
    out.push('null');
  } else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item: unknown, i) => {
      if (i) out.push(',');
      if (item === undefined) throw new KitError(ErrorCode.UNENCODABLE, { problem: `array item ${i} is undefined` });
      encode(item, out);
    });
    out.push(']');
  } else {
    out.push('{');
    let first = true;
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue; // an optional field left out, as JSON.stringify does
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      encode(item, out);
    }
    out.push('}');
  }
}

/** One line of strict JSON (see the module doc); throws KitError(unencodable). */
export function dumps(value: unknown): string {
  const out: string[] = [];
  encode(value, out);
  return out.join('');
}

/** A default for an argument the model did not send: never shown, dropped by `toJson`. */
export const UNSET: unique symbol = Symbol('UNSET');

/** 'nan', 'inf' or '-inf' for a non-finite number. */
export function nonFiniteName(value: number): 'nan' | 'inf' | '-inf' {
  return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf';
}

function convert(value: unknown, seen: Set<object>): Json | bigint | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'bigint':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : { $non_finite: nonFiniteName(value) };
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      break;
  }
  if (value === null) return null;
  const obj = value as object;
  if (seen.has(obj)) return '[cycle]';
  seen.add(obj);
  try {
    if (Array.isArray(obj)) return obj.map((v: unknown) => convert(v, seen) ?? null) as Json;
    const toJSON = (obj as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return convert(toJSON.call(obj), seen);
    const proto = Object.getPrototypeOf(obj) as unknown;
    if (obj instanceof Map || obj instanceof Set || ArrayBuffer.isView(obj) || obj instanceof ArrayBuffer) {
      return inspect(obj, { depth: 4, breakLength: Infinity });
    }
    if (obj instanceof Error) return inspect(obj, { depth: 2, breakLength: Infinity }).split('\n')[0] ?? '';
    const out: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(obj)) {
      const converted = convert(item, seen);
      if (converted !== undefined) out[key] = converted as Json;
    }
    if (proto !== Object.prototype && proto !== null && Object.keys(out).length === 0) {
      return inspect(obj, { depth: 2, breakLength: Infinity });
    }
    return out;
  } catch {
    return inspect(obj, { depth: 1, breakLength: Infinity });
  } finally {
    seen.delete(obj);
  }
}

/**
 * A JSON value for a report: non-finite numbers spelled out ({"$non_finite": "nan"}), `undefined`
 * and UNSET dropped from objects (null in arrays), toJSON honoured, cycles cut ("[cycle]"), Maps,
 * Sets, buffers and other opaque objects as their `util.inspect` text. Never throws.
 */
export function toJson(value: unknown): Json {
  return (convert(value, new Set()) ?? null) as Json;
}
