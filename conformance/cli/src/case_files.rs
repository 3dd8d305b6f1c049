//! Case files from disk: `run --case-file FILE`, or a directory of them (`--cases DIR`,
//! `--case-file DIR`), so a harness keeps the findings `fuzz` wrote as a regression folder.
//!
//! Every file is decoded and checked against the suite's requirements as the embedded cases
//! are; a directory is read recursively, in path order, and two files with one case id are
//! refused (the reproducers select cases by id).
//!
//! A case directory may come from a pull request, so it is walked like every other hostile
//! input (`files::walk`): no symbolic link is followed (a link to `.` made the old walk loop
//! until memory ran out, and a link to `../outside` ran a case from outside the directory), and
//! the walk stops with an error past [`CASE_WALK`]'s bounds on entries, depth and bytes. Ids are
//! checked for duplicates in a hash map, so 10,000 files cost 10,000 lookups, not 50 million
//! comparisons.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use harness_conformance_report::files::{self, WalkLimits};
use harness_conformance_suite::case::Case;
use harness_conformance_suite::loader::{self, Suite};
use harness_conformance_suite::select;

use crate::FilterArgs;

/// The bounds of one walk of a case directory: 10,000 entries (the embedded suite is about 600
/// files), 16 directories deep, [`MAX_CASE_FILE_BYTES`] per file and 256 MiB in all.
pub const CASE_WALK: WalkLimits = WalkLimits {
    max_entries: 10_000,
    max_depth: 16,
    subdirectories: true,
    max_bytes: 256 * 1024 * 1024,
    max_file_bytes: MAX_CASE_FILE_BYTES,
};

/// The largest case file read: the corpus's largest is about 120 KB.
pub const MAX_CASE_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The cases at `path`: one file, or every `*.json` file under a directory.
pub fn load(path: &Path, suite: &Suite) -> Result<Vec<Case>, String> {
    let files = if path.is_dir() {
        let files: Vec<PathBuf> = files::walk(path, "json", CASE_WALK, "case files")
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|f| f.path)
            .collect();
        if files.is_empty() {
            return Err(format!(
                "{}: no case files (*.json) in this directory",
                path.display()
            ));
        }
        files
    } else {
        vec![path.to_owned()]
    };
    let known = suite.requirements.iter().map(|r| r.id.as_str()).collect();
    let mut cases: Vec<Case> = Vec::new();
    let mut first_file: HashMap<String, PathBuf> = HashMap::new();
    for file in files {
        let text = files::read_bounded(&file, MAX_CASE_FILE_BYTES, "the case file")
            .map_err(|e| e.to_string())?;
        let case = loader::decode_case(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        let problems = loader::consistency(&case, &known);
        if !problems.is_empty() {
            return Err(format!("{}: {}", file.display(), problems.join("; ")));
        }
        if let Some(other) = first_file.get(&case.id) {
            return Err(format!(
                "{}: case id {:?} is also the id of {}; give each case file its own id",
                file.display(),
                case.id,
                other.display()
            ));
        }
        first_file.insert(case.id.clone(), file);
        cases.push(case);
    }
    Ok(cases)
}

/// The cases the --run/--skip filters select.
pub fn selected<'a>(cases: &'a [Case], f: &FilterArgs) -> Vec<&'a Case> {
    let run = select::patterns(&f.run);
    let skip = select::patterns(&f.skip);
    cases
        .iter()
        .filter(|c| select::selected(&c.id, &run, &skip))
        .collect()
}
