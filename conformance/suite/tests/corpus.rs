//! The corpus and the spec check each other, and the reference passes the corpus.
//!
//! - every case file validates against `schema/case.schema.json` and decodes strictly, with
//!   its id matching its path;
//! - SPEC.md's `Cases:` lines and the cases' `requirements` agree both ways, every MUST has at
//!   least one case, and every `Applies:` line holds (`audit`, what `spec --check` runs).
//!
//! The reference harness's run of the whole corpus is `tests/reference.rs`, through the gate.

use std::path::{Path, PathBuf};

use harness_conformance_suite::{audit, loader};
use serde_json::Value;

/// The suite's data folder (`conformance/`: cases, schemas, SPEC.md), as the build script found it.
fn root() -> PathBuf {
    PathBuf::from(env!("SUITE_DATA"))
}

fn case_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            case_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn every_case_file_validates_against_the_case_schema_and_decodes() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schema/case.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let cases_dir = root().join("cases");
    let mut files = Vec::new();
    case_files(&cases_dir, &mut files);
    files.sort();
    assert!(!files.is_empty());
    let mut problems = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(&cases_dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let Some(id) = rel.strip_suffix(".json") else {
            problems.push(format!("{rel}: not a .json file"));
            continue;
        };
        let text = std::fs::read_to_string(path).unwrap();
        let value: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{rel}: not JSON: {e}"));
                continue;
            }
        };
        for e in validator.iter_errors(&value) {
            problems.push(format!("{rel}: schema: {}: {e}", e.instance_path()));
        }
        match loader::decode_case(&text) {
            Ok(case) if case.id == id => {}
            Ok(case) => problems.push(format!("{rel}: id {:?} does not match the path", case.id)),
            Err(e) => problems.push(format!("{rel}: {e}")),
        }
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert_eq!(
        files.len(),
        loader::embedded_files().len(),
        "the binary embeds a different set of cases than the checkout holds"
    );
}

#[test]
fn the_embedded_suite_loads() {
    if let Err(errors) = loader::load_embedded() {
        let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!("{} load error(s):\n{}", list.len(), list.join("\n"));
    }
}

/// SPEC.md's `Cases:` and `Applies:` lines, the cases' requirements and blame agree
/// (`harness-conformance spec --check` reports the same problems).
#[test]
fn spec_md_the_cases_and_blame_agree() {
    let suite = loader::load_embedded().expect("the embedded suite loads");
    assert!(
        !suite.requirements.is_empty(),
        "SPEC.md defines no requirement"
    );
    let problems = audit::problems(&suite);
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
