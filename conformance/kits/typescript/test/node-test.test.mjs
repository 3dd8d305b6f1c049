// The node:test helper finds the runner a project installed as a devDependency (issue 29: under
// `node --test` node_modules/.bin is not on PATH, and the helper used to look only there).
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { KitError } from '../dist/index.js';
import { findRunner, localRunner } from '../dist/node-test.js';

/** A project folder with `harness-conformance` installed in node_modules, as npm lays it out. */
function project() {
  const dir = mkdtempSync(join(tmpdir(), 'node-test-runner-'));
  const pkg = join(dir, 'node_modules', 'harness-conformance');
  mkdirSync(join(pkg, 'bin'), { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'harness-conformance', bin: { 'harness-conformance': 'bin/harness-conformance.js' } }));
  const launcher = join(pkg, 'bin', 'harness-conformance.js');
  writeFileSync(launcher, '#!/usr/bin/env node\n');
  chmodSync(launcher, 0o755);
  writeFileSync(join(dir, 'package.json'), '{"private": true}');
  mkdirSync(join(dir, 'test'));
  return { dir, launcher };
}

test('the runner a project installed is found from the project and its subfolders, PATH empty', () => {
  const { dir, launcher } = project();
  assert.equal(localRunner(dir), launcher);
  assert.equal(findRunner(undefined, { PATH: '' }, dir), launcher);
  assert.equal(findRunner(undefined, { PATH: '' }, join(dir, 'test')), launcher);
});

test('an explicit runner wins over the installed one', () => {
  const { dir, launcher } = project();
  const other = project().launcher;
  assert.equal(findRunner(other, { PATH: '' }, dir), other);
  assert.equal(findRunner(undefined, { PATH: '', HARNESS_CONFORMANCE: other }, dir), other);
  assert.notEqual(other, launcher);
});

test('no runner anywhere says how to install one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'node-test-runner-'));
  assert.equal(localRunner(dir), undefined);
  assert.throws(() => findRunner(undefined, { PATH: '' }, dir), (e) => {
    assert.ok(e instanceof KitError);
    assert.equal(e.code, 'runner_not_found');
    assert.match(e.message, /npm install -D harness-conformance/);
    return true;
  });
});
