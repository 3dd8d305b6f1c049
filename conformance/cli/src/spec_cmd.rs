//! `spec`: SPEC.md's requirements checked against the corpus and the code.
//!
//! Lists every requirement with its level, the cases that test it and the checks it owns in
//! them, then every place where SPEC.md, the cases and blame disagree; `--check` prints only
//! the disagreements and is what CI runs. What is listed and what is a problem are decided by
//! `harness_conformance_suite::audit`; this module only prints them.

use std::process::ExitCode;

use clap::Args;

use harness_conformance_suite::audit::{self, Entry};
use harness_conformance_suite::loader::Suite;
use harness_conformance_suite::spec::Level;

use crate::out::{say, tell};

#[derive(Args, Debug)]
pub struct SpecArgs {
    /// Only these requirements (`VAL-1 CAP-10`); default: every one.
    #[arg(value_name = "REQUIREMENT")]
    requirements: Vec<String>,
    /// List nothing: print the problems and a summary, and exit 1 if there is any problem.
    #[arg(long)]
    check: bool,
}

pub fn run(args: &SpecArgs, suite: &Suite) -> Result<ExitCode, String> {
    let index = audit::index(suite);
    if let Some(unknown) = args
        .requirements
        .iter()
        .find(|id| !index.iter().any(|e| e.requirement.id == **id))
    {
        return Err(format!(
            "no requirement {unknown:?} in SPEC.md (see `harness-conformance spec`)"
        ));
    }
    if !args.check {
        for entry in index.iter().filter(|e| {
            args.requirements.is_empty() || args.requirements.contains(&e.requirement.id)
        }) {
            say!("{}", render(entry))?;
        }
    }
    let problems = audit::problems(suite);
    for p in &problems {
        tell!("problem: {p}");
    }
    let count = |level| {
        index
            .iter()
            .filter(|e| e.requirement.level == level)
            .count()
    };
    tell!(
        "{} requirements ({} MUST, {} SHOULD, {} MAY), {} cases: {}",
        index.len(),
        count(Level::Must),
        count(Level::Should),
        count(Level::May),
        suite.cases.len(),
        if problems.is_empty() {
            "SPEC.md, the cases and blame agree".to_owned()
        } else {
            format!("{} problem(s)", problems.len())
        }
    );
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// One requirement: its heading, then its cases, the checks it owns and where it applies.
fn render(entry: &Entry<'_>) -> String {
    let r = entry.requirement;
    let mut out = format!("{} ({}) {}\n", r.id, r.level, r.title);
    out.push_str(&format!(
        "  cases ({}): {}\n",
        entry.cases.len(),
        if entry.cases.is_empty() {
            "none".to_owned()
        } else {
            entry.cases.join(", ")
        }
    ));
    let owns: Vec<String> = entry
        .owns
        .iter()
        .map(|(kind, n)| format!("{kind} ×{n}"))
        .collect();
    out.push_str(&format!(
        "  owns {} check(s): {}",
        entry.owned_checks(),
        if owns.is_empty() {
            "none".to_owned()
        } else {
            owns.join(", ")
        }
    ));
    if !r.applies.is_empty() {
        out.push_str(&format!("\n  applies with: {}", r.applies.join(", ")));
    }
    out
}
