// Every conformance case as a `node --test` test, with the runner's verdicts.
//
//     // conformance.test.mjs
//     import { conformanceTests } from '@harness-conformance/adapter/node-test';
//     conformanceTests({ command: 'node my-adapter.mjs' });
//
// Why this module exists: a Node project already has a test run; this puts the suite inside it
// without changing who judges. It never decides pass or fail itself: it asks the real
// `harness-conformance` binary for the case list (when the file is loaded), runs the suite once
// against `command` with a JSON report (before the first test), and turns each case's verdict into
// its test's outcome — PASS passes, FAIL / ERROR / BUG IN CASE / STALE fail with the runner's
// messages and reproducer, SKIP and XFAIL are skipped with the reason. The runner is `runner`,
// else $HARNESS_CONFORMANCE, else the project's own (`npm install -D harness-conformance`, found
// from the working directory up, as Node resolves a package — `node --test` does not put
// node_modules/.bin on PATH), else `harness-conformance` on PATH.

import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { before, describe, it, type TestContext } from 'node:test';
import { ErrorCode, KitError } from './errors.js';
import { loads } from './json.js';

export interface ConformanceOptions {
  /** The adapter command, as for `harness-conformance run --harness`. */
  command: string;
  /** The runner binary (default: $HARNESS_CONFORMANCE, else `harness-conformance` on PATH). */
  runner?: string;
  /** Only cases whose id matches (the runner's --run globs). */
  run?: string[];
  /** Expected failures (the runner's --baseline): listed failures are skipped as XFAIL. */
  baseline?: string;
  /** Adapter processes the runner starts (default 2). */
  jobs?: number;
  /** The describe() block's name. */
  name?: string;
}

interface Outcome {
  id: string;
  verdict: string;
  messages?: string[];
  baseline?: string;
  reproduce?: string;
}

const MESSAGE_LIMIT = 4000;

/**
 * The runner installed in the project (`npm install -D harness-conformance`): its launcher,
 * resolved from `dir` upward the way Node resolves a package, or undefined.
 */
export function localRunner(dir: string = process.cwd()): string | undefined {
  try {
    const manifest = createRequire(join(dir, 'package.json')).resolve('harness-conformance/package.json');
    const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> }).bin?.['harness-conformance'];
    return bin ? join(dirname(manifest), bin) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The runner: the option, else $HARNESS_CONFORMANCE, else the project's own (`localRunner`), else
 * PATH (throws KitError).
 */
export function findRunner(option?: string, env: NodeJS.ProcessEnv = process.env, dir: string = process.cwd()): string {
  const executable = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  const explicit = option ?? env.HARNESS_CONFORMANCE;
  if (explicit) {
    if (!executable(explicit)) throw new KitError(ErrorCode.RUNNER_NOT_FOUND, { problem: `${JSON.stringify(explicit)} is not executable` });
    return explicit;
  }
  const local = localRunner(dir);
  if (local && executable(local)) return local;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'harness-conformance');
    if (dir && executable(candidate)) return candidate;
  }
  throw new KitError(ErrorCode.RUNNER_NOT_FOUND, {
    problem: 'not installed in this project (npm install -D harness-conformance) nor on PATH; pass `runner` or set HARNESS_CONFORMANCE',
  });
}

/** Registers one test per case under a describe() block (call it at the top level of a test file). */
export function conformanceTests(options: ConformanceOptions): void {
  const runner = findRunner(options.runner);
  // The project's own runner is run with npx from a shell: its reproducers say so.
  const env = runner === localRunner() && !process.env.HARNESS_CONFORMANCE_COMMAND
    ? { ...process.env, HARNESS_CONFORMANCE_COMMAND: 'npx harness-conformance' }
    : process.env;
  const filters = (options.run ?? []).flatMap((glob) => ['--run', glob]);
  const listed = execFileSync(runner, ['list', ...filters], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env });
  const ids = listed.split('\n').filter((l) => l.trim()).map((l) => l.split('\t')[0] as string);
  const outcomes = new Map<string, Outcome>();
  describe(options.name ?? 'harness-conformance', () => {
    before(() => {
      const dir = mkdtempSync(join(tmpdir(), 'harness-conformance-'));
      try {
        const report = join(dir, 'report.jsonl');
        const args = ['run', '--harness', options.command, '--format', 'json', '-o', report, '--quiet',
          '--jobs', String(options.jobs ?? 2), ...filters];
        if (options.baseline) args.push('--baseline', options.baseline);
        const done = spawnSync(runner, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env });
        let text = '';
        try {
          text = readFileSync(report, 'utf8');
        } catch {
          throw new KitError(ErrorCode.RUNNER_FAILED, { problem: `run exited ${done.status} with no report: ${String(done.stderr).slice(-1000)}` });
        }
        for (const line of text.split('\n')) {
          if (!line.trim()) continue;
          const entry = loads(line) as unknown as Outcome & { type?: string };
          if (entry.type === 'case') outcomes.set(entry.id, entry);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
    for (const id of ids) {
      it(id, (t: TestContext) => {
        const outcome = outcomes.get(id);
        if (!outcome) throw new Error(`the runner reported nothing for ${id}`);
        const messages = (outcome.messages ?? []).map(String);
        if (outcome.verdict === 'PASS') return;
        if (outcome.verdict === 'SKIP') {
          t.skip(messages.join('; ').slice(0, MESSAGE_LIMIT) || 'skipped by the runner');
          return;
        }
        if (outcome.verdict === 'XFAIL') {
          t.skip(`XFAIL: ${outcome.baseline ?? messages.join('; ')}`.slice(0, MESSAGE_LIMIT));
          return;
        }
        const text = [`${outcome.verdict}: ${id}`, ...messages];
        if (outcome.baseline) text.push(`baseline: ${outcome.baseline}`);
        if (outcome.reproduce) text.push(`reproduce: ${outcome.reproduce}`);
        throw new Error(text.join('\n').slice(0, MESSAGE_LIMIT));
      });
    }
  });
}
