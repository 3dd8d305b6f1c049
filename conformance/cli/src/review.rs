//! The binary's side of wording snapshots: recording after a run, and the `review` / `accept` /
//! `reject` commands over pending `.snap.new` files.
//!
//! Kept out of the report crate because it talks to the terminal (an interactive prompt) and decides
//! exit codes; the comparison, file format and file handling are in
//! `harness_conformance_report::snapshot`. `cargo insta review` works on the same files when the
//! snapshot directory is inside a cargo package (docs/wording.md); this command works anywhere,
//! e.g. in a Python harness's repository.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use harness_conformance_report::snapshot::{self, store, Meta};
use harness_conformance_suite::case::Case;
use harness_conformance_suite::loader::Suite;
use harness_conformance_suite::run::RunResult;

/// `review <DIR>`.
#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// The snapshot directory given to `run --snapshots`.
    pub dir: PathBuf,
    /// Accept every pending snapshot without asking.
    #[arg(long, conflicts_with = "reject_all")]
    pub accept_all: bool,
    /// Reject (delete) every pending snapshot without asking.
    #[arg(long)]
    pub reject_all: bool,
}

impl ReviewArgs {
    /// Accept all (`true`) or reject all (`false`) in `dir`.
    pub fn all(dir: PathBuf, accept: bool) -> ReviewArgs {
        ReviewArgs {
            dir,
            accept_all: accept,
            reject_all: !accept,
        }
    }
}

/// Records the run's wording in `dir`, prints the account to stderr, and says whether every
/// snapshot matched.
pub fn record(
    dir: &Path,
    cases: &[&Case],
    result: &RunResult,
    suite: &Suite,
    case_file: Option<&Path>,
    whole_suite: bool,
) -> Result<bool, String> {
    let meta = |case: &Case| {
        let mut m = Meta::for_case(&case.id, &case.description);
        if let Some(p) = case_file {
            m.source = p.display().to_string();
        }
        m
    };
    let ids: Vec<&str> = suite.cases.iter().map(|c| c.id.as_str()).collect();
    let run = store::record(
        dir,
        cases,
        &result.outcomes,
        &meta,
        whole_suite.then_some(ids.as_slice()),
    )
    .map_err(|e| format!("snapshots: {e}"))?;
    eprint!("{}", run.render(20));
    Ok(run.ok())
}

enum Choice {
    Accept,
    Reject,
    Skip,
    AcceptRest,
    RejectRest,
    Quit,
}

fn ask(input: &mut dyn std::io::BufRead) -> Choice {
    loop {
        print!("accept (a), reject (r), skip (s), accept all remaining (A), reject all remaining (R), quit (q)? ");
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return Choice::Quit,
            Ok(_) => {}
        }
        match line.trim() {
            "a" | "accept" => return Choice::Accept,
            "r" | "reject" => return Choice::Reject,
            "s" | "skip" | "" => return Choice::Skip,
            "A" => return Choice::AcceptRest,
            "R" => return Choice::RejectRest,
            "q" | "quit" => return Choice::Quit,
            other => println!("unknown answer {other:?}"),
        }
    }
}

/// `review`, `accept`, `reject`: exit 0 when nothing is left pending.
pub fn review(args: &ReviewArgs) -> Result<ExitCode, String> {
    let pending = store::pending(&args.dir).map_err(|e| e.to_string())?;
    if pending.is_empty() {
        println!("no pending snapshots in {}", args.dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut mode: Option<bool> = if args.accept_all {
        Some(true)
    } else if args.reject_all {
        Some(false)
    } else {
        None
    };
    let (mut accepted, mut rejected, mut skipped) = (0usize, 0usize, 0usize);
    let total = pending.len();
    for (i, p) in pending.iter().enumerate() {
        let accept = match mode {
            Some(all) => Some(all),
            None => {
                let (old, new) = p.texts().map_err(|e| e.to_string())?;
                println!("\n── {}/{total}: {} ──", i + 1, p.target.display());
                if let Ok(parsed) = snapshot::parse(&new) {
                    for key in ["source", "description", "expression"] {
                        if let Some(v) = parsed.field(key) {
                            println!("{key}: {v}");
                        }
                    }
                }
                match &old {
                    None => {
                        println!("new snapshot:");
                        let body = snapshot::parse(&new).map(|p| p.body).unwrap_or(new.clone());
                        for line in body.lines() {
                            println!("+{line}");
                        }
                    }
                    Some(old) => print!("{}", snapshot::diff(old, &new, 3, 2000)),
                }
                match ask(&mut input) {
                    Choice::Accept => Some(true),
                    Choice::Reject => Some(false),
                    Choice::Skip => None,
                    Choice::AcceptRest => {
                        mode = Some(true);
                        Some(true)
                    }
                    Choice::RejectRest => {
                        mode = Some(false);
                        Some(false)
                    }
                    Choice::Quit => {
                        skipped += total - i;
                        break;
                    }
                }
            }
        };
        match accept {
            Some(true) => {
                p.accept().map_err(|e| e.to_string())?;
                accepted += 1;
            }
            Some(false) => {
                p.reject().map_err(|e| e.to_string())?;
                rejected += 1;
            }
            None => skipped += 1,
        }
    }
    println!(
        "\n{accepted} accepted, {rejected} rejected, {skipped} skipped (still pending) in {}",
        args.dir.display()
    );
    Ok(if skipped == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
