// Tests of the npm packaging: npm/stage.mjs stages every platform of npm/platforms.json and the
// main package correctly, and the launcher finds, runs and reports on the platform binary.
// A fake binary (a shell script) stands in for the runner, so these run in a second.
//
//   node --test npm/test/
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const npmDir = dirname(dirname(fileURLToPath(import.meta.url)));
const root = dirname(npmDir);
const stage = join(npmDir, "stage.mjs");
const platforms = JSON.parse(readFileSync(join(npmDir, "platforms.json"), "utf8")).platforms;
const version = /\[workspace\.package\][^[]*?\nversion\s*=\s*"([^"]+)"/.exec(readFileSync(join(root, "Cargo.toml"), "utf8"))[1];
const here = `${process.platform}-${process.arch}`;

function scratch() {
  return mkdtempSync(join(tmpdir(), "npm-packages-test-"));
}

function fakeBinary(dir, script) {
  const path = join(dir, "fake-binary");
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
  return path;
}

function readJson(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}

test("every platform package is staged with its os, cpu, version and an executable binary", () => {
  const dir = scratch();
  const bin = fakeBinary(dir, "exit 0");
  for (const p of platforms) {
    const out = join(dir, p.npm);
    execFileSync(process.execPath, [stage, "platform", p.npm, bin, out]);
    const manifest = readJson(join(out, "package.json"));
    assert.equal(manifest.name, `@harness-conformance/cli-${p.npm}`);
    assert.equal(manifest.version, version);
    assert.deepEqual(manifest.os, [p.os]);
    assert.deepEqual(manifest.cpu, [p.cpu]);
    const exe = join(out, "bin", p.os === "win32" ? "harness-conformance.exe" : "harness-conformance");
    assert.ok(statSync(exe).mode & 0o100, `${exe} is executable`);
    for (const f of ["README.md", "LICENSE-MIT", "LICENSE-APACHE"]) assert.ok(existsSync(join(out, f)), f);
  }
});

test("the main package depends on every platform package at the workspace version", () => {
  const out = join(scratch(), "main");
  execFileSync(process.execPath, [stage, "main", out]);
  const manifest = readJson(join(out, "package.json"));
  assert.equal(manifest.name, "harness-conformance");
  assert.equal(manifest.version, version);
  assert.deepEqual(
    manifest.optionalDependencies,
    Object.fromEntries(platforms.map((p) => [`@harness-conformance/cli-${p.npm}`, version])),
  );
  assert.equal(manifest.bin["harness-conformance"], "bin/harness-conformance.js");
  assert.ok(statSync(join(out, manifest.bin["harness-conformance"])).mode & 0o100);
});

test("stage.mjs refuses an unknown platform and a missing binary", () => {
  const dir = scratch();
  const bad = spawnSync(process.execPath, [stage, "platform", "plan9-mips", fakeBinary(dir, ""), join(dir, "x")], { encoding: "utf8" });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown platform "plan9-mips"; known: linux-x64/);
  const missing = spawnSync(process.execPath, [stage, "platform", "linux-x64", join(dir, "nope"), join(dir, "y")], { encoding: "utf8" });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /no such binary/);
});

/** A project with the main package and this platform's package installed around `script`. */
function project(script, { withPlatform = true, supported = true } = {}) {
  const dir = scratch();
  const modules = join(dir, "node_modules");
  execFileSync(process.execPath, [stage, "main", join(modules, "harness-conformance")]);
  if (withPlatform) {
    execFileSync(process.execPath, [stage, "platform", here, fakeBinary(dir, script), join(modules, "@harness-conformance", `cli-${here}`)]);
  }
  if (!supported) {
    const path = join(modules, "harness-conformance", "package.json");
    const manifest = readJson(path);
    delete manifest.optionalDependencies[`@harness-conformance/cli-${here}`];
    writeFileSync(path, JSON.stringify(manifest));
  }
  return join(modules, "harness-conformance", "bin", "harness-conformance.js");
}

function launch(launcher, args, env = {}) {
  return spawnSync(process.execPath, [launcher, ...args], { encoding: "utf8", env: { ...process.env, ...env } });
}

const posix = process.platform !== "win32" && platforms.some((p) => p.npm === here);

test("the launcher runs the platform binary with the arguments and passes its exit status on", { skip: !posix }, () => {
  const launcher = project('printf "%s|" "$@"; exit 7');
  const run = launch(launcher, ["run", "--harness", "a b", ""]);
  assert.equal(run.stdout, "run|--harness|a b||");
  assert.equal(run.status, 7);
});

test("run through npm, the binary is told to print its reproducers with npx", { skip: !posix }, () => {
  const launcher = project('printf "%s" "$HARNESS_CONFORMANCE_COMMAND"');
  const clean = { ...process.env };
  delete clean.npm_command;
  delete clean.HARNESS_CONFORMANCE_COMMAND;
  const plain = spawnSync(process.execPath, [launcher], { encoding: "utf8", env: clean });
  assert.equal(plain.stdout, "");
  const npx = spawnSync(process.execPath, [launcher], { encoding: "utf8", env: { ...clean, npm_command: "exec" } });
  assert.equal(npx.stdout, "npx harness-conformance");
  const told = spawnSync(process.execPath, [launcher], {
    encoding: "utf8", env: { ...clean, npm_command: "exec", HARNESS_CONFORMANCE_COMMAND: "harness-conformance" },
  });
  assert.equal(told.stdout, "harness-conformance");
});

test("a binary killed by a signal exits 128 + the signal's number", { skip: !posix }, () => {
  const run = launch(project("kill -TERM $$"), []);
  assert.equal(run.status, 128 + 15);
});

test("a missing platform package is explained", { skip: !posix }, () => {
  const run = launch(project("", { withPlatform: false }), ["--version"]);
  assert.equal(run.status, 2);
  assert.match(run.stderr, new RegExp(`the platform package @harness-conformance/cli-${here} is not installed`));
  assert.match(run.stderr, /--omit=optional/);
});

test("a platform without a prebuilt binary is explained, with the override", { skip: !posix }, () => {
  const run = launch(project("", { supported: false }), ["--version"]);
  assert.equal(run.status, 2);
  const others = platforms.filter((p) => p.npm !== here).map((p) => p.npm).join(", ");
  assert.ok(run.stderr.includes(`no prebuilt binary for ${here}; prebuilt: ${others}.`), run.stderr);
  assert.match(run.stderr, /HARNESS_CONFORMANCE_BINARY/);
});

test("HARNESS_CONFORMANCE_BINARY runs that binary instead", { skip: !posix }, () => {
  const dir = scratch();
  const other = join(dir, "other");
  mkdirSync(other);
  const run = launch(project("echo platform"), ["x"], { HARNESS_CONFORMANCE_BINARY: fakeBinary(other, 'echo "override $1"') });
  assert.equal(run.stdout, "override x\n");
  assert.equal(run.status, 0);
});

test("the committed template is what stage.mjs copies", () => {
  const out = join(scratch(), "main");
  execFileSync(process.execPath, [stage, "main", out]);
  const launcher = readFileSync(join(out, "bin", "harness-conformance.js"), "utf8");
  assert.equal(launcher, readFileSync(join(npmDir, "harness-conformance", "bin", "harness-conformance.js"), "utf8"));
  assert.equal(readFileSync(join(out, "README.md"), "utf8"), readFileSync(join(npmDir, "harness-conformance", "README.md"), "utf8"));
});
