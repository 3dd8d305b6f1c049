//! The loader: cases embedded in the binary, decoded strictly, checked for consistency.
//!
//! The cases ship inside the binary (`include_dir!`), as toml-test's do, so `run` needs no
//! checkout and `copy <dir>` writes them out for adapters in other languages. Loading is
//! all-or-nothing and reports every problem at once: a case whose id does not match its path,
//! a duplicate id, an unknown field, a requirement SPEC.md does not define, an unknown need, a
//! result expectation per call missing. Such a case is a bug in the suite; the runner refuses
//! to start rather than blame a harness for it.

use std::collections::BTreeSet;
use std::fmt;

use include_dir::{include_dir, Dir};
use serde::Deserialize;

use crate::blame;
use crate::case::Case;
use crate::needs;
use crate::spec::{self, Requirement};

/// The case files, embedded at build time.
pub static CASES: Dir<'static> = include_dir!("$SUITE_DATA/cases");

/// The JSON Schemas (`schema/`: the case file and every protocol message), embedded so that
/// `copy` gives an adapter author everything in one place.
pub static SCHEMAS: Dir<'static> = include_dir!("$SUITE_DATA/schema");

/// PROTOCOL.md, embedded at build time.
pub static PROTOCOL_MD: &str = include_str!(concat!(env!("SUITE_DATA"), "/PROTOCOL.md"));

/// SPEC.md, embedded at build time (empty if the checkout has none).
pub static SPEC_MD: &str = include_str!(concat!(env!("OUT_DIR"), "/SPEC.md"));

/// The outcome classes (DESIGN.md): the only values `class` may take.
pub use harness_conformance_protocol::vocabulary::CLASSES;

/// One problem found while loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The file (relative to `cases/`), or `SPEC.md`.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// The loaded suite.
#[derive(Debug, Clone)]
pub struct Suite {
    /// Every case, ordered by id.
    pub cases: Vec<Case>,
    /// Every requirement of SPEC.md, in document order.
    pub requirements: Vec<Requirement>,
}

impl Suite {
    /// The requirement with this id.
    pub fn requirement(&self, id: &str) -> Option<&Requirement> {
        self.requirements.iter().find(|r| r.id == id)
    }

    /// The case with this id.
    pub fn case(&self, id: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.id == id)
    }
}

/// Every embedded case file: (path relative to `cases/`, contents).
pub fn embedded_files() -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    collect(&CASES, &mut out);
    out.sort();
    out
}

fn collect(dir: &'static Dir<'static>, out: &mut Vec<(String, &'static str)>) {
    for file in dir.files() {
        let path = file.path().to_string_lossy().replace('\\', "/");
        if path.ends_with(".json") {
            out.push((path, file.contents_utf8().unwrap_or("")));
        }
    }
    for sub in dir.dirs() {
        collect(sub, out);
    }
}

/// Every embedded schema file: (path relative to `schema/`, contents).
pub fn schema_files() -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    collect(&SCHEMAS, &mut out);
    out.sort();
    out
}

/// Loads the embedded suite.
pub fn load_embedded() -> Result<Suite, Vec<LoadError>> {
    load(&embedded_files(), SPEC_MD)
}

/// The requirements of the embedded SPEC.md, parsed once (empty if it does not parse: loading
/// the suite reports that). Checks read a requirement's `Applies:` line from here, so a check
/// owned by a requirement that does not apply to the harness is not run ([`crate::checks`]).
pub fn embedded_requirements() -> &'static [Requirement] {
    static REQUIREMENTS: std::sync::OnceLock<Vec<Requirement>> = std::sync::OnceLock::new();
    REQUIREMENTS.get_or_init(|| spec::parse(SPEC_MD).unwrap_or_default())
}

/// Loads a suite from case files and SPEC.md text.
pub fn load(files: &[(String, &str)], spec_text: &str) -> Result<Suite, Vec<LoadError>> {
    let mut errors = Vec::new();
    let requirements = match spec::parse(spec_text) {
        Ok(r) => r,
        Err(e) => {
            errors.push(LoadError {
                path: "SPEC.md".into(),
                message: e.to_string(),
            });
            Vec::new()
        }
    };
    for r in &requirements {
        for name in r.applies.iter().filter(|n| !needs::is_known_applies(n)) {
            errors.push(LoadError {
                path: "SPEC.md".into(),
                message: format!(
                    "{}: `Applies:` names {name:?}, which is not a capability (known: cap, {}, feature.<name>)",
                    r.id,
                    needs::NEED_NAMES.join(", ")
                ),
            });
        }
    }
    let known: BTreeSet<&str> = requirements.iter().map(|r| r.id.as_str()).collect();
    let mut cases: Vec<Case> = Vec::new();
    let mut seen = BTreeSet::new();
    for (path, text) in files {
        match decode_case(text) {
            Err(message) => errors.push(LoadError {
                path: path.clone(),
                message,
            }),
            Ok(case) => {
                let expected_id = path.trim_end_matches(".json");
                let mut problems = Vec::new();
                if case.id != expected_id {
                    problems.push(format!(
                        "id {:?} does not match the file's path (expected {expected_id:?})",
                        case.id
                    ));
                }
                if !seen.insert(case.id.clone()) {
                    problems.push(format!("duplicate case id {:?}", case.id));
                }
                problems.extend(suite_case_problems(&case, &known));
                if problems.is_empty() {
                    cases.push(case);
                } else {
                    errors.extend(problems.into_iter().map(|message| LoadError {
                        path: path.clone(),
                        message,
                    }));
                }
            }
        }
    }
    if errors.is_empty() {
        cases.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(Suite {
            cases,
            requirements,
        })
    } else {
        Err(errors)
    }
}

/// Everything wrong with a case that is to be one of the suite's own ([`load`]): the
/// [`consistency`] checks, and the full blame rule even for a case with no `blame` at all (the
/// fallback that [`consistency`] allows for case files from elsewhere is not for the suite).
pub fn suite_case_problems(case: &Case, known: &BTreeSet<&str>) -> Vec<String> {
    let mut problems = consistency(case, known);
    if !case.has_blame() {
        problems.extend(blame::problems(case));
    }
    problems
}

/// Decodes one case file strictly (unknown fields are errors), with the line of the problem.
pub fn decode_case(text: &str) -> Result<Case, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    let case = Case::deserialize(&mut de).map_err(|e| format!("not a valid case: {e}"))?;
    de.end()
        .map_err(|e| format!("trailing text after the case: {e}"))?;
    Ok(case)
}

/// The checks that need more than the schema: ids, needs, counts, secrets, regexes. When
/// `known` is empty (no SPEC.md), requirement ids are not checked.
pub fn consistency(case: &Case, known: &BTreeSet<&str>) -> Vec<String> {
    let mut problems = Vec::new();
    if case.id.split('/').count() != 2 || case.id.split('/').any(str::is_empty) {
        problems.push(format!("id {:?} is not `<area>/<fault-name>`", case.id));
    }
    if case.requirements.is_empty() {
        problems.push("no requirement ids".into());
    }
    if !known.is_empty() {
        for r in &case.requirements {
            if !known.contains(r.as_str()) {
                problems.push(format!("requirement {r:?} is not defined in SPEC.md"));
            }
        }
    }
    for n in case.needs.iter().chain(&case.unless) {
        if !needs::is_known(n) {
            problems.push(format!(
                "unknown need {n:?} (known: {}, feature.<name>)",
                needs::NEED_NAMES.join(", ")
            ));
        }
    }
    if case.calls.is_empty() {
        problems.push("no calls".into());
    }
    if case.expect.results.len() != case.calls.len() {
        problems.push(format!(
            "`expect.results` has {} entries for {} calls (one per call)",
            case.expect.results.len(),
            case.calls.len()
        ));
    }
    for (i, r) in case.expect.results.iter().enumerate() {
        if let Some(cap) = &r.cap {
            if (cap.note_counts || cap.note_lines) && cap.truncated != Some(true) {
                problems.push(format!(
                    "result {}: `note_counts` and `note_lines` read a note's numbers, which presupposes the cut was announced: check `truncated: true` too",
                    i + 1
                ));
            }
        }
    }
    let tools: BTreeSet<&str> = case.tools.iter().map(|t| t.name.as_str()).collect();
    for t in case.expect.invocations.keys() {
        if !tools.contains(t.as_str()) {
            problems.push(format!(
                "`expect.invocations` names {t:?}, which is not a tool of the case"
            ));
        }
    }
    for (field, list) in [
        ("received_args", &case.expect.received_args),
        ("runs_only_with", &case.expect.runs_only_with),
    ] {
        for r in list.iter().flatten() {
            if !tools.contains(r.tool.as_str()) {
                problems.push(format!(
                    "`expect.{field}` names {:?}, which is not a tool of the case",
                    r.tool
                ));
            }
        }
    }
    for (secret, message) in case.secrets() {
        if !message.contains(&secret) {
            problems.push(format!(
                "the internal error's message {message:?} does not contain its secret {secret:?}"
            ));
        }
    }
    for (i, r) in case.expect.results.iter().enumerate() {
        for class in r.class.iter().flat_map(|c| c.all()) {
            if !CLASSES.contains(&class.as_str()) {
                problems.push(format!("result {}: unknown class {class:?}", i + 1));
            }
        }
        if let Some(classes) = &r.class {
            let mut seen = BTreeSet::new();
            if classes.all().iter().any(|c| !seen.insert(c)) {
                problems.push(format!("result {}: a class is listed twice", i + 1));
            }
        }
        if let Some(re) = r.content.as_ref().and_then(|c| c.matches.as_ref()) {
            if let Err(e) = regex::Regex::new(re) {
                problems.push(format!(
                    "result {}: `matches` is not a valid regex: {e}",
                    i + 1
                ));
            }
        }
    }
    match (&case.spill_lifecycle, case.expect.spills) {
        (Some(lifecycle), _) => {
            if let Err(e) = lifecycle.check(&case.calls) {
                problems.push(format!("`spill_lifecycle`: {e}"));
            }
        }
        (None, Some(_)) => problems
            .push("`expect.spills` follows the case's `spill_lifecycle`, which it has not".into()),
        (None, None) => {}
    }
    let mut names = BTreeSet::new();
    for t in &case.tools {
        if !names.insert(t.name.as_str()) {
            problems.push(format!("tool {:?} is defined twice", t.name));
        }
    }
    // Every check tied to one requirement the case lists, every listed requirement owning a
    // check (blame.rs). The suite's own cases must all be blamed ([`load`]); a case file from
    // elsewhere with no `blame` at all (one written before blame existed, or a generated finding)
    // is still run, its unowned checks counting for every requirement it lists.
    if case.has_blame() {
        problems.extend(blame::problems(case));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "### VAL-1 (MUST) Validate first\nCases: `validation/a`\n";

    fn case(id: &str) -> String {
        format!(
            r#"{{"id": "{id}", "requirements": ["VAL-1"], "description": "d",
                "tools": [{{"name": "t", "input_schema": {{"type": "object"}}, "behavior": {{"return": {{"text": "ok"}}}}}}],
                "calls": [{{"id": "c1", "name": "t", "input": {{}}}}],
                "expect": {{"results": [{{"is_error": false}}], "blame": {{"is_error": "VAL-1"}}}}}}"#
        )
    }

    #[test]
    fn a_good_case_loads() {
        let text = case("validation/a");
        let suite = load(&[("validation/a.json".into(), text.as_str())], SPEC).unwrap();
        assert_eq!(suite.cases.len(), 1);
        assert_eq!(suite.requirements.len(), 1);
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let wrong_path = case("validation/a");
        let unknown_req = case("validation/b")
            .replace("\"VAL-1\"]", "\"VAL-9\"]")
            .replace("\"is_error\": \"VAL-1\"", "\"is_error\": \"VAL-9\"");
        let unknown_field =
            case("validation/c").replace("\"description\"", "\"descripton\": 1, \"description\"");
        let files = vec![
            ("validation/x.json".to_owned(), wrong_path.as_str()),
            ("validation/b.json".to_owned(), unknown_req.as_str()),
            ("validation/c.json".to_owned(), unknown_field.as_str()),
        ];
        let errs = load(&files, SPEC).unwrap_err();
        assert_eq!(errs.len(), 3, "{errs:?}");
        assert!(errs[0].message.contains("does not match"));
        assert!(errs[1].message.contains("VAL-9"));
        assert!(errs[2].message.contains("descripton"));
    }

    #[test]
    fn the_suites_own_cases_must_blame_every_check() {
        let unblamed = case("validation/a").replace(r#", "blame": {"is_error": "VAL-1"}"#, "");
        let errs = load(&[("validation/a.json".into(), unblamed.as_str())], SPEC).unwrap_err();
        assert!(
            errs.iter()
                .any(|e| e.message.contains("is_error: the check has no requirement")),
            "{errs:?}"
        );
        // A case file from elsewhere without blame is still accepted (its checks count for
        // every listed requirement).
        let known = ["VAL-1"].into_iter().collect();
        assert!(consistency(&decode_case(&unblamed).unwrap(), &known).is_empty());
    }

    #[test]
    fn duplicate_ids_are_a_load_error() {
        let a = case("validation/a");
        let files = vec![
            ("validation/a.json".to_owned(), a.as_str()),
            ("validation/a.json".to_owned(), a.as_str()),
        ];
        let errs = load(&files, SPEC).unwrap_err();
        assert!(errs.iter().any(|e| e.message.contains("duplicate")));
    }

    #[test]
    fn inconsistent_expectations_are_load_errors() {
        let two = case("validation/a").replace(r#"[{"is_error": false}]"#, "[]");
        let errs = load(&[("validation/a.json".into(), two.as_str())], SPEC).unwrap_err();
        assert!(errs[0].message.contains("one per call"));
        let need = case("validation/a").replace(
            r#""description": "d","#,
            r#""description": "d", "needs": ["telepathy"],"#,
        );
        let errs = load(&[("validation/a.json".into(), need.as_str())], SPEC).unwrap_err();
        assert!(errs[0].message.contains("telepathy"));
    }

    #[test]
    fn an_applies_line_naming_no_capability_is_a_load_error() {
        let spec = "### VAL-1 (MUST) Validate first\nApplies: telepathy\nCases: `validation/a`\n";
        let errs = load(
            &[("validation/a.json".into(), case("validation/a").as_str())],
            spec,
        )
        .unwrap_err();
        assert!(
            errs.iter().any(|e| e.path == "SPEC.md"
                && e.message
                    .contains("\"telepathy\", which is not a capability")),
            "{errs:?}"
        );
    }
}
