//! The capability vocabulary is written once, in `conformance/protocol/src/vocabulary.rs` (and
//! the closed enums `Unit`, `Strategy`, `CallForm` of the protocol's case types); every other
//! place that lists it is generated from there and checked here, so that it cannot drift:
//!
//! - PROTOCOL.md §2's vocabulary table, between its two marker comments;
//! - the enumerations of `schema/protocol/hello.schema.json`, `run.schema.json` and
//!   `schema/case.schema.json` (which the kits' vocabulary modules are generated from, by
//!   `conformance/kits/generate_vocabulary.py`).
//!
//! A failure says which place is stale. `ci/vocabulary.sh --write` rewrites them all (it runs
//! these tests with `VOCABULARY_WRITE=1`, which makes them write instead of fail, then the kits'
//! generator); `ci/vocabulary.sh` checks them.

use std::path::{Path, PathBuf};

use harness_conformance_protocol::vocabulary;
use harness_conformance_protocol::{CallForm, Strategy, Unit};

/// The suite's data folder (`conformance/`), as the build script found it.
fn root() -> PathBuf {
    PathBuf::from(env!("SUITE_DATA"))
}

fn writing() -> bool {
    std::env::var_os("VOCABULARY_WRITE").is_some()
}

/// Compares `path`'s text with what the vocabulary gives; in write mode, writes it instead.
fn check_or_write(path: &Path, now: &str, wanted: &str) -> Result<(), String> {
    if now == wanted {
        return Ok(());
    }
    if writing() {
        std::fs::write(path, wanted).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(());
    }
    Err(format!(
        "{} does not hold the vocabulary of conformance/protocol/src/vocabulary.rs; run `ci/vocabulary.sh --write`",
        path.display()
    ))
}

fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().map(|v| name(*v)).collect()
}

fn code_list(names: &[&str]) -> String {
    format!("`{}`", names.join("`, `"))
}

const BEGIN: &str = "<!-- vocabulary: generated from conformance/protocol/src/vocabulary.rs by `ci/vocabulary.sh --write`; do not edit -->";
const END: &str = "<!-- end of the generated vocabulary -->";

/// PROTOCOL.md's table: one row per closed list a hello may use.
fn protocol_table() -> String {
    let rows: [(&str, Vec<&str>); 10] = [
        (
            "`keywords`: the runner derives a case's needs from these",
            vocabulary::KEYWORDS.to_vec(),
        ),
        (
            "`keywords`: accepted, never needed (a validator that ignores them validates the same)",
            vocabulary::ANNOTATION_KEYWORDS.to_vec(),
        ),
        (
            "classes: the keys of `codes`, the keys and values of `folds`",
            vocabulary::CLASSES.to_vec(),
        ),
        ("`features`", vocabulary::FEATURES.to_vec()),
        ("`behaviors`", vocabulary::BEHAVIORS.to_vec()),
        ("`dialect`", vocabulary::DIALECTS.to_vec()),
        ("`call_forms`", names(&CallForm::ALL, CallForm::as_str)),
        ("`cap.unit`", names(&Unit::ALL, Unit::as_str)),
        ("`cap.strategies`", names(&Strategy::ALL, Strategy::as_str)),
        (
            "the fields of `capabilities`",
            vocabulary::CAPABILITY_FIELDS.to_vec(),
        ),
    ];
    let mut out = format!("{BEGIN}\n| where | the names it may hold |\n|---|---|\n");
    for (place, list) in rows {
        out.push_str(&format!("| {place} | {} |\n", code_list(&list)));
    }
    out.push_str(END);
    out
}

#[test]
fn protocol_md_holds_the_generated_vocabulary_table() {
    let path = root().join("PROTOCOL.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (Some(begin), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        panic!("PROTOCOL.md has no vocabulary table between the lines {BEGIN:?} and {END:?}");
    };
    let wanted = format!(
        "{}{}{}",
        &text[..begin],
        protocol_table(),
        &text[end + END.len()..]
    );
    check_or_write(&path, &text, &wanted).unwrap();
}

/// Where a schema enumerates a list of the vocabulary: the schema file (under `conformance/`),
/// the keys leading to the list in the order they appear in the file (each searched for after
/// the last), and the names.
struct SchemaList {
    file: &'static str,
    path: &'static [&'static str],
    names: Vec<&'static str>,
}

fn schema_lists() -> Vec<SchemaList> {
    let classes = vocabulary::CLASSES.to_vec();
    let units = names(&Unit::ALL, Unit::as_str);
    let strategies = names(&Strategy::ALL, Strategy::as_str);
    let hello = "schema/protocol/hello.schema.json";
    let list = |file, path, names| SchemaList { file, path, names };
    vec![
        list(hello, &["cap", "unit", "enum"], units.clone()),
        list(hello, &["cap", "strategies", "enum"], strategies.clone()),
        list(hello, &["codes", "enum"], classes.clone()),
        list(
            hello,
            &["keywords", "enum"],
            vocabulary::declarable_keywords(),
        ),
        list(
            hello,
            &["call_forms", "enum"],
            names(&CallForm::ALL, CallForm::as_str),
        ),
        list(hello, &["features", "enum"], vocabulary::FEATURES.to_vec()),
        list(hello, &["folds", "propertyNames", "enum"], classes.clone()),
        list(
            hello,
            &["folds", "additionalProperties", "enum"],
            classes.clone(),
        ),
        list(
            hello,
            &["behaviors", "enum"],
            vocabulary::BEHAVIORS.to_vec(),
        ),
        list(hello, &["dialect", "enum"], vocabulary::DIALECTS.to_vec()),
        list(
            "schema/provider.schema.json",
            &["dialect", "enum"],
            vocabulary::DIALECTS.to_vec(),
        ),
        list(
            "schema/protocol/run.schema.json",
            &["cap", "unit", "enum"],
            units.clone(),
        ),
        list(
            "schema/protocol/run.schema.json",
            &["cap", "strategy", "enum"],
            strategies.clone(),
        ),
        list("schema/case.schema.json", &["cap", "unit", "enum"], units),
        list(
            "schema/case.schema.json",
            &["cap", "strategy", "enum"],
            strategies,
        ),
        list("schema/case.schema.json", &["code", "enum"], classes),
    ]
}

/// The byte range of the JSON array `path` leads to in `text` (from `[` to `]`, inclusive), and
/// the indentation of the line it starts on.
fn find_array(text: &str, path: &[&str]) -> Option<(std::ops::Range<usize>, usize)> {
    let mut at = 0;
    for key in path {
        at += text[at..].find(&format!("\"{key}\": "))?;
    }
    let open = at + text[at..].find('[')?;
    let close = open + text[open..].find(']')?;
    let line_start = text[..open].rfind('\n').map_or(0, |i| i + 1);
    let indent = text[line_start..].len() - text[line_start..].trim_start().len();
    Some((open..close + 1, indent))
}

/// The array as the file writes it: one name a line when it already was, else on one line.
fn render_array(names: &[&str], multiline: bool, indent: usize) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    if multiline {
        let pad = " ".repeat(indent + 2);
        format!(
            "[\n{pad}{}\n{}]",
            quoted.join(&format!(",\n{pad}")),
            " ".repeat(indent)
        )
    } else {
        format!("[{}]", quoted.join(", "))
    }
}

#[test]
fn the_schemas_enumerate_the_vocabulary() {
    let mut problems = Vec::new();
    let lists = schema_lists();
    let mut files: Vec<&str> = lists.iter().map(|l| l.file).collect();
    files.dedup();
    for file in files {
        let path = root().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut wanted = text.clone();
        for list in lists.iter().filter(|l| l.file == file) {
            let Some((range, indent)) = find_array(&wanted, list.path) else {
                problems.push(format!("{file}: no array at {:?}", list.path));
                continue;
            };
            let multiline = wanted[range.clone()].contains('\n');
            wanted.replace_range(range, &render_array(&list.names, multiline, indent));
        }
        if let Err(e) = check_or_write(&path, &text, &wanted) {
            problems.push(e);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every field a hello's `capabilities` may carry is a property of the schema's, and no other.
#[test]
fn the_hello_schema_has_every_capability_field() {
    let text = std::fs::read_to_string(root().join("schema/protocol/hello.schema.json")).unwrap();
    let hello: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut fields: Vec<&str> = hello["$defs"]["capabilities"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut known = vocabulary::CAPABILITY_FIELDS.to_vec();
    fields.sort_unstable();
    known.sort_unstable();
    assert_eq!(
        fields, known,
        "hello.schema.json's capabilities vs CAPABILITY_FIELDS"
    );
}

/// The array finder and writer keep a file's layout: a list on one line stays on one line, a
/// list of one name a line keeps its indentation.
#[test]
fn schema_lists_are_rewritten_in_place() {
    let text = "{\n  \"a\": {\"enum\": [\"x\"]},\n  \"b\": {\n    \"enum\": [\n      \"x\"\n    ]\n  }\n}\n";
    let mut out = text.to_owned();
    for path in [&["a", "enum"][..], &["b", "enum"][..]] {
        let (range, indent) = find_array(&out, path).unwrap();
        let multiline = out[range.clone()].contains('\n');
        out.replace_range(range, &render_array(&["x", "y"], multiline, indent));
    }
    assert_eq!(
        out,
        "{\n  \"a\": {\"enum\": [\"x\", \"y\"]},\n  \"b\": {\n    \"enum\": [\n      \"x\",\n      \"y\"\n    ]\n  }\n}\n"
    );
    assert!(find_array(&out, &["c", "enum"]).is_none());
}
