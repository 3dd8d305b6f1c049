// @harness-conformance/adapter: put a TypeScript/JavaScript harness behind the harness-conformance
// protocol.
//
// An adapter is a small program the `harness-conformance` runner drives over JSON lines: for each
// case it builds the case's tools in a fresh harness, feeds the case's calls as one assistant turn,
// and reports what the model would be shown; the runner decides pass or fail. This kit owns
// everything that is the same for every harness — the protocol loop, strict JSON, the hello and its
// vocabulary, the scripted tool behaviours, invocation recording and the blame rule (harness failed
// / cannot express the case / adapter failed) — so an adapter is two functions and a declaration.
// No runtime dependencies; Node 20+. See README.md for the whole surface and how to extend it.

export { defineAdapter, main, runCase, serve, unitFor, type Adapter, type ServeOptions } from './adapter.js';
export {
  ContentBlocks, expand, McpResult, measure, ReturnInstead, Script, setPointer, Stream, GENERATORS, OUTPUTS, STEPS,
  type ErrorFactory, type Errors, type Present,
} from './behaviours.js';
export {
  capabilitiesJson, hello, validateCapabilities, CAPABILITY_KEYS, IMPLEMENTATION_KEYS,
  type Cap, type Capabilities, type CallForm, type Deadline, type Implementation, type OutcomeClass, type Strategy,
  type TokenEstimator, type Unit, type Wrapper,
} from './capabilities.js';
export { field, idOrNull, MISSING, offeredTools, parseCase, type Call, type Case, type Config, type ImageLimit, type Missing, type Tool } from './case.js';
export { ErrorCode, KitError } from './errors.js';
export { dumps, loads, toJson, UNSET, type Json } from './json.js';
export { oneLine, Skip, Turn, type Handler, type ReportOptions, type Result, type SyncHandler } from './turn.js';
export * as vocabulary from './vocabulary.js';
export { blocksOf, mcpHost, textOf, type CallTool, type McpHostOptions } from './mcp-host.js';
