// The kit's own errors: a stable code per kind, every message composed in one place.
//
// Why this module exists: an adapter author (or a test runner) must tell "my hello is wrong" from
// "the runner sent something odd" from "this case cannot be expressed" without parsing prose. Each
// error carries a `code` (a stable string: API, never renamed or reused) and the details that went
// into its message; the message is composed by `message()` below, nowhere else. The codes are the
// Python kit's (harness_conformance_adapter.errors.ErrorCode).

/** Every kind of kit error. New kinds may be added; a code is never renamed or reused. */
export const ErrorCode = {
  /** The hello declares a capability outside the protocol's vocabulary, or of the wrong shape. */
  INVALID_CAPABILITY: 'invalid_capability',
  /** The hello's implementation description is incomplete or of the wrong shape. */
  INVALID_IMPLEMENTATION: 'invalid_implementation',
  /** A protocol line is not strict JSON (NaN, Infinity, duplicate keys, bad syntax). */
  INVALID_JSON: 'invalid_json',
  /** A value the kit was asked to write has no strict JSON form (NaN, a bigint, ...). */
  UNENCODABLE: 'unencodable',
  /** The runner speaks another protocol version. */
  PROTOCOL_MISMATCH: 'protocol_mismatch',
  /** The runner sent a command this kit does not know. */
  UNKNOWN_COMMAND: 'unknown_command',
  /** A runner message lacks a field or has one of the wrong type. */
  MALFORMED_MESSAGE: 'malformed_message',
  /** A case scripts a behaviour, output or generator this kit version does not implement. */
  UNKNOWN_BEHAVIOUR: 'unknown_behaviour',
  /** A `mutate_args` pointer does not lead into the handler's arguments. */
  BAD_POINTER: 'bad_pointer',
  /** The adapter reported a result of the wrong shape (content not a string, ...). */
  BAD_RESULT: 'bad_result',
  /** The node:test helper cannot find the `harness-conformance` binary. */
  RUNNER_NOT_FOUND: 'runner_not_found',
  /** The runner binary exited without a usable report. */
  RUNNER_FAILED: 'runner_failed',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const MESSAGES: Record<ErrorCode, string> = {
  invalid_capability: 'capability {field}: {problem}',
  invalid_implementation: 'implementation {field}: {problem}',
  invalid_json: 'not strict JSON: {problem}',
  unencodable: 'cannot be written as strict JSON: {problem}',
  protocol_mismatch: 'this adapter speaks protocol {ours}, the runner asked for {theirs}',
  unknown_command: 'unknown command {cmd}',
  malformed_message: 'malformed {what}: {problem}',
  unknown_behaviour: 'unknown {what} {keys}: this kit implements {known}',
  bad_pointer: 'mutate_args pointer {pointer}: {problem}',
  bad_result: 'result {field}: {problem}',
  runner_not_found: 'cannot find the harness-conformance runner: {problem}',
  runner_failed: 'the runner failed: {problem}',
};

const QUOTE_LIMIT = 200;

/** A bounded, escaped rendering of a value for a message (never a raw multi-line string). */
export function quote(value: unknown, limit = QUOTE_LIMIT): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  text = text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/** The one place error text is composed. */
export function message(code: ErrorCode, details: Record<string, unknown>): string {
  return MESSAGES[code].replace(/\{(\w+)\}/g, (_, key: string) => String(details[key]));
}

/** An error of the kit: `code` says which kind, `details` what went into the message. */
export class KitError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, details: Record<string, unknown>) {
    super(message(code, details));
    this.name = 'KitError';
    this.code = code;
    this.details = details;
  }
}
