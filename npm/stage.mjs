#!/usr/bin/env node
// Stages the npm packages in a folder, ready for `npm pack` / `npm publish`:
//
//   node npm/stage.mjs platform <linux-x64|linux-arm64|darwin-x64|darwin-arm64|win32-x64> <binary> <dir>
//       a platform package (@harness-conformance/cli-<platform>) holding <binary>
//   node npm/stage.mjs main <dir>
//       the main package (harness-conformance): the launcher, with every platform package of
//       npm/platforms.json as an optional dependency
//
// Both take their version from the workspace version in Cargo.toml (docs/versioning.md), so the
// npm packages can never disagree with the wheel or the binary. Node's standard library only.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const npmDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(npmDir);
const SCOPE = "@harness-conformance";
const DOCS = ["LICENSE-MIT", "LICENSE-APACHE"];

function fail(message) {
  process.stderr.write(`npm/stage.mjs: ${message}\n`);
  process.exit(2);
}

/** `[workspace.package] version` from Cargo.toml: the one suite version. */
function workspaceVersion(cargoToml) {
  let inSection = false;
  for (const raw of cargoToml.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("[")) inSection = line === "[workspace.package]";
    else if (inSection) {
      const m = /^version\s*=\s*"([^"]+)"\s*(#.*)?$/.exec(line);
      if (m) return m[1];
    }
  }
  return null;
}

function version() {
  const v = workspaceVersion(readFileSync(join(root, "Cargo.toml"), "utf8"));
  if (!v) fail("Cargo.toml has no `version = \"...\"` under [workspace.package]");
  return v;
}

function platforms() {
  return JSON.parse(readFileSync(join(npmDir, "platforms.json"), "utf8")).platforms;
}

function freshDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "bin"), { recursive: true });
}

function writeJson(path, value) {
  writeFileSync(path, JSON.stringify(value, null, 2) + "\n");
}

function copyDocs(dir, readme) {
  for (const name of DOCS) copyFileSync(join(root, name), join(dir, name));
  writeFileSync(join(dir, "README.md"), readme);
}

function stagePlatform(name, binary, dir) {
  const p = platforms().find((row) => row.npm === name);
  if (!p) fail(`unknown platform ${JSON.stringify(name)}; known: ${platforms().map((r) => r.npm).join(", ")}`);
  if (!existsSync(binary) || !statSync(binary).isFile()) fail(`${binary}: no such binary`);
  const exe = p.os === "win32" ? "harness-conformance.exe" : "harness-conformance";
  const pkg = `${SCOPE}/cli-${p.npm}`;
  freshDir(dir);
  copyFileSync(binary, join(dir, "bin", exe));
  chmodSync(join(dir, "bin", exe), 0o755);
  writeJson(join(dir, "package.json"), {
    name: pkg,
    version: version(),
    description: `The harness-conformance binary for ${p.npm} (${p.rust_target}); installed by the harness-conformance package`,
    license: "MIT OR Apache-2.0",
    os: [p.os],
    cpu: [p.cpu],
    files: ["bin/", "README.md", ...DOCS],
    preferUnplugged: true,
  });
  copyDocs(
    dir,
    `# ${pkg}\n\nThe \`harness-conformance\` binary for ${p.npm}. Install \`harness-conformance\`, ` +
      "not this package: it depends on the right platform package for your machine.\n",
  );
  return pkg;
}

function stageMain(dir) {
  const src = join(npmDir, "harness-conformance");
  const manifest = JSON.parse(readFileSync(join(src, "package.json"), "utf8"));
  const v = version();
  manifest.version = v;
  manifest.optionalDependencies = Object.fromEntries(platforms().map((p) => [`${SCOPE}/cli-${p.npm}`, v]));
  freshDir(dir);
  const launcher = join(dir, "bin", "harness-conformance.js");
  copyFileSync(join(src, "bin", "harness-conformance.js"), launcher);
  chmodSync(launcher, 0o755);
  writeJson(join(dir, "package.json"), manifest);
  copyDocs(dir, readFileSync(join(src, "README.md"), "utf8"));
  return manifest.name;
}

const [command, ...args] = process.argv.slice(2);
if (command === "platform" && args.length === 3) {
  console.log(`staged ${stagePlatform(args[0], args[1], args[2])}@${version()} in ${args[2]}`);
} else if (command === "main" && args.length === 1) {
  console.log(`staged ${stageMain(args[0])}@${version()} in ${args[0]}`);
} else {
  fail("usage: stage.mjs platform <platform> <binary> <dir> | stage.mjs main <dir>");
}
