// The kit's vocabulary is the protocol's: read from the schemas here, independently of the
// generator, and every word implemented by a registry.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CAPABILITY_KEYS, GENERATORS, IMPLEMENTATION_KEYS, OUTPUTS, STEPS, vocabulary } from '../dist/index.js';
import { BLOCK_KINDS, NON_FINITE_NAMES, TOOL_OPTIONS } from '../dist/behaviours.js';

const schema = (name) => JSON.parse(readFileSync(new URL(`../../../schema/protocol/${name}.schema.json`, import.meta.url), 'utf8'));
const hello = schema('hello');
const run = schema('run');
const caps = hello.$defs.capabilities.properties;
const variants = (node) => node.oneOf.map((v) => v.required[0]);

test('capability words match hello.schema.json', () => {
  const cap = caps.cap.oneOf.find((v) => v.type === 'object');
  assert.deepEqual([...vocabulary.CAP_UNITS], cap.properties.unit.enum);
  assert.deepEqual([...vocabulary.CAP_STRATEGIES], cap.properties.strategies.items.enum);
  assert.deepEqual([...vocabulary.OUTCOME_CLASSES], caps.codes.propertyNames.enum);
  assert.deepEqual([...vocabulary.CALL_FORMS], caps.call_forms.items.enum);
  assert.deepEqual(vocabulary.FEATURES, caps.features.items.enum ?? null);
  assert.deepEqual(vocabulary.KEYWORDS, caps.keywords.items.enum ?? null);
  assert.deepEqual([...vocabulary.OPTIONAL_BEHAVIOURS], caps.behaviors?.items.enum ?? []);
  assert.deepEqual([...vocabulary.CAPABILITY_FIELDS], Object.keys(caps));
  assert.deepEqual([...vocabulary.IMPLEMENTATION_FIELDS], Object.keys(hello.properties.implementation.properties));
  assert.equal(vocabulary.PROTOCOL_VERSION, schema('start').properties.protocol.const);
});

test('behaviour words match run.schema.json and each has an implementation', () => {
  assert.deepEqual(Object.keys(STEPS), variants(run.$defs.behavior));
  assert.deepEqual(Object.keys(OUTPUTS), variants(run.$defs.output));
  assert.deepEqual(Object.keys(GENERATORS), variants(run.$defs.gen));
  assert.deepEqual([...vocabulary.BEHAVIOURS], variants(run.$defs.behavior));
  const raise = run.$defs.behavior.oneOf.find((v) => v.required[0] === 'raise');
  assert.deepEqual([...vocabulary.RAISE_KINDS], raise.properties.raise.properties.kind.enum);
  const nonFinite = run.$defs.output.oneOf.find((v) => v.required[0] === 'non_finite');
  assert.deepEqual(NON_FINITE_NAMES, nonFinite.properties.non_finite.enum);
});

test('every optional behaviour is implemented', () => {
  const implemented = new Set([...Object.keys(STEPS), ...Object.keys(OUTPUTS), ...Object.keys(GENERATORS), ...TOOL_OPTIONS, ...BLOCK_KINDS]);
  for (const b of vocabulary.OPTIONAL_BEHAVIOURS) assert.ok(implemented.has(b), b);
});

test('every capability and implementation field is modelled', () => {
  assert.deepEqual([...CAPABILITY_KEYS], [...vocabulary.CAPABILITY_FIELDS]);
  assert.deepEqual([...IMPLEMENTATION_KEYS], [...vocabulary.IMPLEMENTATION_FIELDS]);
});
