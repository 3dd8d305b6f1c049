//! Snapshot files on disk: recording a run's wording, and the pending `.snap.new` files a review
//! accepts or rejects.
//!
//! This is the one part of [`crate::snapshot`] that does file I/O (the rest is pure). It follows
//! insta's conventions so `cargo insta review` and the built-in `review` see the same thing: a
//! snapshot that matches leaves the directory untouched (and removes a stale `.snap.new`); one
//! that differs, or is new, is written as `<name>.snap.new` beside `<name>.snap` and fails the
//! run; accepting renames the `.snap.new` over the `.snap`; rejecting deletes it.
//!
//! The directory may come from a pull request, so no file in it is opened through a symlink
//! ([`crate::files`]): a `.snap` that is a link is an error, not a read of wherever it points,
//! and a `.snap.new` is always written as a new file of its own. Recording streams
//! ([`Recorder`]): each case's snapshot is compared and written as the case finishes, so a run
//! never keeps the harness's replies for the end.
//!
//! What one run costs the directory is bounded: each `.snap.new` is at most one body
//! ([`super::MAX_BODY_BYTES`]) and a header, a stored `.snap` is read up to
//! [`super::MAX_STORED_BYTES`], each diff stops at its deadline ([`super::MAX_DIFF_TIME`], or the
//! run's own end when that comes first), and a run writes at most [`MAX_RUN_NEW_BYTES`] of
//! `.snap.new` in all: a difference past that is counted and reported, not written, and fails
//! the run like any other.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use std::time::Instant;

use super::{
    diff_until, file_name, render_body, render_file, same, Meta, EXT, MAX_DIFF_TIME,
    MAX_STORED_BYTES, NEW_EXT, PREFIX,
};
use crate::files;
use harness_conformance_suite::case::Case;
use harness_conformance_suite::verdict::CaseOutcome;

/// How a case's snapshot compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Stored and equal.
    Matched,
    /// Stored and different: `.snap.new` written.
    Changed,
    /// Not stored yet: `.snap.new` written.
    New,
    /// Changed or new, but not written: the run had written [`MAX_RUN_NEW_BYTES`] of
    /// `.snap.new` already.
    Unwritten,
}

/// The most bytes of `.snap.new` one run writes. The reference's whole suite is about 4 MiB of
/// snapshots; a harness whose every message changed writes about that much. Past this bound a
/// difference is reported, not written (an adapter answering every case with megabytes of
/// distinct text wrote 2.5 GiB before).
pub const MAX_RUN_NEW_BYTES: u64 = 64 * 1024 * 1024;

/// The most entries of a snapshot directory looked at when it is listed (orphans, pending
/// `.snap.new`): the suite has about 600 cases, so a directory of more is not a snapshot
/// directory; past it the listing is an error.
pub const MAX_DIR_ENTRIES: usize = 100_000;

/// The most orphaned snapshots named in the account (the rest are counted).
pub const MAX_ORPHANS_SHOWN: usize = 20;

/// `dir`'s entries, at most [`MAX_DIR_ENTRIES`] of them (past that, an error naming the bound).
fn entries(dir: &Path) -> io::Result<Vec<std::fs::DirEntry>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| io_context(e, dir))? {
        if out.len() == MAX_DIR_ENTRIES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: holds more than {MAX_DIR_ENTRIES} entries; a snapshot directory is listed no further (docs/runner-guarantees.md)",
                    dir.display()
                ),
            ));
        }
        out.push(entry?);
    }
    Ok(out)
}

/// One case's snapshot in a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The case.
    pub case_id: String,
    /// The stored snapshot's path (`<dir>/conformance__<area>__<name>.snap`).
    pub path: PathBuf,
    /// How it compared.
    pub status: Status,
    /// For a changed snapshot, the diff (stored → new), bounded.
    pub diff: Option<String>,
}

/// What `run --snapshots` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnapshotRun {
    /// The directory.
    pub dir: PathBuf,
    /// One entry per case that returned results, in case order.
    pub recorded: Vec<Recorded>,
    /// Cases with nothing to record (skipped, adapter errors): id and verdict.
    pub not_recorded: Vec<(String, String)>,
    /// Stored snapshots whose case is not in the suite (only looked for on whole-suite runs).
    pub orphans: Vec<PathBuf>,
}

impl SnapshotRun {
    /// How many snapshots have this status.
    pub fn count(&self, s: Status) -> usize {
        self.recorded.iter().filter(|r| r.status == s).count()
    }

    /// Whether every recorded snapshot matched (a new snapshot is a difference too, as in insta).
    pub fn ok(&self) -> bool {
        self.recorded.iter().all(|r| r.status == Status::Matched)
    }

    /// The account printed after the report: totals, each difference with its diff, the next step.
    pub fn render(&self, max_diffs: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "\n── wording snapshots ({}) ──", self.dir.display());
        let _ = writeln!(
            out,
            "{} matched, {} changed, {} new, {} not recorded (skipped, or no reply from the adapter)",
            self.count(Status::Matched),
            self.count(Status::Changed),
            self.count(Status::New),
            self.not_recorded.len()
        );
        let unwritten = self.count(Status::Unwritten);
        if unwritten > 0 {
            let _ = writeln!(
                out,
                "{unwritten} difference(s) not written: the run wrote its limit of {MAX_RUN_NEW_BYTES} bytes of .{NEW_EXT} files (docs/runner-guarantees.md)"
            );
        }
        let differing: Vec<&Recorded> = self
            .recorded
            .iter()
            .filter(|r| r.status != Status::Matched)
            .collect();
        for r in differing.iter().take(max_diffs) {
            match r.status {
                Status::New => {
                    let _ = writeln!(out, "\nnew      {}", r.path.display());
                }
                Status::Unwritten => {
                    let _ = writeln!(out, "\nunwritten {}", r.path.display());
                }
                _ => {
                    let _ = writeln!(out, "\nchanged  {}", r.path.display());
                    if let Some(d) = &r.diff {
                        for line in d.lines() {
                            let _ = writeln!(out, "  {line}");
                        }
                    }
                }
            }
        }
        if differing.len() > max_diffs {
            let _ = writeln!(
                out,
                "\n… and {} more difference(s)",
                differing.len() - max_diffs
            );
        }
        for o in self.orphans.iter().take(MAX_ORPHANS_SHOWN) {
            let _ = writeln!(
                out,
                "warning: {} belongs to no case of this suite (delete it if the case was removed)",
                o.display()
            );
        }
        if self.orphans.len() > MAX_ORPHANS_SHOWN {
            let _ = writeln!(
                out,
                "warning: … and {} more snapshot(s) that belong to no case",
                self.orphans.len() - MAX_ORPHANS_SHOWN
            );
        }
        if !differing.is_empty() {
            let _ = writeln!(
                out,
                "\nsnapshots: FAILED — {} difference(s) written as .{NEW_EXT} beside the stored ones.\n\
                 Review them: harness-conformance review {}   (a = accept, r = reject, s = skip)\n\
                 or, when the directory is inside a cargo package: cargo insta review --manifest-path <its Cargo.toml>",
                differing.len(),
                crate::shell_quote(&self.dir.display().to_string())
            );
        } else {
            let _ = writeln!(out, "snapshots: ok");
        }
        out
    }
}

fn new_path_of(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".new");
    PathBuf::from(s)
}

/// Compares `rendered` (a whole `.snap` file) with what `path` holds; writes or removes the
/// `.snap.new` accordingly. The stored file is read up to [`MAX_STORED_BYTES`]; the diff stops
/// at `deadline`. With `write` false a difference is not written ([`Status::Unwritten`]).
pub fn compare_and_write(
    path: &Path,
    rendered: &str,
    deadline: Instant,
    write: bool,
) -> io::Result<(Status, Option<String>)> {
    let new_path = new_path_of(path);
    let stored = match files::read_bounded(path, MAX_STORED_BYTES, "the stored snapshot") {
        Ok(s) => Some(Ok(s)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) if e.kind() == io::ErrorKind::InvalidData => Some(Err(e.to_string())),
        Err(e) => return Err(e),
    };
    let status = match &stored {
        Some(Ok(old)) if same(old, rendered) => {
            match std::fs::remove_file(&new_path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_context(e, &new_path)),
            }
            return Ok((Status::Matched, None));
        }
        Some(_) => Status::Changed,
        None => Status::New,
    };
    if !write {
        return Ok((Status::Unwritten, None));
    }
    files::replace(&new_path, rendered.as_bytes())?;
    let diff = match stored {
        Some(Ok(old)) => Some(diff_until(&old, rendered, 2, 60, deadline)),
        // Larger than anything this module writes: it differs, and is not diffed.
        Some(Err(why)) => Some(format!("  ({why}: not compared line by line)\n")),
        None => None,
    };
    Ok((status, diff))
}

fn io_context(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Records a run's wording in a directory one case at a time, as each case finishes.
#[derive(Debug)]
pub struct Recorder {
    run: SnapshotRun,
    /// Each recorded case's position in the run's case order.
    order: Vec<usize>,
    /// Bytes of `.snap.new` written so far.
    written: u64,
    /// The run's end (`--max-time`), which no diff outlasts.
    until: Option<Instant>,
    /// The most bytes of `.snap.new` this recording writes.
    budget: u64,
}

impl Recorder {
    /// Starts recording in `dir` (created if missing). No diff runs past `until`.
    pub fn new(dir: &Path, until: Option<Instant>) -> io::Result<Recorder> {
        std::fs::create_dir_all(dir).map_err(|e| io_context(e, dir))?;
        Ok(Recorder {
            run: SnapshotRun {
                dir: dir.to_path_buf(),
                ..SnapshotRun::default()
            },
            order: Vec::new(),
            written: 0,
            until,
            budget: MAX_RUN_NEW_BYTES,
        })
    }

    /// The same recorder with a smaller budget of `.snap.new` bytes (for tests; runs use
    /// [`MAX_RUN_NEW_BYTES`]).
    pub fn with_budget(mut self, bytes: u64) -> Recorder {
        self.budget = bytes.min(MAX_RUN_NEW_BYTES);
        self
    }

    /// Compares (and writes, when it differs) the snapshot of one finished case; `position` is
    /// the case's place in the run, so the account lists cases in order whatever order they
    /// finished in.
    pub fn record(
        &mut self,
        position: usize,
        case: &Case,
        outcome: &CaseOutcome,
        meta: &Meta,
    ) -> io::Result<()> {
        let Some(results) = &outcome.results else {
            self.run
                .not_recorded
                .push((case.id.clone(), outcome.verdict.to_string()));
            return Ok(());
        };
        let ids: Vec<Option<&str>> = case.calls.iter().map(|c| c.id()).collect();
        let body = render_body(&ids, results);
        let rendered = render_file(meta, &body);
        let path = self.run.dir.join(file_name(&case.id));
        let mut deadline = Instant::now() + MAX_DIFF_TIME;
        if let Some(until) = self.until {
            deadline = deadline.min(until);
        }
        let room = self.written + rendered.len() as u64 <= self.budget;
        let (status, diff) = compare_and_write(&path, &rendered, deadline, room)?;
        if matches!(status, Status::Changed | Status::New) {
            self.written += rendered.len() as u64;
        }
        let at = self.order.partition_point(|&p| p <= position);
        self.order.insert(at, position);
        self.run.recorded.insert(
            at,
            Recorded {
                case_id: case.id.clone(),
                path,
                status,
                diff,
            },
        );
        Ok(())
    }

    /// Finishes: `suite_ids`, when the whole suite ran, lets stored snapshots of removed cases
    /// be reported as orphans.
    pub fn finish(mut self, suite_ids: Option<&[&str]>) -> io::Result<SnapshotRun> {
        let dir = self.run.dir.clone();
        if let Some(ids) = suite_ids {
            let known: BTreeSet<String> = ids.iter().map(|id| file_name(id)).collect();
            for entry in entries(&dir)? {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with(&format!("{PREFIX}__"))
                    && name.ends_with(&format!(".{EXT}"))
                    && !known.contains(&name)
                {
                    self.run.orphans.push(entry.path());
                }
            }
            self.run.orphans.sort();
        }
        Ok(self.run)
    }
}

/// Records the wording of a whole run in `dir` at once (outcomes kept with their results):
/// `outcomes` are matched to `cases` by id; `meta` gives each case's header; `suite_ids`, when
/// the whole suite ran, lets stored snapshots of removed cases be reported as orphans.
pub fn record(
    dir: &Path,
    cases: &[&Case],
    outcomes: &[CaseOutcome],
    meta: &dyn Fn(&Case) -> Meta,
    suite_ids: Option<&[&str]>,
) -> io::Result<SnapshotRun> {
    let mut recorder = Recorder::new(dir, None)?;
    for (position, case) in cases.iter().enumerate() {
        if let Some(outcome) = outcomes.iter().find(|o| o.id == case.id) {
            recorder.record(position, case, outcome, &meta(case))?;
        }
    }
    recorder.finish(suite_ids)
}

/// A `.snap.new` waiting for review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The `.snap.new` file.
    pub new_path: PathBuf,
    /// The `.snap` it would replace (may not exist yet).
    pub target: PathBuf,
}

impl Pending {
    /// The stored text (None for a new snapshot) and the proposed text.
    pub fn texts(&self) -> io::Result<(Option<String>, String)> {
        let new = files::read_bounded(&self.new_path, MAX_STORED_BYTES, "the snapshot")?;
        let old = match files::read_bounded(&self.target, MAX_STORED_BYTES, "the stored snapshot") {
            Ok(s) => Some(s),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        Ok((old, new))
    }

    /// Makes the new snapshot the stored one.
    pub fn accept(&self) -> io::Result<()> {
        std::fs::rename(&self.new_path, &self.target).map_err(|e| io_context(e, &self.new_path))
    }

    /// Throws the new snapshot away.
    pub fn reject(&self) -> io::Result<()> {
        std::fs::remove_file(&self.new_path).map_err(|e| io_context(e, &self.new_path))
    }
}

/// Every `*.snap.new` directly in `dir`, by name.
pub fn pending(dir: &Path) -> io::Result<Vec<Pending>> {
    let mut out = Vec::new();
    for entry in entries(dir)? {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(target) = name.strip_suffix(".new") {
            if target.ends_with(&format!(".{EXT}")) && entry.file_type()?.is_file() {
                out.push(Pending {
                    new_path: entry.path(),
                    target: dir.join(target),
                });
            }
        }
    }
    out.sort_by(|a, b| a.new_path.cmp(&b.new_path));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_conformance_protocol::ObservedResult;
    use harness_conformance_suite::verdict::Verdict;

    /// Issue 28, N11: once a run has written its budget of `.snap.new`, a further difference
    /// is counted as unwritten (and fails the run), never written.
    #[test]
    fn a_run_writes_at_most_its_budget_of_snap_new() {
        let dir = std::env::temp_dir().join(format!("hc-store-budget-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut recorder = Recorder::new(&dir, None).unwrap().with_budget(2500);
        for i in 0..3 {
            let case = harness_conformance_suite::loader::decode_case(&format!(
                r#"{{"id": "t/c{i}", "requirements": ["OUT-1"], "description": "d",
                    "tools": [{{"name": "t", "input_schema": {{"type": "object"}}, "behavior": {{"return": {{"text": "ok"}}}}}}],
                    "calls": [{{"id": "toolu_1", "name": "t", "input": {{}}}}],
                    "expect": {{"results": [{{"is_error": false}}]}}}}"#
            ))
            .unwrap();
            let mut outcome = CaseOutcome::new(&case.id, &case.requirements, Verdict::Pass);
            outcome.results = Some(vec![ObservedResult {
                tool_use_id: serde_json::json!("toolu_1"),
                content: "x".repeat(1000),
                ..ObservedResult::default()
            }]);
            let meta = Meta::for_case(&case.id, &case.description);
            recorder.record(i, &case, &outcome, &meta).unwrap();
        }
        let run = recorder.finish(None).unwrap();
        let statuses: Vec<Status> = run.recorded.iter().map(|r| r.status).collect();
        assert_eq!(statuses, [Status::New, Status::New, Status::Unwritten]);
        assert!(!run.ok());
        assert!(!dir.join("conformance__t__c2.snap.new").exists());
        assert!(run.render(20).contains("1 difference(s) not written"));
    }

    #[test]
    fn the_account_names_at_most_twenty_orphans() {
        let run = SnapshotRun {
            orphans: (0..25)
                .map(|i| PathBuf::from(format!("conformance__x__{i}.snap")))
                .collect(),
            ..SnapshotRun::default()
        };
        let text = run.render(20);
        assert_eq!(text.matches("belongs to no case").count(), 20);
        assert!(
            text.contains("… and 5 more snapshot(s) that belong to no case"),
            "{text}"
        );
    }
}
