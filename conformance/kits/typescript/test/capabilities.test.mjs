// The hello is built from typed capabilities and refuses words outside the protocol's vocabulary.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, KitError, hello } from '../dist/index.js';

const TOY = { name: 'toy', language: 'typescript', version: '0.1' };

test('a full hello says exactly what was declared; defaults are the conservative values', () => {
  assert.deepEqual(hello(TOY, {
    cap: { unit: 'bytes', limit: 4096, strategies: ['head_tail', 'head_only'], configurable: true },
    codes: { invalid_arguments: 'BAD_ARGS' }, retryability: true, deadline: { configurable: true, default_ms: 30000 },
    keywords: ['type'], call_forms: ['structured', 'raw'], parallel: true, history: true, features: ['budget'],
    folds: { malformed_call: 'invalid_arguments' }, behaviors: ['non_finite_in'], call_ids: false,
    dialect: 'anthropic-messages',
  }), {
    protocol: 1, implementation: TOY,
    capabilities: {
      cap: { unit: 'bytes', limit: 4096, configurable: true, strategies: ['head_tail', 'head_only'] },
      codes: { invalid_arguments: 'BAD_ARGS' }, retryability: true, deadline: { configurable: true, default_ms: 30000 },
      keywords: ['type'], call_forms: ['structured', 'raw'], parallel: true, history: true, features: ['budget'],
      folds: { malformed_call: 'invalid_arguments' }, behaviors: ['non_finite_in'], call_ids: false,
      dialect: 'anthropic-messages',
    },
  });
  assert.deepEqual(hello(TOY, {}).capabilities, {
    cap: null, retryability: false, keywords: [], call_forms: ['structured'], parallel: false, history: false,
  });
});

test('a wrong capability is refused naming its field', () => {
  const cases = [
    [{ cap: { unit: 'words', limit: 10 } }, 'cap.unit'],
    [{ cap: { unit: 'chars', limit: 0 } }, 'cap.limit'],
    [{ cap: { unit: 'chars', limit: 10, strategies: [] } }, 'cap.strategies'],
    [{ cap: { unit: 'chars', limit: 10, strategies: ['middle_out'] } }, 'cap.strategies'],
    [{ codes: { invalid_argument: 'X' } }, 'codes'],
    [{ codes: { timeout: 3 } }, 'codes.timeout'],
    [{ deadline: { configurable: true, default_ms: -1 } }, 'deadline.default_ms'],
    [{ call_forms: ['structured', 'json'] }, 'call_forms'],
    [{ keywords: ['type', 'type'] }, 'keywords'],
    [{ features: ['Budget'] }, 'features'],
    [{ parallel: 'yes' }, 'parallel'],
    [{ telepathy: true }, 'telepathy'],
    [{ keywords: ['type', 'typo'] }, 'keywords'],
    [{ folds: { timeout: 'internal_error' } }, 'folds.timeout'],
    [{ codes: { timeout: 'T' }, folds: { timeout: 'slow' } }, 'folds.timeout'],
    [{ behaviors: ['dance'] }, 'behaviors'],
    [{ dialect: 'anthropic' }, 'dialect'],
  ];
  for (const [caps, field] of cases) {
    assert.throws(() => hello(TOY, caps), (e) => e instanceof KitError && e.code === ErrorCode.INVALID_CAPABILITY && e.details.field === field, field);
  }
  assert.throws(() => hello({ ...TOY, name: '' }, {}), (e) => e.code === ErrorCode.INVALID_IMPLEMENTATION);
});
