#!/usr/bin/env node
// The `harness-conformance` command of the npm package: finds the binary that npm installed from
// the platform package matching this machine (the esbuild/biome pattern: one optional dependency
// per platform, npm installs only the one whose `os`/`cpu` match) and runs it with this process's
// arguments, stdio and exit status. HARNESS_CONFORMANCE_BINARY=/path/to/binary overrides the
// lookup (an unsupported platform, or a binary built from a checkout). Run through npm (npx, npm
// exec, an npm script) the runner is the project's own, so the launcher tells it to print its
// reproducers as `npx harness-conformance …` (HARNESS_CONFORMANCE_COMMAND), the command the user
// can type.
"use strict";

const { spawnSync } = require("child_process");
const os = require("os");
const path = require("path");

const EXE = process.platform === "win32" ? "harness-conformance.exe" : "harness-conformance";

function platformPackage() {
  return `@harness-conformance/cli-${process.platform}-${process.arch}`;
}

function findBinary() {
  const override = process.env.HARNESS_CONFORMANCE_BINARY;
  if (override) return override;
  const pkg = platformPackage();
  const supported = Object.keys(require("../package.json").optionalDependencies || {});
  if (!supported.includes(pkg)) {
    fail(
      `no prebuilt binary for ${process.platform}-${process.arch}; prebuilt: ` +
        `${supported.map((p) => p.replace("@harness-conformance/cli-", "")).join(", ")}.\n` +
        "Build one from a checkout of the suite (its docs/install.md says how) and set " +
        "HARNESS_CONFORMANCE_BINARY to its path."
    );
  }
  try {
    return require.resolve(`${pkg}/bin/${EXE}`);
  } catch {
    fail(
      `the platform package ${pkg} is not installed. It is an optional dependency of ` +
        "harness-conformance: reinstall without --no-optional / --omit=optional, and make sure " +
        "the lock file was not written on another platform without it."
    );
  }
}

function fail(message) {
  process.stderr.write(`harness-conformance (npm launcher): ${message}\n`);
  process.exit(2);
}

/** The environment for the binary: npm sets npm_command for npx, npm exec and npm scripts. */
function childEnv(env) {
  if (env.npm_command && !env.HARNESS_CONFORMANCE_COMMAND) {
    return { ...env, HARNESS_CONFORMANCE_COMMAND: "npx harness-conformance" };
  }
  return env;
}

const binary = findBinary();
const child = spawnSync(binary, process.argv.slice(2), { stdio: "inherit", env: childEnv(process.env) });
if (child.error) {
  fail(`could not run ${path.resolve(binary)}: ${child.error.message}`);
}
if (child.signal) {
  // Killed by a signal: exit as a shell reports it (128 + the signal's number).
  process.exit(128 + (os.constants.signals[child.signal] || 0));
}
process.exit(child.status);
