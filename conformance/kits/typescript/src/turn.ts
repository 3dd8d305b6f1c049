// One case's run: the scripted handlers, the invocation log, and what the harness produced.
//
// Why this module exists: it is where the protocol's blame rule lives. Three different things can
// go wrong while an adapter runs a case, and each must reach the runner as what it is:
//
// - the harness under test failed (refused a valid call, crashed, returned NaN): that is a
//   *result* — report what the model would see, or nothing. `harnessMayRaise` wraps the code that
//   calls into the harness: an error thrown inside it means the model saw nothing for those calls;
//   it is logged to stderr as `harness raised: ...` and swallowed, so the runner judges the gap;
// - the harness cannot express the case: `throw new Skip(reason)` (or `turn.skip(reason)`);
// - the adapter failed (its own bug, a behaviour this kit cannot perform): any other error
//   escaping the author's code, or a KitError thrown inside a scripted handler even if the harness
//   swallowed it, makes the reply an `error`.
//
// Handlers record every run with a deep copy of their arguments taken on entry.

import type { Call, Case, Tool } from './case.js';
import { idOrNull, MISSING, type Missing } from './case.js';
import { ErrorCode, KitError } from './errors.js';
import { toJson, type Json } from './json.js';
import { Script, type Errors, type Present } from './behaviours.js';

/** The case cannot be expressed faithfully in this harness; the message says why. */
export class Skip extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'Skip';
  }
}

/**
 * An error as one bounded line, whitespace collapsed: its message (what a JavaScript host shows;
 * the MCP SDK's messages already name their kind, e.g. `MCP error -32602: ...`).
 */
export function oneLine(error: unknown, limit = 1000): string {
  const text = String((error as { message?: unknown } | null)?.message ?? error);
  // other control characters are escaped: the line reaches a terminal
  return text.split(/\s+/).join(' ').slice(0, limit).replace(/[\x00-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** One result as the protocol carries it. */
export interface Result {
  tool_use_id: Json;
  is_error: boolean;
  content: string;
  code?: string;
  retryable?: boolean;
  native?: Json;
  blocks?: Json[];
}

/** Options of `report`: the harness's own code and retry hint, and its native result object. */
export interface ReportOptions {
  is_error: boolean;
  content: string;
  code?: string | null;
  retryable?: boolean | null;
  native?: unknown;
  /** Every content block the result carries, in order, in MCP's JSON form (PROTOCOL.md 4e). */
  blocks?: readonly unknown[] | null;
}

/** A synchronous or async handler: `(args, toolUseId?)`. */
export type Handler = (args: unknown, toolUseId?: Json, signal?: AbortSignal) => Promise<unknown>;
export type SyncHandler = (args: unknown, toolUseId?: Json) => unknown;

/**
 * One case's run. The author's `build` and `runTurn` receive it.
 * `unit`: the unit generated sizes are measured in (the case's cap unit, else the harness's
 * declared unit, else chars). `currentCall`: set it while the harness runs one call, so handlers
 * that are not told their call's id still record it. `history`: set it when the harness has the
 * `history` capability.
 */
export class Turn {
  currentCall: Call | null = null;
  history: Json[] | null = null;
  readonly results: Result[] = [];
  readonly invocations: Json[] = [];
  adapterFailure: KitError | null = null;

  constructor(
    readonly case_: Case,
    readonly unit: string,
    readonly errors: Errors,
    readonly present: Present | null = null,
    readonly log: (line: string) => void = (line) => process.stderr.write(line + '\n'),
  ) {}

  /** The case (tools, calls, config). */
  get case(): Case {
    return this.case_;
  }

  private tool(tool: Tool | string): Tool {
    if (typeof tool !== 'string') return tool;
    const found = this.case_.tools.find((t) => t.name === tool);
    if (!found) throw new Error(`the case has no tool ${JSON.stringify(tool)}`);
    return found;
  }

  /** The tool's scripted behaviour, for an adapter that writes its own handler around it. */
  script(tool: Tool | string): Script {
    return new Script(this.tool(tool).behavior, this.unit, this.errors, this.present, (e) => {
      this.adapterFailure ??= e;
    });
  }

  /**
   * Logs one handler run with a deep copy of `args`, as JSON, taken now. `toolUseId`: the call the
   * harness told the handler it serves; when not given, the id of `currentCall` (if set).
   */
  record(tool: Tool | string, args: unknown, toolUseId: Json | Missing = MISSING): void {
    const name = typeof tool === 'string' ? tool : tool.name;
    let id = toolUseId;
    if (id === MISSING && this.currentCall !== null) id = this.currentCall.id;
    const entry: { [key: string]: Json } = { tool: name, args: toJson(args) };
    if (id !== MISSING && id !== null && id !== undefined) entry.tool_use_id = toJson(id);
    this.invocations.push(entry);
  }

  /**
   * An async handler `(args, toolUseId?, signal?) => Promise<value>` that records, then performs.
   * `signal` (feature `cancel`): the AbortSignal the harness gives its tools; when it aborts
   * during a scripted sleep, the handler stops there and the invocation is marked `stopped`.
   */
  handler(tool: Tool | string): Handler {
    const script = this.script(tool);
    const t = this.tool(tool);
    return async (args, toolUseId, signal) => {
      this.record(t, args, toolUseId === undefined ? MISSING : toolUseId);
      const entry = this.invocations[this.invocations.length - 1] as { [key: string]: Json } | undefined;
      try {
        return await script.run(args, signal);
      } catch (e) {
        // The harness aborted the turn (feature `cancel`): the handler stopped in its sleep.
        if (signal?.aborted && entry !== undefined) entry.stopped = true;
        throw e;
      }
    };
  }

  /** A synchronous handler (sleeps block the thread). */
  syncHandler(tool: Tool | string): SyncHandler {
    const script = this.script(tool);
    const t = this.tool(tool);
    return (args, toolUseId) => {
      this.record(t, args, toolUseId === undefined ? MISSING : toolUseId);
      return script.runSync(args);
    };
  }

  /** Adds one result, exactly as the harness produced it (never trimmed or re-worded). */
  report(toolUseId: Json | Missing | undefined, options: ReportOptions): void {
    const bad = (field: string, problem: string) => new KitError(ErrorCode.BAD_RESULT, { field, problem });
    if (typeof options.is_error !== 'boolean') throw bad('is_error', `${typeof options.is_error} is not a boolean`);
    if (typeof options.content !== 'string') throw bad('content', `${typeof options.content} is not a string`);
    if (options.code != null && typeof options.code !== 'string') throw bad('code', `${typeof options.code} is not a string`);
    if (options.retryable != null && typeof options.retryable !== 'boolean') {
      throw bad('retryable', `${typeof options.retryable} is not a boolean`);
    }
    const result: Result = {
      tool_use_id: toolUseId === MISSING || toolUseId === undefined ? null : toJson(toolUseId),
      is_error: options.is_error,
      content: options.content,
    };
    if (options.code != null) result.code = options.code;
    if (options.retryable != null) result.retryable = options.retryable;
    if (options.native !== undefined) result.native = toJson(options.native);
    if (options.blocks != null) {
      if (!Array.isArray(options.blocks) || !options.blocks.every((b) => b !== null && typeof b === 'object' && !Array.isArray(b))) {
        throw bad('blocks', 'not a list of block objects');
      }
      result.blocks = options.blocks.map((b) => toJson(b));
    }
    this.results.push(result);
  }

  /**
   * Runs `fn`, which calls into the harness: if the harness throws, the model sees nothing for
   * `calls` (all the case's calls when omitted). The error is logged to stderr as
   * `harness raised: <name: message> [for call <ids>]` and swallowed; Skip and kit errors pass
   * through. Resolves to true when the harness threw.
   */
  async harnessMayRaise(calls: Call | readonly Call[] | null, fn: () => unknown): Promise<boolean> {
    try {
      await fn();
      return false;
    } catch (e) {
      if (e instanceof Skip || e instanceof KitError) throw e;
      if (this.adapterFailure) throw this.adapterFailure;
      const list = calls === null ? this.case_.calls : calls;
      const ids = Array.isArray(list) ? (list as readonly Call[]).map(idOrNull) : idOrNull(list as Call);
      this.log(`harness raised: ${oneLine(e)} [for call ${JSON.stringify(ids)}]`);
      return true;
    }
  }

  /** Answers `skip`: the harness cannot express this case. */
  skip(reason: string): never {
    throw new Skip(reason);
  }

  /** The reply body: results, invocations and (when set) history; throws an adapter failure. */
  reply(): { [key: string]: Json } {
    if (this.adapterFailure) throw this.adapterFailure;
    const body: { [key: string]: Json } = { results: this.results as unknown as Json, invocations: this.invocations };
    if (this.history !== null) body.history = this.history;
    return body;
  }
}
