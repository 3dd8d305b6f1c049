// Strict JSON both ways: JavaScript's silent conversions are refused or spelled out.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, KitError, UNSET, dumps, loads, toJson } from '../dist/index.js';

const code = (fn) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof KitError, String(e));
    return e.code;
  }
  assert.fail('did not throw');
};

test('loads refuses what is not strict JSON', () => {
  for (const text of ['{"a": NaN}', '[Infinity]', '{"a": 1, "a": 2}', '{"a": {"b": 1, "\\u0062": 2}}', '{', '{"a":1} x']) {
    assert.equal(code(() => loads(text)), ErrorCode.INVALID_JSON, text);
  }
  assert.deepEqual(loads('{"a": [{"a": 1}, {"a": 2}], "b": "}{\\"a\\":"}'), { a: [{ a: 1 }, { a: 2 }], b: '}{"a":' });
});

test('dumps refuses what has no strict JSON form', () => {
  for (const value of [NaN, Infinity, -Infinity, { a: [NaN] }, [undefined], () => 1, Symbol('s')]) {
    assert.equal(code(() => dumps(value)), ErrorCode.UNENCODABLE, String(value));
  }
});

test('bigints keep every digit, lone surrogates stay escaped, optional fields are left out', () => {
  assert.equal(dumps({ n: 10n ** 40n, s: 'é\ud800\n', u: undefined }), '{"n":10000000000000000000000000000000000000000,"s":"é\\ud800\\n"}');
});

test('toJson spells out non-finite, drops UNSET and undefined, cuts cycles, never throws', () => {
  const cyclic = { name: 'c' };
  cyclic.self = cyclic;
  class Opaque { #hidden = 1; }
  assert.deepEqual(toJson({ a: NaN, b: UNSET, c: undefined, d: [undefined, -Infinity], e: cyclic, f: new Date(0), g: new Map([[1, 2]]), h: new Opaque() }), {
    a: { $non_finite: 'nan' }, d: [null, { $non_finite: '-inf' }], e: { name: 'c', self: '[cycle]' },
    f: '1970-01-01T00:00:00.000Z', g: 'Map(1) { 1 => 2 }', h: 'Opaque {}',
  });
});
