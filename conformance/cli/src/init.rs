//! `init`: from nothing to a green gate in one command, and a gated run in one more.
//!
//! A new author's first hour used to go on finding the template, learning which package holds
//! the kit, copying capability names by hand and reading how a baseline is made (issue 29). `init`
//! does each of those steps for them and asks nothing it can tell from the project:
//!
//! 1. the language from the project's files (`pyproject.toml`, `setup.py`, `setup.cfg` or
//!    `requirements.txt` for Python; `package.json` for TypeScript), the harness's name,
//!    version and homepage from its manifest;
//! 2. writes an adapter on the kit for that language — the repository's template, which is
//!    this module's output for the toy harness (`conformance/adapters/template-*`, checked by
//!    `tests/init.rs`) — with every capability of the protocol listed and commented, each with
//!    the names it takes, read from `harness_conformance_protocol::vocabulary`;
//! 3. runs the suite once against it and writes the first baseline, so the gate is green at
//!    once and turns red on the first new failure;
//! 4. writes the GitHub Actions job, which the README shows and `ci/packages.sh` runs.
//!
//! It never overwrites a file unless told to (`--force`), and installs nothing: when the kit
//! is missing it says the one command that installs it.

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use harness_conformance_driver::client::ProcessHarness;
use harness_conformance_driver::runner;
use harness_conformance_protocol::vocabulary;
use harness_conformance_report::{escape, files, shell_quote};
use harness_conformance_suite::baseline::Baseline;
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::SUITE_VERSION;

use crate::out::tell;

/// The GitHub Action's repository, as a `uses:` line names it. `OWNER` is a placeholder for the
/// maintainers to fill when the repository has its public home (the workspace's
/// `repository`, root Cargo.toml, is unset for the same reason).
pub const ACTION: &str = "OWNER/harness-conformance";

/// The folder `init` writes the adapter and baseline into, under the project.
pub const DIR: &str = "conformance";

/// The workflow file `init` writes.
pub const WORKFLOW: &str = ".github/workflows/harness-conformance.yml";

/// A harness language `init` has a kit for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    /// The Python kit, `harness-conformance-adapter` on PyPI.
    Python,
    /// The TypeScript kit, `@harness-conformance/adapter` on npm (JavaScript harnesses too).
    Typescript,
}

#[derive(Args, Debug)]
pub struct InitArgs {
    /// The harness's project folder.
    #[arg(default_value = ".", value_name = "DIR")]
    dir: PathBuf,
    /// The harness's language (default: told from the project's files — pyproject.toml,
    /// setup.py, setup.cfg or requirements.txt for Python, package.json for TypeScript).
    #[arg(long, value_enum)]
    lang: Option<Lang>,
    /// Replace files `init` writes that exist already.
    #[arg(long)]
    force: bool,
    /// Write the files only: no first run, no baseline.
    #[arg(long)]
    no_baseline: bool,
    /// Which cases the first run (and so the first baseline) covers; default: all of them.
    #[command(flatten)]
    filter: crate::FilterArgs,
    #[command(flatten)]
    exec: crate::ExecArgs,
}

/// The units, strategies and call forms of protocol 1 (closed enums in
/// `harness_conformance_protocol::case`; `tests/init.rs` compares them with hello.schema.json).
const UNITS: [&str; 4] = ["bytes", "chars", "lines", "tokens"];
const STRATEGIES: [&str; 4] = ["head_tail", "head_only", "reject", "spill"];
const CALL_FORMS: [&str; 3] = ["structured", "arguments_text", "raw"];

/// One capability of the hello, as the adapter's declaration shows it: what it means, the
/// names it takes, an example in each language, and the toy harness's value when it declares
/// one (that line is written uncommented).
struct Field {
    name: &'static str,
    doc: &'static str,
    names: fn() -> String,
    python: &'static str,
    typescript: &'static str,
    declared: Option<(&'static str, &'static str)>,
}

/// Every capability field, in `vocabulary::CAPABILITY_FIELDS`'s order (a test keeps the two
/// the same, so a field added to the protocol fails until it is documented here).
const FIELDS: [Field; 14] = [
    Field {
        name: "cap",
        doc: "the output cap (none: the harness has no cap, and cap cases FAIL, by design). \
              `unit`: what the limit counts (`tokens` with an `estimator`, PROTOCOL.md 4l); \
              `strategies`: how it cuts, the first the default; \
              `configurable`: a case may set the limit, the unit and the strategy.",
        names: || {
            format!(
                "Units: {}. Strategies: {}.",
                UNITS.join(", "),
                STRATEGIES.join(", ")
            )
        },
        python: r#"cap=Cap(unit="chars", limit=16384, strategies=["head_tail"], configurable=False),"#,
        typescript:
            "cap: { unit: 'chars', limit: 16384, strategies: ['head_tail'], configurable: false },",
        declared: Some(("cap=None,", "cap: null,")),
    },
    Field {
        name: "codes",
        doc: "each outcome class your harness tells apart -> its own machine code (several \
              classes may share one).",
        names: || list("Classes", &vocabulary::CLASSES),
        python: r#"codes={"invalid_arguments": "INVALID_ARGS", "unknown_tool": "NO_SUCH_TOOL"},"#,
        typescript: "codes: { invalid_arguments: 'INVALID_ARGS', unknown_tool: 'NO_SUCH_TOOL' },",
        declared: None,
    },
    Field {
        name: "retryability",
        doc: "results say whether retrying the same call can help.",
        names: String::new,
        python: "retryability=True,",
        typescript: "retryability: true,",
        declared: None,
    },
    Field {
        name: "deadline",
        doc: "handler deadlines: `configurable`, a case may set one; `default_ms`, the one the \
              harness applies when none is set.",
        names: String::new,
        python: "deadline=Deadline(configurable=True, default_ms=30000),",
        typescript: "deadline: { configurable: true, default_ms: 30000 },",
        declared: None,
    },
    Field {
        name: "keywords",
        doc: "the JSON Schema keywords your harness enforces as the schema says (a case whose \
              tools use another is skipped).",
        names: || list("Keywords", &vocabulary::KEYWORDS),
        python: r#"keywords=["type", "properties", "required", "additionalProperties", "enum"],"#,
        typescript: "keywords: ['type', 'properties', 'required', 'additionalProperties', 'enum'],",
        declared: Some((
            r#"keywords=["type", "properties", "required"],"#,
            "keywords: ['type', 'properties', 'required'],",
        )),
    },
    Field {
        name: "call_forms",
        doc: "how a call may reach the harness: a structured block, its arguments as JSON text, \
              or raw text.",
        names: || list("Forms", &CALL_FORMS),
        python: r#"call_forms=["structured", "arguments_text"],"#,
        typescript: "call_forms: ['structured', 'arguments_text'],",
        declared: Some((
            r#"call_forms=["structured"],"#,
            "call_forms: ['structured'],",
        )),
    },
    Field {
        name: "parallel",
        doc: "a turn's calls reach the harness as one batch.",
        names: String::new,
        python: "parallel=True,",
        typescript: "parallel: true,",
        declared: None,
    },
    Field {
        name: "history",
        doc: "replies carry the calls as the harness's transcript keeps them.",
        names: String::new,
        python: "history=True,",
        typescript: "history: true,",
        declared: None,
    },
    Field {
        name: "features",
        doc: "optional feature sets (PROTOCOL.md sections 4a-4f); declare only those your \
              harness has.",
        names: || list("Features", &vocabulary::FEATURES),
        python: r#"features=["authorization", "budget"],"#,
        typescript: "features: ['authorization', 'budget'],",
        declared: None,
    },
    Field {
        name: "folds",
        doc: "a class your harness does not tell apart -> the class it answers it as (which has \
              a code), so it is judged on the partition it has.",
        names: String::new,
        python: r#"folds={"malformed_call": "invalid_arguments"},"#,
        typescript: "folds: { malformed_call: 'invalid_arguments' },",
        declared: None,
    },
    Field {
        name: "behaviors",
        doc: "scripted behaviours beyond the base set whose results your harness carries \
              faithfully (the kit performs them all).",
        names: || list("Behaviours", &vocabulary::BEHAVIORS),
        python: r#"behaviors=["non_finite_in"],"#,
        typescript: "behaviors: ['non_finite_in'],",
        declared: None,
    },
    Field {
        name: "call_ids",
        doc: "false for a harness that never sees the model's tool-use ids (an MCP server: its \
              host pairs results with calls); the id cases are then skipped.",
        names: String::new,
        python: "call_ids=False,",
        typescript: "call_ids: false,",
        declared: None,
    },
    Field {
        name: "dialect",
        doc: "the model provider whose request format your harness's results go into; every \
              result is then judged by that provider's acceptance rules (PROTOCOL.md 4i).",
        names: || list("Dialects", &vocabulary::DIALECTS),
        python: r#"dialect="anthropic-messages","#,
        typescript: "dialect: 'anthropic-messages',",
        declared: None,
    },
    Field {
        name: "wrapper",
        doc: "the markers your harness frames every result in, as a tool's untrusted text, and \
              the escapes it applies to copies of them in an output (PROTOCOL.md 4l).",
        names: String::new,
        python: r#"wrapper=Wrapper(open="<tool_output>\n", close="\n</tool_output>"),"#,
        typescript: "wrapper: { open: '<tool_output>\\n', close: '\\n</tool_output>' },",
        declared: None,
    },
];

/// `Label: a, b, c.`
fn list(label: &str, names: &[&str]) -> String {
    format!("{label}: {}.", names.join(", "))
}

/// How wide the generated comment lines may be.
const WIDTH: usize = 100;

/// `# ` + `text`, wrapped at [`WIDTH`] after `indent`; continuation lines are indented two
/// more when `hanging` (a field's note under its name).
fn comment(out: &mut String, indent: &str, marker: &str, text: &str, hanging: bool) {
    let mut line = format!("{indent}{marker} ");
    let fresh = line.len();
    for word in text.split_whitespace() {
        if line.len() > fresh && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = format!("{indent}{marker} {}", if hanging { "  " } else { "" });
        }
        if !line.ends_with(' ') {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// The capability declaration for `lang`: every field of [`FIELDS`], its meaning and names as
/// comments, then its example commented out, or the toy harness's value.
pub fn capabilities(lang: Lang) -> String {
    let (marker, indent) = match lang {
        Lang::Python => ("#", "    "),
        Lang::Typescript => ("//", "  "),
    };
    let mut out = String::new();
    comment(
        &mut out,
        "",
        marker,
        &format!(
            "A capability declared but missing shows up as FAILs; one left out is an honest SKIP \
             (PROTOCOL.md section 2). Every capability of protocol {} is below, with the names it \
             takes; uncomment and edit what your harness has. (Written by `harness-conformance \
             init` from the vocabulary of suite {SUITE_VERSION}.)",
            harness_conformance_protocol::PROTOCOL_VERSION
        ),
        false,
    );
    out.push_str(match lang {
        Lang::Python => "CAPABILITIES = Capabilities(\n",
        Lang::Typescript => "const capabilities: Capabilities = {\n",
    });
    for f in &FIELDS {
        comment(
            &mut out,
            indent,
            marker,
            &format!("{}: {} {}", f.name, f.doc, (f.names)()),
            true,
        );
        let (example, declared) = match lang {
            Lang::Python => (f.python, f.declared.map(|d| d.0)),
            Lang::Typescript => (f.typescript, f.declared.map(|d| d.1)),
        };
        if declared != Some(example) {
            let _ = writeln!(out, "{indent}{marker} {example}");
        }
        if let Some(d) = declared {
            let _ = writeln!(out, "{indent}{d}");
        }
    }
    out.push_str(match lang {
        Lang::Python => ")",
        Lang::Typescript => "};",
    });
    out
}

/// What `init` knows of the harness's project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The harness's name (the manifest's, else the folder's).
    pub name: String,
    /// Its version (the manifest's, else `0.0.0`).
    pub version: String,
    /// Its homepage, when the manifest names one.
    pub homepage: Option<String>,
    /// The language written in the hello (`python`, `typescript`, `javascript`).
    pub language: String,
    /// The CI steps that install the harness (and, for TypeScript, build the adapter).
    pub install: Vec<(String, &'static str)>,
}

impl Project {
    /// The repository's own template's project: the toy harness (the tests compare the
    /// committed templates with what `init` writes for it).
    #[cfg(test)]
    pub fn toy(lang: Lang) -> Project {
        Project {
            name: "toy-harness".into(),
            version: "0.1".into(),
            homepage: Some("https://example.invalid/toy".into()),
            language: match lang {
                Lang::Python => "python",
                Lang::Typescript => "javascript",
            }
            .into(),
            install: Vec::new(),
        }
    }
}

/// The adapter's file name under [`DIR`]: `.mts` for TypeScript, so it compiles to an ES
/// module (the kit's `main` is awaited at the top level) whatever the project's `type` is.
pub fn adapter_file(lang: Lang) -> &'static str {
    match lang {
        Lang::Python => "adapter.py",
        Lang::Typescript => "adapter.mts",
    }
}

/// The adapter `init` writes (or, for [`Project::toy`], the repository's template), with
/// `path` the adapter's path as its header's commands name it.
pub fn adapter(lang: Lang, project: &Project, path: &str) -> String {
    let quote = |s: &str| match lang {
        Lang::Python => serde_json::Value::from(s).to_string(),
        // One quoting style in the TypeScript template: single quotes, as the kit's code.
        Lang::Typescript => format!(
            "'{}'",
            serde_json::Value::from(s).to_string()[1..]
                .trim_end_matches('"')
                .replace("\\\"", "\"")
                .replace('\'', "\\'")
        ),
    };
    let homepage = match (&project.homepage, lang) {
        (Some(h), Lang::Python) => format!(", {}", quote(h)),
        (Some(h), Lang::Typescript) => format!(", homepage: {}", quote(h)),
        (None, _) => String::new(),
    };
    // A TypeScript adapter's folder (for `tsc -p`) and the file tsc writes for it.
    let parent = Path::new(path)
        .parent()
        .map(|p| p.display().to_string())
        .filter(|p| !p.is_empty());
    let stem = Path::new(path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("adapter");
    let built = format!(
        "{}dist/{stem}.{}",
        parent.as_ref().map_or(String::new(), |p| format!("{p}/")),
        if path.ends_with(".mts") { "mjs" } else { "js" }
    );
    let template = match lang {
        Lang::Python => include_str!("init/adapter.py"),
        Lang::Typescript => include_str!("init/adapter.ts"),
    };
    fill(
        template,
        &[
            ("suite", SUITE_VERSION),
            ("path", path),
            ("dir", parent.as_deref().unwrap_or(".")),
            ("built", &built),
            ("capabilities", &capabilities(lang)),
            ("name", &quote(&project.name)),
            ("language", &quote(&project.language)),
            ("version", &quote(&project.version)),
            ("homepage", &homepage),
        ],
    )
}

/// `template` with each `{{key}}` replaced by its value, in one pass (a value is never read
/// for placeholders). A placeholder without a value is a bug in the template.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find("}}").expect("a placeholder is closed");
        let key = &after[..end];
        let value = values
            .iter()
            .find(|(k, _)| *k == key)
            .unwrap_or_else(|| panic!("no value for the placeholder {key:?}"));
        out.push_str(value.1);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// The language the project's files say, when they say exactly one.
fn detect_lang(dir: &Path) -> Result<Lang, String> {
    let has = |f: &str| dir.join(f).is_file();
    let python = [
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "requirements.txt",
    ]
    .into_iter()
    .find(|f| has(f));
    let node = has("package.json").then_some("package.json");
    match (python, node) {
        (Some(_), None) => Ok(Lang::Python),
        (None, Some(_)) => Ok(Lang::Typescript),
        (Some(p), Some(n)) => Err(format!(
            "{} has both {p} and {n}: say which kit the adapter uses with --lang python or --lang typescript",
            dir.display()
        )),
        (None, None) => Err(format!(
            "{} has no pyproject.toml, setup.py, setup.cfg, requirements.txt or package.json to tell the harness's language from: pass --lang python or --lang typescript",
            dir.display()
        )),
    }
}

/// The most bytes of a manifest `init` reads.
const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// A `key = "value"` line's value in `section` of a TOML file (the subset a `[project]` table
/// uses for its name, version and homepage; anything else is left to the defaults).
fn toml_value(text: &str, section: &str, key: &str) -> Option<String> {
    let mut current = "";
    for raw in text.lines() {
        let line = raw.trim();
        if line.starts_with('[') {
            current = line;
            continue;
        }
        if current != section {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let k = k.trim().trim_matches('"');
        if k.eq_ignore_ascii_case(key) {
            let v = v.trim();
            let v = v.strip_prefix('"').and_then(|v| v.split('"').next())?;
            return Some(v.to_owned()).filter(|v| !v.is_empty());
        }
    }
    None
}

/// What the project's manifest says about the harness, with the defaults for what it does not.
fn detect_project(dir: &Path, lang: Lang) -> Project {
    let read = |f: &str| {
        let path = dir.join(f);
        path.is_file()
            .then(|| files::read_bounded(&path, MAX_MANIFEST_BYTES, f).ok())
            .flatten()
    };
    let folder = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "my-harness".into());
    let mut project = Project {
        name: folder,
        version: "0.0.0".into(),
        homepage: None,
        language: "python".into(),
        install: Vec::new(),
    };
    match lang {
        Lang::Python => {
            if let Some(text) = read("pyproject.toml") {
                let get = |key| toml_value(&text, "[project]", key);
                if let Some(n) = get("name") {
                    project.name = n;
                }
                if let Some(v) = get("version") {
                    project.version = v;
                }
                project.homepage = ["Homepage", "homepage", "Repository", "Source"]
                    .into_iter()
                    .find_map(|k| toml_value(&text, "[project.urls]", k));
            }
            let editable = ["pyproject.toml", "setup.py", "setup.cfg"]
                .iter()
                .any(|f| dir.join(f).is_file());
            let install = if editable {
                "pip install -e ."
            } else {
                "pip install -r requirements.txt"
            };
            project.install = vec![(install.to_owned(), "install your harness")];
        }
        Lang::Typescript => {
            let manifest: Option<serde_json::Value> =
                read("package.json").and_then(|t| serde_json::from_str(&t).ok());
            let get = |key: &str| {
                manifest
                    .as_ref()
                    .and_then(|m| m.get(key))
                    .and_then(serde_json::Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
            };
            if let Some(n) = get("name") {
                project.name = n;
            }
            if let Some(v) = get("version") {
                project.version = v;
            }
            project.homepage = get("homepage");
            project.language = if dir.join("tsconfig.json").is_file() {
                "typescript"
            } else {
                "javascript"
            }
            .into();
            let install = if dir.join("package-lock.json").is_file() {
                "npm ci"
            } else {
                "npm install"
            };
            project.install = vec![
                (install.to_owned(), "your harness, the kit, typescript"),
                (format!("npx tsc -p {DIR}"), "build the adapter"),
            ];
        }
    }
    project
}

/// The adapter command, as CI runs it from the project's root.
pub fn adapter_command(lang: Lang) -> String {
    match lang {
        Lang::Python => format!("python3 {DIR}/{}", adapter_file(lang)),
        Lang::Typescript => format!("node {DIR}/dist/adapter.mjs"),
    }
}

/// The GitHub Actions workflow `init` writes: the harness installed, then the action, which
/// installs the runner and the kit at the suite version of its tag and gates on the baseline.
pub fn workflow(lang: Lang, project: &Project, filters: &str) -> String {
    let mut out = format!(
        "\
# The tool-call conformance gate, written by `harness-conformance init`. The tag pins the suite
# version (docs/versioning.md): upgrade it deliberately, since a new version can add cases your
# harness fails. {ACTION} is the GitHub repository of harness-conformance.
name: tool-call conformance
on: [push, pull_request]
permissions:
  contents: read
jobs:
  conformance:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v6
"
    );
    out.push_str(match lang {
        Lang::Python => {
            "      - uses: actions/setup-python@v6\n        with: { python-version: \"3.12\" }\n"
        }
        Lang::Typescript => {
            "      - uses: actions/setup-node@v6\n        with: { node-version: \"20\" }\n"
        }
    });
    for (command, why) in &project.install {
        let _ = writeln!(out, "      - run: {command:<40} # {why}");
    }
    let _ = write!(
        out,
        "      - uses: {ACTION}@v{SUITE_VERSION}       # installs the runner and the {} kit
        with:
          adapter: {}
          baseline: {DIR}/baseline.json
{}",
        match lang {
            Lang::Python => "Python",
            Lang::Typescript => "TypeScript",
        },
        adapter_command(lang),
        if filters.is_empty() {
            String::new()
        } else {
            format!("          args: {}\n", filters.trim())
        }
    );
    out
}

/// The TypeScript adapter's compiler settings: an ES module beside the kit's types.
const TSCONFIG: &str = r#"{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "lib": ["ES2022"],
    "types": ["node"],
    "strict": true,
    "outDir": "dist"
  },
  "files": ["adapter.mts"]
}
"#;

/// Every file `init` writes before its first run: (path under the project, content).
pub fn plan(lang: Lang, project: &Project, filters: &str) -> Vec<(String, String)> {
    let adapter_path = format!("{DIR}/{}", adapter_file(lang));
    let mut out = vec![(adapter_path.clone(), adapter(lang, project, &adapter_path))];
    if lang == Lang::Typescript {
        out.push((format!("{DIR}/tsconfig.json"), TSCONFIG.to_owned()));
    }
    out.push((WORKFLOW.to_owned(), workflow(lang, project, filters)));
    out
}

pub fn run(args: &InitArgs) -> Result<ExitCode, String> {
    let dir = &args.dir;
    if !dir.is_dir() {
        return Err(format!("{} is not a folder", dir.display()));
    }
    let lang = match args.lang {
        Some(l) => l,
        None => detect_lang(dir)?,
    };
    let project = detect_project(dir, lang);
    let baseline = format!("{DIR}/baseline.json");
    let filters = filter_words(&args.filter);
    let files_planned = plan(lang, &project, &filters);
    let mut targets: Vec<&str> = files_planned.iter().map(|(p, _)| p.as_str()).collect();
    if !args.no_baseline {
        targets.push(&baseline);
    }
    let existing: Vec<&str> = targets
        .iter()
        .copied()
        .filter(|p| dir.join(p).symlink_metadata().is_ok())
        .collect();
    if !existing.is_empty() && !args.force {
        return Err(format!(
            "{} exist(s) already in {}: init writes nothing over them unless --force is given",
            existing.join(", "),
            dir.display()
        ));
    }
    for (path, text) in &files_planned {
        files::write_under(dir, Path::new(path), text.as_bytes()).map_err(|e| e.to_string())?;
        tell!("wrote {path}");
    }
    let program = crate::program();
    let gate = format!(
        "{program} run --harness {} --baseline {baseline}{filters}",
        shell_quote(&local_command(dir, lang))
    );
    if args.no_baseline {
        tell!(
            "\nnext: make the first baseline (the suite's known failures of this adapter):\n  {program} run --harness {} --write-baseline {baseline}{filters}",
            shell_quote(&local_command(dir, lang))
        );
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(missing) = missing_kit(dir, lang) {
        tell!(
            "\nthe first run needs {missing}; then make the first baseline with\n  {program} run --harness {} --write-baseline {baseline}{filters}",
            shell_quote(&local_command(dir, lang))
        );
        return Ok(ExitCode::from(2));
    }
    first_run(args, dir, lang, &baseline)?.map_or(Ok(()), Err)?;
    tell!(
        "\nnext, the gate as CI runs it ({WORKFLOW}): green now, red on the first new failure:\n  {gate}\n\
         then replace ToyHarness in {DIR}/{} with your harness (the PLUG IN parts), declare its \
         capabilities, and when the failures left are the ones you accept, rewrite the baseline: add --update",
        adapter_file(lang)
    );
    Ok(ExitCode::SUCCESS)
}

/// The `--run`/`--skip` options as shell words (` --run 'validation/*'`), empty without any.
fn filter_words(f: &crate::FilterArgs) -> String {
    let mut out = String::new();
    for (flag, globs) in [("--run", &f.run), ("--skip", &f.skip)] {
        for g in globs {
            let _ = write!(out, " {flag} {}", shell_quote(g));
        }
    }
    out
}

/// The adapter command to run here and now: the virtual environment's Python when the project
/// has one in `.venv` and none is active, else what CI runs.
fn local_command(dir: &Path, lang: Lang) -> String {
    if lang == Lang::Python
        && std::env::var_os("VIRTUAL_ENV").is_none()
        && dir.join(".venv/bin/python").is_file()
    {
        return format!(".venv/bin/python {DIR}/{}", adapter_file(lang));
    }
    adapter_command(lang)
}

/// What must be installed before the first run, when something is missing: the kit (and for
/// TypeScript the compiler), said as the command that installs it.
fn missing_kit(dir: &Path, lang: Lang) -> Option<String> {
    match lang {
        Lang::Python => {
            let python = local_command(dir, lang);
            let python = python.split(' ').next().unwrap_or("python3");
            let found = std::process::Command::new(python)
                .args(["-c", "import harness_conformance_adapter"])
                .current_dir(dir)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            (!found).then(|| {
                format!(
                    "the Python kit, which `{python}` cannot import: pip install harness-conformance-adapter=={SUITE_VERSION}"
                )
            })
        }
        Lang::Typescript => {
            let installed = |what: &str| {
                dir.ancestors()
                    .any(|d| d.join("node_modules").join(what).exists())
            };
            let mut need = Vec::new();
            if !installed("@harness-conformance/adapter/package.json") {
                need.push(format!("@harness-conformance/adapter@{SUITE_VERSION}"));
            }
            if !installed(".bin/tsc") {
                need.push("typescript".into());
            }
            if !installed("@types/node/package.json") {
                need.push("@types/node".into());
            }
            (!need.is_empty()).then(|| {
                format!(
                    "the TypeScript kit and compiler: npm install -D {} (then build the adapter: npx tsc -p {DIR})",
                    need.join(" ")
                )
            })
        }
    }
}

/// Builds the adapter when it needs building, runs the suite against it once and writes the
/// first baseline. `Ok(Some(message))`: the run could not judge (the handshake failed).
fn first_run(
    args: &InitArgs,
    dir: &Path,
    lang: Lang,
    baseline: &str,
) -> Result<Option<String>, String> {
    std::env::set_current_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if lang == Lang::Typescript {
        tell!("building the adapter: tsc -p {DIR}");
        let tsc = Path::new("node_modules/.bin/tsc");
        let tsc: PathBuf = if tsc.exists() {
            tsc.into()
        } else {
            "tsc".into()
        };
        let built = std::process::Command::new(&tsc)
            .args(["-p", DIR])
            .status()
            .map_err(|e| format!("cannot run {}: {e}", tsc.display()))?;
        if !built.success() {
            return Err(format!(
                "tsc -p {DIR} failed ({built}); fix the adapter and run `npx tsc -p {DIR}`, then `{} run --harness {} --write-baseline {baseline}`",
                crate::program(),
                shell_quote(&adapter_command(lang))
            ));
        }
    }
    let suite = crate::load_suite()?;
    let cases = crate::selected(&suite, &args.filter);
    if cases.is_empty() {
        return Err("no case matches the --run/--skip filters".into());
    }
    let command = local_command(Path::new("."), lang);
    tell!(
        "running the suite once against `{command}` to write the first baseline ({} cases)",
        cases.len()
    );
    let cfg = crate::run_config(&args.exec, Baseline::new(), &suite);
    let opts = crate::process_options(&args.exec);
    let factory = {
        let command = command.clone();
        move || -> Box<dyn Harness + Send> { Box::new(ProcessHarness::new(&command, opts.clone())) }
    };
    // A bar on a terminal; nothing in a log (the totals follow).
    let shown = crate::progress::Progress::new(cases.len(), !std::io::stderr().is_terminal());
    let result = runner::run(&cases, &factory, &cfg, &|d, t, o| shown.case(d, t, o));
    shown.finish();
    if let Some(e) = &result.handshake_error {
        let mut text = format!(
            "the handshake failed, so no case ran and no baseline was written:\n  {}",
            escape::indented(
                e,
                harness_conformance_report::terminal::MAX_HANDSHAKE_CHARS,
                "  "
            )
        );
        if let Some(h) = harness_conformance_report::hints::for_message(e) {
            let _ = write!(text, "\n  hint: {} ({})", h.advice, h.code);
        }
        return Ok(Some(text));
    }
    tell!("{} cases: {}", result.outcomes.len(), result.totals());
    crate::write_baseline(
        Path::new(baseline),
        false,
        &result,
        &Baseline::new(),
        &suite,
    )?;
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repository(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(rel)
    }

    /// Compares `got` with the committed file `rel`; `UPDATE_INIT=1` rewrites the file instead.
    fn same_as_committed(rel: &str, got: &str) {
        let path = repository(rel);
        if std::env::var_os("UPDATE_INIT").is_some() {
            std::fs::write(&path, got).unwrap();
            return;
        }
        let want = std::fs::read_to_string(&path).unwrap();
        assert!(
            want == got,
            "{rel} is not what `init` writes; rewrite it with `UPDATE_INIT=1 cargo test -p harness-conformance --bin harness-conformance init` and review the diff"
        );
    }

    /// The repository's templates are `init`'s adapters for the toy harness, so the template a
    /// reader copies and the adapter `init` writes cannot drift apart.
    #[test]
    fn the_templates_are_what_init_writes_for_the_toy_harness() {
        same_as_committed(
            "conformance/adapters/template-python/adapter.py",
            &adapter(Lang::Python, &Project::toy(Lang::Python), "adapter.py"),
        );
        same_as_committed(
            "conformance/adapters/template-typescript/adapter.ts",
            &adapter(
                Lang::Typescript,
                &Project::toy(Lang::Typescript),
                "adapter.ts",
            ),
        );
    }

    /// The job to copy (ci/gate/github-actions.yml, and the one README.md shows) is the one
    /// `init` writes for a Python project with a pyproject.toml; `ci/packages.sh` runs it.
    #[test]
    fn the_job_to_copy_is_what_init_writes() {
        let project = Project {
            install: vec![("pip install -e .".into(), "install your harness")],
            ..Project::toy(Lang::Python)
        };
        let job = workflow(Lang::Python, &project, "");
        same_as_committed("ci/gate/github-actions.yml", &job);
        let readme = std::fs::read_to_string(repository("README.md")).unwrap();
        let steps = &job[job.find("jobs:").unwrap()..];
        assert!(
            readme.contains(steps),
            "README.md's CI job is not the one `init` writes:\n{steps}"
        );
    }

    #[test]
    fn every_capability_field_of_the_protocol_is_documented_in_order() {
        let names: Vec<&str> = FIELDS.iter().map(|f| f.name).collect();
        assert_eq!(names, vocabulary::CAPABILITY_FIELDS);
    }

    /// Every name the vocabulary has is in both languages' declaration, and every line fits.
    #[test]
    fn the_declaration_lists_every_name_of_the_vocabulary() {
        for lang in [Lang::Python, Lang::Typescript] {
            let text = capabilities(lang);
            let words: std::collections::BTreeSet<&str> = text
                .split(|c: char| !(c.is_alphanumeric() || "_-$".contains(c)))
                .collect();
            for name in vocabulary::KEYWORDS
                .iter()
                .chain(&vocabulary::CLASSES)
                .chain(&vocabulary::FEATURES)
                .chain(&vocabulary::BEHAVIORS)
                .chain(&vocabulary::DIALECTS)
                .chain(&vocabulary::CAPABILITY_FIELDS)
                .chain(&UNITS)
                .chain(&STRATEGIES)
                .chain(&CALL_FORMS)
            {
                assert!(words.contains(name), "{lang:?}: {name} is not listed");
            }
            for line in text.lines() {
                assert!(line.chars().count() <= WIDTH, "{lang:?}: too wide: {line}");
            }
        }
    }

    /// The closed enums `init` lists are the ones the hello's schema allows.
    #[test]
    fn units_strategies_and_call_forms_are_the_schemas() {
        let (_, text) = harness_conformance_suite::loader::schema_files()
            .into_iter()
            .find(|(p, _)| p.ends_with("hello.schema.json"))
            .unwrap();
        let schema: serde_json::Value = serde_json::from_str(text).unwrap();
        let caps = &schema["$defs"]["capabilities"]["properties"];
        let cap = &caps["cap"]["oneOf"][1]["properties"];
        let list =
            |v: &serde_json::Value| -> Vec<String> { serde_json::from_value(v.clone()).unwrap() };
        assert_eq!(list(&cap["unit"]["enum"]), UNITS);
        assert_eq!(list(&cap["strategies"]["items"]["enum"]), STRATEGIES);
        assert_eq!(list(&caps["call_forms"]["items"]["enum"]), CALL_FORMS);
    }

    #[test]
    fn manifests_name_the_harness() {
        let toml = "[tool.x]\nname = \"no\"\n[project]\nname = \"my-harness\"\nversion = \"2.3.1\"\n\n[project.urls]\nHomepage = \"https://example.org/h\"\n";
        assert_eq!(
            toml_value(toml, "[project]", "name").as_deref(),
            Some("my-harness")
        );
        assert_eq!(
            toml_value(toml, "[project]", "version").as_deref(),
            Some("2.3.1")
        );
        assert_eq!(
            toml_value(toml, "[project.urls]", "homepage").as_deref(),
            Some("https://example.org/h")
        );
        assert_eq!(toml_value(toml, "[project]", "homepage"), None);
    }

    #[test]
    fn quoting_survives_hostile_names() {
        let project = Project {
            name: "it's \"quoted\" \\ {{version}}".into(),
            ..Project::toy(Lang::Typescript)
        };
        let ts = adapter(Lang::Typescript, &project, "conformance/adapter.mts");
        assert!(
            ts.contains(r#"name: 'it\'s "quoted" \\ {{version}}'"#),
            "{ts}"
        );
        let py = adapter(Lang::Python, &project, "conformance/adapter.py");
        assert!(
            py.contains(r#"Implementation("it's \"quoted\" \\ {{version}}", "python""#),
            "{py}"
        );
    }
}
