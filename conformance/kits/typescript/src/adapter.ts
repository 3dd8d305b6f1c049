// The adapter an author defines, and the protocol loop that serves it.
//
// Why this module exists: the JSON-lines loop (PROTOCOL.md sections 1-3 and 5) is the same for
// every harness and easy to get subtly wrong — answer once per command, in order, nothing else on
// stdout, exit 0 on `stop` or end of input, refuse another protocol version without answering. An
// author supplies only what is theirs: the harness's description and capabilities, how its tools
// fail (`errors`), one function that builds the harness for a case, and one that runs the turn.
//
// While serving, protocol lines go to the real stdout and `process.stdout.write` / `console.log`
// are pointed at stderr, so a harness that prints cannot corrupt the protocol.

import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { parseCase, type Case } from './case.js';
import { hello, type Capabilities, type Implementation } from './capabilities.js';
import { ErrorCode, KitError } from './errors.js';
import { dumps, loads, type Json } from './json.js';
import type { Errors, Present } from './behaviours.js';
import { Skip, Turn } from './turn.js';
import * as vocabulary from './vocabulary.js';

/** Everything the kit needs to put one harness behind the protocol. */
export interface Adapter<H> {
  implementation: Implementation;
  capabilities: Capabilities;
  errors: Errors;
  /** A fresh harness with the case's tools registered (`turn.handler(tool)` gives each handler). */
  build(turn: Turn): H | Promise<H>;
  /** Feed the case's calls as one turn and `turn.report` what the model sees. */
  runTurn(harness: H, turn: Turn): void | Promise<void>;
  /** Turns a scripted return value into what the harness's handlers return. */
  present?: Present;
}

/** Checks the adapter's hello once and returns the adapter (typed helper for authors). */
export function defineAdapter<H>(adapter: Adapter<H>): Adapter<H> {
  hello(adapter.implementation, adapter.capabilities);
  return adapter;
}

export const ERROR_LIMIT = 2000;

/** The unit a case's generated sizes are measured in (chars under a lines cap). */
export function unitFor(adapter: Adapter<unknown>, c: Case): string {
  const unit = c.config.cap_unit ?? adapter.capabilities.cap?.unit ?? 'chars';
  // A token cap's outputs are sized in the unit its estimator counts (PROTOCOL.md 4l).
  if (unit === 'tokens') return adapter.capabilities.cap?.estimator?.of ?? 'chars';
  return unit === 'lines' ? 'chars' : unit;
}

/** The reply body for one case: results, or `skip`, or `error` (never throws). */
export async function runCase<H>(adapter: Adapter<H>, rawCase: Json | undefined,
  log: (line: string) => void = (l) => process.stderr.write(l + '\n')): Promise<{ [key: string]: Json }> {
  try {
    const c = parseCase(rawCase);
    const turn = new Turn(c, unitFor(adapter as Adapter<unknown>, c), adapter.errors, adapter.present ?? null, log);
    const harness = await adapter.build(turn);
    await adapter.runTurn(harness, turn);
    return turn.reply();
  } catch (e) {
    if (e instanceof Skip) return { skip: e.message };
    log(String((e as Error)?.stack ?? e));
    const text = `adapter failed: ${(e as Error)?.name ?? 'Error'}: ${String((e as Error)?.message ?? e)}`;
    return { error: text.slice(0, ERROR_LIMIT) };
  }
}

export interface ServeOptions {
  stdin?: Readable;
  /** Where protocol lines go; default: the real stdout (and stray prints are sent to stderr). */
  stdout?: Writable;
}

/** Redirects stray stdout writes to stderr; returns a writer for protocol lines only. */
function protocolStdout(): (line: string) => void {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  console.log = console.error;
  console.info = console.error;
  return (line) => {
    write(line);
  };
}

/** Answers the runner until `stop` or end of input; resolves to the exit status. */
export async function serve<H>(adapter: Adapter<H>, options: ServeOptions = {}): Promise<number> {
  const stderr = (line: string) => process.stderr.write(`${line}\n`);
  let greeting: { [key: string]: Json };
  try {
    greeting = hello(adapter.implementation, adapter.capabilities);
  } catch (e) {
    stderr(`harness-conformance-adapter: the hello is invalid: ${(e as Error).message}`);
    return 2;
  }
  const out = options.stdout ? (line: string) => void options.stdout?.write(line) : protocolStdout();
  const send = (message: { [key: string]: Json }) => out(`${dumps(message)}\n`);
  const lines = createInterface({ input: options.stdin ?? process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let message: Json;
    try {
      message = loads(line);
      if (message === null || typeof message !== 'object' || Array.isArray(message)) {
        throw new KitError(ErrorCode.MALFORMED_MESSAGE, { what: 'message', problem: 'not a JSON object' });
      }
    } catch (e) {
      stderr(`harness-conformance-adapter: ${(e as Error).message}`);
      return 2;
    }
    const cmd = message.cmd;
    if (cmd === 'start') {
      if (message.protocol !== vocabulary.PROTOCOL_VERSION) {
        const error = new KitError(ErrorCode.PROTOCOL_MISMATCH, {
          ours: vocabulary.PROTOCOL_VERSION, theirs: JSON.stringify(message.protocol ?? null).slice(0, 100),
        });
        stderr(`harness-conformance-adapter: ${error.message}`);
        return 1;
      }
      send(greeting);
    } else if (cmd === 'run') {
      const c = message.case;
      const id = c !== null && typeof c === 'object' && !Array.isArray(c) && typeof c.id === 'string' ? c.id : null;
      send({ seq: message.seq ?? null, case: id, ...(await runCase(adapter, c)) });
    } else if (cmd === 'stop') {
      return 0;
    } else {
      stderr(`harness-conformance-adapter: ${new KitError(ErrorCode.UNKNOWN_COMMAND, { cmd: JSON.stringify(cmd ?? null).slice(0, 100) }).message}`);
    }
  }
  return 0;
}

/** `serve` then exit with its status (what an adapter's entry point calls). */
export async function main<H>(adapter: Adapter<H>): Promise<never> {
  const status = await serve(adapter);
  process.exit(status);
}
