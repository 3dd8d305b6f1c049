// What a harness is and can do, typed, and the hello built from it.
//
// Why this module exists: the hello is where an adapter is most tempted to hope rather than
// declare (PROTOCOL.md section 2: a capability declared but missing shows up as FAILs; one not
// declared is an honest SKIP). Declared through these types, a misspelt unit, strategy, outcome
// class, call form or feature is refused when the adapter starts, with the field named. Every word
// is checked against `vocabulary` (generated from the protocol's schemas): this module holds
// shapes, not word lists.
//
// To add a capability field: add it to `Capabilities`, write it in `capabilitiesJson`, check it in
// `validateCapabilities`, and list it in CAPABILITY_KEYS. The kit's tests fail until every field
// the schema lists is modelled here.

import { ErrorCode, KitError, quote } from './errors.js';
import type { Json } from './json.js';
import * as vocabulary from './vocabulary.js';

export type Unit = (typeof vocabulary.CAP_UNITS)[number];
export type Strategy = (typeof vocabulary.CAP_STRATEGIES)[number];
export type OutcomeClass = (typeof vocabulary.OUTCOME_CLASSES)[number];
export type CallForm = (typeof vocabulary.CALL_FORMS)[number];

/** The harness (not the adapter), with optional links the matrix site shows. */
export interface Implementation {
  name: string;
  language: string;
  version: string;
  homepage?: string;
  /** Its source repository. */
  source?: string;
  /** Its issue tracker. */
  issues?: string;
}

/**
 * How a token cap counts tokens (PROTOCOL.md 4l): `ceil(size / divisor)`, the size in UTF-8 bytes
 * or Unicode scalar values. Generated outputs of a token case arrive sized in `of`'s unit.
 */
export interface TokenEstimator {
  of: 'bytes' | 'chars';
  divisor: number;
}

/**
 * The output cap: default unit and limit; `strategies` (`head_tail`, `head_only`, `reject`,
 * `spill`; the first is the default); `configurable`; `units`, the units a configurable cap takes
 * besides bytes and chars (`lines`, `tokens`); `estimator`, required with the unit `tokens`.
 */
export interface Cap {
  unit: Unit;
  limit: number;
  strategies?: readonly Strategy[];
  configurable?: boolean;
  units?: readonly ('lines' | 'tokens')[];
  estimator?: TokenEstimator;
}

/**
 * The markers a harness frames every result's content in (PROTOCOL.md 4l; SPEC.md WRAP-1): the
 * content is `open` + the output + `close`. `escapes`: rewrites applied to outputs before capping
 * so a copy of a marker loses its form; or `{nonce}` in both markers, reported per result as
 * `wrapper_nonce`.
 */
export interface Wrapper {
  open: string;
  close: string;
  escapes?: readonly { from: string; to: string }[];
}

/** Handler deadlines: whether a case may set one, and the harness's default if it has one. */
export interface Deadline {
  configurable: boolean;
  default_ms?: number;
}

/** What the harness can do (PROTOCOL.md section 2); every absent field is the conservative value. */
export interface Capabilities {
  /** The output cap; null (the default) for a harness with none — cap cases then FAIL, by design. */
  cap?: Cap | null;
  /** Suite outcome class → the harness's own machine code. */
  codes?: Partial<Record<OutcomeClass, string>>;
  /** Results say whether retrying can help. */
  retryability?: boolean;
  /** Handler deadlines. */
  deadline?: Deadline | null;
  /** JSON Schema keywords the adapter gives its harness faithfully. */
  keywords?: readonly string[];
  /** How calls may reach the harness (default: structured only). */
  call_forms?: readonly CallForm[];
  /** A turn's calls reach the harness as one batch. */
  parallel?: boolean;
  /** Replies carry the calls as the harness's transcript keeps them. */
  history?: boolean;
  /** Optional feature sets (PROTOCOL.md section 4a). */
  features?: readonly string[];
  /** Outcome classes the harness does not tell apart → the class it answers them as (in `codes`). */
  folds?: Partial<Record<OutcomeClass, OutcomeClass>>;
  /**
   * Behaviours beyond the base set that the adapter runs (vocabulary.OPTIONAL_BEHAVIOURS). The kit
   * performs all of them; only the adapter knows whether its harness carries the result faithfully.
   */
  behaviors?: readonly string[];
  /**
   * The harness receives the model's tool-use ids and answers with them (default true). False for a
   * harness family that never sees them (an MCP server: its host pairs results with calls), so the
   * runner skips cases about ids and does not run `tool_use_id` checks.
   */
  call_ids?: boolean;
  /**
   * The model provider's request format the harness's results go into (vocabulary.DIALECTS); when
   * named, every result is judged by that provider's acceptance rules (PROTOCOL.md section 4i).
   */
  dialect?: string;
  /** The markers the harness frames results in (PROTOCOL.md 4l). */
  wrapper?: Wrapper | null;
}

/** Every field of `Capabilities`, in the schema's order (compared with vocabulary.CAPABILITY_FIELDS). */
export const CAPABILITY_KEYS = [
  'cap', 'codes', 'retryability', 'deadline', 'keywords', 'call_forms', 'parallel', 'history', 'features',
  'folds', 'behaviors', 'call_ids', 'dialect', 'wrapper',
] as const satisfies readonly (keyof Capabilities)[];

/** Every field of `Implementation` (compared with vocabulary.IMPLEMENTATION_FIELDS). */
export const IMPLEMENTATION_KEYS = ['name', 'language', 'version', 'homepage', 'source', 'issues'] as const satisfies readonly (keyof Implementation)[];

const invalid = (field: string, problem: string) => new KitError(ErrorCode.INVALID_CAPABILITY, { field, problem });

function oneOf(field: string, value: unknown, allowed: readonly string[]): void {
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw invalid(field, `${quote(value)} is not one of ${allowed.join(', ')}`);
  }
}

function unique(field: string, values: readonly unknown[]): void {
  if (new Set(values).size !== values.length) throw invalid(field, 'lists a value twice');
}

function validateImplementation(impl: Implementation): void {
  for (const name of ['name', 'language', 'version'] as const) {
    const value = impl[name];
    if (typeof value !== 'string' || (name !== 'version' && value === '')) {
      throw new KitError(ErrorCode.INVALID_IMPLEMENTATION, { field: name, problem: 'must be a non-empty string' });
    }
  }
  for (const name of ['homepage', 'source', 'issues'] as const) {
    if (impl[name] !== undefined && typeof impl[name] !== 'string') {
      throw new KitError(ErrorCode.INVALID_IMPLEMENTATION, { field: name, problem: 'must be a string' });
    }
  }
}

/** Throws KitError(invalid_capability) naming the first wrong field. */
export function validateCapabilities(caps: Capabilities): void {
  for (const key of Object.keys(caps)) {
    if (!(CAPABILITY_KEYS as readonly string[]).includes(key)) throw invalid(key, 'is not a capability of this protocol');
  }
  if (caps.cap) {
    oneOf('cap.unit', caps.cap.unit, vocabulary.CAP_UNITS);
    if (!Number.isInteger(caps.cap.limit) || caps.cap.limit < 1) {
      throw invalid('cap.limit', `${quote(caps.cap.limit)} is not a positive integer`);
    }
    const strategies = caps.cap.strategies ?? ['head_tail'];
    if (strategies.length === 0) throw invalid('cap.strategies', 'must list at least one strategy (the first is the default)');
    for (const s of strategies) oneOf('cap.strategies', s, vocabulary.CAP_STRATEGIES);
    unique('cap.strategies', strategies);
    for (const u of caps.cap.units ?? []) oneOf('cap.units', u, ['lines', 'tokens']);
    unique('cap.units', caps.cap.units ?? []);
    const tokens = caps.cap.unit === 'tokens' || (caps.cap.units ?? []).includes('tokens');
    const e = caps.cap.estimator;
    if (tokens && !e) throw invalid('cap.estimator', 'the unit tokens needs an estimator');
    if (e) {
      if (!tokens) throw invalid('cap.estimator', 'declared without the unit tokens');
      oneOf('cap.estimator.of', e.of, ['bytes', 'chars']);
      if (!Number.isInteger(e.divisor) || e.divisor < 1) {
        throw invalid('cap.estimator.divisor', `${quote(e.divisor)} is not a positive integer`);
      }
    }
  }
  for (const [outcome, code] of Object.entries(caps.codes ?? {})) {
    oneOf('codes', outcome, vocabulary.OUTCOME_CLASSES);
    if (typeof code !== 'string') throw invalid(`codes.${outcome}`, `${quote(code)} is not a string`);
  }
  const ms = caps.deadline?.default_ms;
  if (ms !== undefined && (!Number.isInteger(ms) || ms < 0)) {
    throw invalid('deadline.default_ms', `${quote(ms)} is not a non-negative integer`);
  }
  for (const k of caps.keywords ?? []) {
    if (vocabulary.KEYWORDS !== null) oneOf('keywords', k, vocabulary.KEYWORDS);
    else if (typeof k !== 'string' || k === '') throw invalid('keywords', `${quote(k)} is not a keyword name`);
  }
  unique('keywords', caps.keywords ?? []);
  for (const f of caps.call_forms ?? []) oneOf('call_forms', f, vocabulary.CALL_FORMS);
  unique('call_forms', caps.call_forms ?? []);
  for (const f of caps.features ?? []) {
    if (vocabulary.FEATURES !== null) oneOf('features', f, vocabulary.FEATURES);
    else if (typeof f !== 'string' || !new RegExp(vocabulary.FEATURE_PATTERN ?? '.').test(f)) {
      throw invalid('features', `${quote(f)} is not spelt ${vocabulary.FEATURE_PATTERN}`);
    }
  }
  unique('features', caps.features ?? []);
  for (const [folded, target] of Object.entries(caps.folds ?? {})) {
    oneOf('folds', folded, vocabulary.OUTCOME_CLASSES);
    oneOf(`folds.${folded}`, target, vocabulary.OUTCOME_CLASSES);
    if (!(caps.codes && target in caps.codes)) throw invalid(`folds.${folded}`, `${quote(target)} has no code in codes`);
  }
  for (const b of caps.behaviors ?? []) oneOf('behaviors', b, vocabulary.OPTIONAL_BEHAVIOURS);
  unique('behaviors', caps.behaviors ?? []);
  if (caps.wrapper) {
    for (const name of ['open', 'close'] as const) {
      if (typeof caps.wrapper[name] !== 'string' || caps.wrapper[name] === '') {
        throw invalid(`wrapper.${name}`, 'must be a non-empty string');
      }
    }
    for (const { from, to } of caps.wrapper.escapes ?? []) {
      if (!from || to.includes(from)) {
        throw invalid('wrapper.escapes', `${quote(from)} → ${quote(to)}: from must be non-empty and not in to`);
      }
    }
  }
  for (const flag of ['retryability', 'parallel', 'history', 'call_ids'] as const) {
    if (caps[flag] !== undefined && typeof caps[flag] !== 'boolean') throw invalid(flag, 'must be true or false');
  }
  if (caps.dialect !== undefined) oneOf('dialect', caps.dialect, vocabulary.DIALECTS);
}

/** The hello's `capabilities` object, written in full (no reader has to know the defaults). */
export function capabilitiesJson(caps: Capabilities): Record<string, Json> {
  const out: Record<string, Json> = {
    cap: caps.cap
      ? { unit: caps.cap.unit, limit: caps.cap.limit, configurable: caps.cap.configurable ?? false,
          strategies: [...(caps.cap.strategies ?? ['head_tail'])],
          ...(caps.cap.units?.length ? { units: [...caps.cap.units] } : {}),
          ...(caps.cap.estimator ? { estimator: { of: caps.cap.estimator.of, divisor: caps.cap.estimator.divisor } } : {}) }
      : null,
  };
  if (caps.codes && Object.keys(caps.codes).length) out.codes = { ...caps.codes } as Record<string, string>;
  out.retryability = caps.retryability ?? false;
  if (caps.deadline) {
    out.deadline = caps.deadline.default_ms === undefined
      ? { configurable: caps.deadline.configurable }
      : { configurable: caps.deadline.configurable, default_ms: caps.deadline.default_ms };
  }
  out.keywords = [...(caps.keywords ?? [])];
  out.call_forms = [...(caps.call_forms ?? ['structured'])];
  out.parallel = caps.parallel ?? false;
  out.history = caps.history ?? false;
  if (caps.features?.length) out.features = [...caps.features];
  if (caps.folds && Object.keys(caps.folds).length) out.folds = { ...caps.folds } as Record<string, string>;
  if (caps.behaviors?.length) out.behaviors = [...caps.behaviors];
  if (caps.call_ids === false) out.call_ids = false; // absent means true: older hellos stay as they were
  if (caps.dialect !== undefined) out.dialect = caps.dialect;
  if (caps.wrapper) {
    out.wrapper = {
      open: caps.wrapper.open,
      close: caps.wrapper.close,
      ...(caps.wrapper.escapes?.length ? { escapes: caps.wrapper.escapes.map((e) => ({ from: e.from, to: e.to })) } : {}),
    };
  }
  return out;
}

/** The validated hello line (throws KitError naming the first wrong field). */
export function hello(implementation: Implementation, capabilities: Capabilities): Record<string, Json> {
  validateImplementation(implementation);
  validateCapabilities(capabilities);
  const impl: Record<string, Json> = {
    name: implementation.name, language: implementation.language, version: implementation.version,
  };
  if (implementation.homepage !== undefined) impl.homepage = implementation.homepage;
  return { protocol: vocabulary.PROTOCOL_VERSION, implementation: impl, capabilities: capabilitiesJson(capabilities) };
}
