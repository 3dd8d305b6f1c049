//! The binary's side of wording snapshots: recording after a run, and the `review` / `accept` /
//! `reject` commands over pending `.snap.new` files.
//!
//! Kept out of the report crate because it talks to the terminal (an interactive prompt) and decides
//! exit codes; the comparison, file format and file handling are in
//! `harness_conformance_report::snapshot`. `cargo insta review` works on the same files when the
//! snapshot directory is inside a cargo package (docs/wording.md); this command works anywhere,
//! e.g. in a Python harness's repository.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use clap::Args;

use harness_conformance_report::escape;
use harness_conformance_report::snapshot::{self, store, Meta};
use harness_conformance_suite::case::Case;
use harness_conformance_suite::loader::Suite;
use harness_conformance_suite::verdict::CaseOutcome;

use crate::out::{say, tell};

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

/// Records a run's wording in a snapshot directory as each case finishes (so no reply is kept
/// for the end of the run), then prints the account to stderr.
pub struct Recording<'a> {
    recorder: Mutex<Option<store::Recorder>>,
    error: Mutex<Option<String>>,
    cases: HashMap<&'a str, (usize, &'a Case)>,
    case_file: Option<&'a Path>,
}

impl<'a> Recording<'a> {
    /// Starts recording the wording of `cases` in `dir`; no snapshot diff runs past `until`
    /// (the run's `--max-time`).
    pub fn new(
        dir: &Path,
        cases: &[&'a Case],
        case_file: Option<&'a Path>,
        until: Option<std::time::Instant>,
    ) -> Result<Recording<'a>, String> {
        let recorder = store::Recorder::new(dir, until).map_err(|e| format!("snapshots: {e}"))?;
        Ok(Recording {
            recorder: Mutex::new(Some(recorder)),
            error: Mutex::new(None),
            cases: cases
                .iter()
                .enumerate()
                .map(|(i, c)| (c.id.as_str(), (i, *c)))
                .collect(),
            case_file,
        })
    }

    /// Records one finished case (the first error stops the recording; [`Self::finish`]
    /// reports it).
    pub fn record(&self, outcome: &CaseOutcome) {
        let Some(&(position, case)) = self.cases.get(outcome.id.as_str()) else {
            return;
        };
        let mut meta = Meta::for_case(&case.id, &case.description);
        if let Some(p) = self.case_file {
            meta.source = p.display().to_string();
        }
        let mut recorder = self.recorder.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = recorder.as_mut() {
            if let Err(e) = r.record(position, case, outcome, &meta) {
                *recorder = None;
                *self.error.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some(format!("snapshots: {e}"));
            }
        }
    }

    /// Finishes the recording, prints the account to stderr, and says whether every snapshot
    /// matched.
    pub fn finish(self, suite: &Suite, whole_suite: bool) -> Result<bool, String> {
        if let Some(e) = self.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return Err(e);
        }
        let Some(recorder) = self
            .recorder
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
        else {
            return Err("snapshots: the recording stopped".into());
        };
        let ids: Vec<&str> = suite.cases.iter().map(|c| c.id.as_str()).collect();
        let run = recorder
            .finish(whole_suite.then_some(ids.as_slice()))
            .map_err(|e| format!("snapshots: {e}"))?;
        tell!("{}", run.render(20).trim_end_matches('\n'));
        Ok(run.ok())
    }
}

enum Choice {
    Accept,
    Reject,
    Skip,
    AcceptRest,
    RejectRest,
    Quit,
}

const PROMPT: &str =
    "accept (a), reject (r), skip (s), accept all remaining (A), reject all remaining (R), quit (q)? ";

/// The answer to one snapshot: a single key on a terminal (no Enter), a line otherwise (so a
/// script can pipe answers in).
fn ask(input: &mut dyn std::io::BufRead) -> Choice {
    use std::io::IsTerminal as _;
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        return ask_key();
    }
    loop {
        if crate::out::stdout(PROMPT).is_err() {
            return Choice::Quit;
        }
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
            other => {
                if say!("unknown answer {}", escape::one_line(other, 80)).is_err() {
                    return Choice::Quit;
                }
            }
        }
    }
}

/// `ask` on a terminal: one key press, echoed as the word it stands for.
fn ask_key() -> Choice {
    let term = console::Term::stdout();
    let prompt = if crate::style::stdout_enabled() {
        console::style(PROMPT).bold().to_string()
    } else {
        PROMPT.to_owned()
    };
    if term.write_str(&prompt).is_err() {
        return Choice::Quit;
    }
    loop {
        let key = match term.read_char() {
            Ok(c) => c,
            Err(_) => return Choice::Quit,
        };
        let (choice, word) = match key {
            'a' => (Choice::Accept, "accept"),
            'r' => (Choice::Reject, "reject"),
            's' | '\n' | '\r' => (Choice::Skip, "skip"),
            'A' => (Choice::AcceptRest, "accept all remaining"),
            'R' => (Choice::RejectRest, "reject all remaining"),
            'q' | '\u{3}' | '\u{4}' => (Choice::Quit, "quit"),
            _ => continue,
        };
        let _ = term.write_line(word);
        return choice;
    }
}

/// `review`, `accept`, `reject`: exit 0 when nothing is left pending.
pub fn review(args: &ReviewArgs) -> Result<ExitCode, String> {
    let pending = store::pending(&args.dir).map_err(|e| e.to_string())?;
    if pending.is_empty() {
        say!(
            "no pending snapshots in {}",
            escape::terminal(&args.dir.display().to_string())
        )?;
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
                // Snapshot files may come from a pull request: what is shown of them goes
                // through the terminal escaping like every other untrusted text.
                let mut shown = format!("\n── {}/{total}: {} ──\n", i + 1, p.target.display());
                if let Ok(parsed) = snapshot::parse(&new) {
                    for key in ["source", "description", "expression"] {
                        if let Some(v) = parsed.field(key) {
                            shown.push_str(&format!("{key}: {v}\n"));
                        }
                    }
                }
                match &old {
                    None => {
                        shown.push_str("new snapshot:\n");
                        let body = snapshot::parse(&new).map(|p| p.body).unwrap_or(new.clone());
                        for line in body.lines() {
                            shown.push_str(&format!("+{line}\n"));
                        }
                    }
                    Some(old) => shown.push_str(&snapshot::diff(old, &new, 3, 2000)),
                }
                let shown = escape::terminal(&shown);
                if crate::style::stdout_enabled() {
                    crate::out::stdout(&harness_conformance_report::terminal_style::paint_diff(
                        &shown,
                    ))?;
                } else {
                    crate::out::stdout(&shown)?;
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
    say!(
        "\n{accepted} accepted, {rejected} rejected, {skipped} skipped (still pending) in {}",
        escape::terminal(&args.dir.display().to_string())
    )?;
    Ok(if skipped == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
