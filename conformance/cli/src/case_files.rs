//! Case files from disk: `run --case-file FILE`, or a directory of them (`--cases DIR`,
//! `--case-file DIR`), so a harness keeps the findings `fuzz` wrote as a regression folder.
//!
//! Every file is decoded and checked against the suite's requirements as the embedded cases
//! are; a directory is read recursively, in path order, and two files with one case id are
//! refused (the reproducers select cases by id).

use std::path::{Path, PathBuf};

use harness_conformance_report::files;
use harness_conformance_suite::case::Case;
use harness_conformance_suite::loader::{self, Suite};
use harness_conformance_suite::select;

use crate::FilterArgs;

/// The cases at `path`: one file, or every `*.json` file under a directory.
pub fn load(path: &Path, suite: &Suite) -> Result<Vec<Case>, String> {
    let files = if path.is_dir() {
        let mut files = Vec::new();
        walk(path, &mut files)?;
        files.sort();
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
    let mut cases: Vec<(PathBuf, Case)> = Vec::new();
    for file in files {
        let text = files::read_to_string(&file).map_err(|e| e.to_string())?;
        let case = loader::decode_case(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        let problems = loader::consistency(&case, &known);
        if !problems.is_empty() {
            return Err(format!("{}: {}", file.display(), problems.join("; ")));
        }
        if let Some((other, _)) = cases.iter().find(|(_, c)| c.id == case.id) {
            return Err(format!(
                "{}: case id {:?} is also the id of {}; give each case file its own id",
                file.display(),
                case.id,
                other.display()
            ));
        }
        cases.push((file, case));
    }
    Ok(cases.into_iter().map(|(_, c)| c).collect())
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|x| x == "json") {
            out.push(path);
        }
    }
    Ok(())
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
