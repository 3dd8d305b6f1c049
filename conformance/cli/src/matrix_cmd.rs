//! `matrix`: several harnesses side by side, as a static site and a Markdown grid.
//!
//! The columns are runs made here (`--harness NAME=COMMAND`) and saved JSON reports made
//! elsewhere (`--from DIR`: each harness's own CI runs the gate and publishes its report; one
//! job combines them). A report in DIR is a column named after its file; a folder in DIR is one
//! harness's runs (`DIR/NAME/*.json`, e.g. one per version): its newest run is the column and
//! the others are its history. Reports of different suite versions are not comparable, so
//! mixing columns of them is refused unless `--allow-mixed-versions` says otherwise (a history
//! may span versions). The matrix is a gate too: it exits 1 when any harness failed against its
//! baseline.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args;

use harness_conformance_driver::client::{InProcess, ProcessHarness};
use harness_conformance_driver::runner;
use harness_conformance_report::files::{self, WalkLimits};
use harness_conformance_report::{escape, matrix, saved, shell_quote, site, terminal};
use harness_conformance_suite::baseline::Baseline;
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::spec::Level;

use crate::out::tell;
use crate::{ExecArgs, FilterArgs};

#[derive(Args, Debug)]
pub struct MatrixArgs {
    /// `name=command` (repeatable); `name=reference` or `name=` runs the built-in reference.
    #[arg(
        long = "harness",
        value_name = "NAME=COMMAND",
        required_unless_present = "from"
    )]
    harnesses: Vec<String>,
    /// Add every saved JSON report (`*.json`, from `run --format json`) in DIR as a column,
    /// named after its file; a folder DIR/NAME of reports is one column, NAME, whose newest run
    /// is shown and the others are its history.
    #[arg(long, value_name = "DIR")]
    from: Option<PathBuf>,
    /// Combine reports made by different suite versions (refused by default: their cases and
    /// rules may differ, so the columns would not be comparable).
    #[arg(long)]
    allow_mixed_versions: bool,
    #[command(flatten)]
    filter: FilterArgs,
    #[command(flatten)]
    exec: ExecArgs,
    /// Per-harness baselines: `name=FILE` (repeatable).
    #[arg(long = "baseline", value_name = "NAME=FILE")]
    baselines: Vec<String>,
    /// Where to write the Markdown grid.
    #[arg(long, value_name = "FILE", default_value = "matrix.md")]
    markdown: PathBuf,
    /// The directory to write the site to (index.html, harness/*.html, data/*.js, badges/).
    #[arg(long, value_name = "DIR", default_value = "matrix-site")]
    site: PathBuf,
    /// The site's public address (http or https), for the badge snippets on harness pages.
    #[arg(long, value_name = "URL")]
    site_url: Option<String>,
}

/// The most columns named in one message (the rest are counted).
const MAX_NAMED: usize = 20;

/// When a run starts, as reports write it (`2025-06-01T12:00:00Z`): `SOURCE_DATE_EPOCH` (whole
/// seconds since 1970, the reproducible-builds convention) when it is set, so that a report or a
/// site can be made again byte for byte; the clock otherwise.
pub fn run_date() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    saved::format_date(secs)
}

pub fn run(args: MatrixArgs) -> Result<ExitCode, String> {
    if let Some(url) = &args.site_url {
        if site::link(url).is_none() {
            return Err(format!(
                "--site-url {}: not an http or https URL",
                escape::one_line(url, 200)
            ));
        }
    }
    let suite = crate::load_suite()?;
    let cases = crate::selected(&suite, &args.filter);
    let mut columns = Vec::new();
    if let Some(dir) = &args.from {
        columns.extend(saved_columns(dir)?);
    }
    if columns.len() + args.harnesses.len() > MAX_COLUMNS {
        return Err(format!(
            "{} columns; a matrix has at most {MAX_COLUMNS} (docs/runner-guarantees.md)",
            columns.len() + args.harnesses.len()
        ));
    }
    for spec in &args.harnesses {
        let (name, command) = spec
            .split_once('=')
            .ok_or_else(|| format!("--harness {spec:?}: expected NAME=COMMAND"))?;
        let baseline = match args
            .baselines
            .iter()
            .find_map(|b| b.strip_prefix(&format!("{name}=")))
        {
            Some(p) => crate::read_baseline(Path::new(p))?,
            None => Baseline::new(),
        };
        let cfg = crate::run_config(&args.exec, baseline, &suite);
        let opts = crate::process_options(&args.exec);
        let command = command.trim().to_owned();
        let in_process = command.is_empty() || command == "reference";
        let reproduce = if in_process {
            "harness-conformance run --run".to_owned()
        } else {
            format!(
                "harness-conformance run --harness {} --run",
                shell_quote(&command)
            )
        };
        let target = if in_process {
            "the built-in reference harness".to_owned()
        } else {
            format!("adapter `{command}`")
        };
        let factory = move || -> Box<dyn Harness + Send> {
            if in_process {
                Box::new(InProcess::new(None))
            } else {
                Box::new(ProcessHarness::new(&command, opts.clone()))
            }
        };
        tell!("matrix: running {name} …");
        let date = run_date();
        let result = runner::run(&cases, &factory, &cfg, &|_, _, _| {});
        columns.push(matrix::Column {
            name: name.to_owned(),
            target,
            reproduce,
            suite: harness_conformance_suite::SUITE_VERSION.to_owned(),
            date: Some(date),
            result,
            history: Vec::new(),
        });
    }
    for col in &columns {
        let r = &col.result;
        tell!(
            "matrix: {}: {} in {:.1}s{}",
            col.name,
            r.totals(),
            r.elapsed.as_secs_f64(),
            if r.failed() { " — FAILED" } else { "" }
        );
        if let Some(e) = &r.handshake_error {
            tell!(
                "matrix: {}: the handshake failed: {}",
                col.name,
                escape::indented(e, terminal::MAX_HANDSHAKE_CHARS, "  ")
            );
        }
        for level in [Level::Must, Level::Should] {
            tell!("matrix: {}: {}", col.name, r.coverage.summary(level));
        }
    }
    let mut versions: Vec<&str> = columns.iter().map(|c| c.suite.as_str()).collect();
    versions.sort_unstable();
    versions.dedup();
    if versions.len() > 1 && !args.allow_mixed_versions {
        // Names and versions come from files: bounded, one line each (a saved report's
        // version is checked to be a version when it is read).
        let which: Vec<String> = columns
            .iter()
            .take(MAX_NAMED)
            .map(|c| {
                format!(
                    "{} ({})",
                    escape::one_line(&c.name, 60),
                    escape::one_line(&c.suite, saved::MAX_VERSION_CHARS)
                )
            })
            .chain(
                (columns.len() > MAX_NAMED)
                    .then(|| format!("… and {} more", columns.len() - MAX_NAMED)),
            )
            .collect();
        return Err(format!(
            "the reports come from different suite versions: {}; their cases and rules may differ, \
             so the columns are not comparable. Re-run them with one version, or pass \
             --allow-mixed-versions to combine them anyway (each column shows its version)",
            which.join(", ")
        ));
    }
    let grid = matrix::Grid {
        requirements: &suite.requirements,
        columns: &columns,
    };
    // Like every file the runner writes: no symlink followed (files.rs), so a link committed
    // where the Markdown or the site goes cannot redirect the write.
    files::write(&args.markdown, matrix::markdown(&grid).as_bytes()).map_err(|e| e.to_string())?;
    let options = site::Options {
        site_url: args.site_url.clone(),
    };
    let pages = site::render(
        &columns,
        &suite.requirements,
        &versions.join(", "),
        &options,
    );
    // The site directory itself is the caller's choice (it may be a link); below it, nothing is.
    std::fs::create_dir_all(&args.site).map_err(|e| format!("{}: {e}", args.site.display()))?;
    for (path, text) in &pages {
        files::write_under(&args.site, Path::new(path), text.as_bytes())
            .map_err(|e| e.to_string())?;
    }
    tell!(
        "wrote {} and the site {} ({} files; open {})",
        args.markdown.display(),
        args.site.display(),
        pages.len(),
        args.site.join("index.html").display()
    );
    let failed: Vec<&str> = columns
        .iter()
        .filter(|c| c.result.failed())
        .map(|c| c.name.as_str())
        .collect();
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        tell!(
            "matrix: {} failed against their baselines: {}",
            failed.len(),
            failed.join(", ")
        );
        Ok(ExitCode::FAILURE)
    }
}

/// The most columns a matrix has (saved reports and `--harness` runs together): a grid of
/// more harnesses than this is not read by anyone, and each column costs a page and a badge.
pub const MAX_COLUMNS: usize = 256;

/// The walk of a `--from` directory: its own files and one level of folders (a harness's
/// runs), at most 4096 entries, each report at most `saved::MAX_REPORT_BYTES`, 256 MiB in all.
const FROM_WALK: WalkLimits = WalkLimits {
    max_entries: 4096,
    max_depth: 1,
    subdirectories: true,
    max_bytes: 256 * 1024 * 1024,
    max_file_bytes: saved::MAX_REPORT_BYTES,
};

/// The most runs of one harness a history shows (its newest); older ones are left out, and
/// the command says how many.
pub const MAX_HISTORY: usize = 32;

/// A column per `*.json` report in `dir`, in name order, and one per folder of reports (its
/// newest run, with the others as its history). The directory is hostile input: no link is
/// followed, the walk is bounded ([`FROM_WALK`]), and more than [`MAX_COLUMNS`] columns is an
/// error before any report is read.
fn saved_columns(dir: &Path) -> Result<Vec<matrix::Column>, String> {
    let paths: Vec<PathBuf> = files::walk(dir, "json", FROM_WALK, "saved reports")
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|f| f.path)
        .collect();
    // Column name → its reports: a file directly in `dir` is a column of its own; the files
    // of a folder are one column's runs.
    let mut groups: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for path in paths {
        let rel = path.strip_prefix(dir).unwrap_or(&path);
        let mut parts = rel.components();
        let first = parts
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = match parts.next() {
            Some(_) => first,
            None => Path::new(&first)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        groups.entry(name).or_default().push(path);
    }
    let reports: usize = groups.values().map(Vec::len).sum();
    if groups.len() > MAX_COLUMNS {
        return Err(format!(
            "{}: {reports} saved reports; a matrix has at most {MAX_COLUMNS} columns (docs/runner-guarantees.md)",
            dir.display(),
        ));
    }
    if groups.is_empty() {
        return Err(format!(
            "{}: no saved reports (*.json from `run --format json`) in this directory",
            dir.display()
        ));
    }
    let mut out = Vec::new();
    for (name, mut paths) in groups {
        paths.sort();
        let mut runs = Vec::new();
        for path in &paths {
            let saved = crate::report_cmd::read(path)?;
            runs.push(matrix::Column {
                name: name.clone(),
                target: saved.target,
                reproduce: saved.reproduce,
                suite: saved.suite,
                date: saved.date,
                result: saved.run,
                history: Vec::new(),
            });
        }
        // Oldest first: by run date (a report without one counts as oldest), then file name
        // (the sort above, kept by a stable sort).
        runs.sort_by(|a, b| a.date.cmp(&b.date));
        if runs.len() > MAX_HISTORY {
            tell!(
                "matrix: {}: {} runs; the history shows the newest {MAX_HISTORY}",
                escape::one_line(&name, 60),
                runs.len()
            );
            runs.drain(..runs.len() - MAX_HISTORY);
        }
        let mut latest = runs.pop().expect("a group has a report");
        latest.history = runs;
        out.push(latest);
    }
    Ok(out)
}
