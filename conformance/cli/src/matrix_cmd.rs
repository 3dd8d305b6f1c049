//! `matrix`: several harnesses side by side, as a static site and a Markdown grid.
//!
//! The columns are runs made here (`--harness NAME=COMMAND`) and saved JSON reports made
//! elsewhere (`--from DIR`: each harness's own CI runs the gate and publishes its report; one
//! job combines them). Reports of different suite versions are not comparable, so mixing them
//! is refused unless `--allow-mixed-versions` says otherwise. The matrix is a gate too: it
//! exits 1 when any harness failed against its baseline.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
    /// named after its file.
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
    /// The directory to write the site to (index.html, harness/*.html, badges/*.json).
    #[arg(long, value_name = "DIR", default_value = "matrix-site")]
    site: PathBuf,
}

/// The most columns named in one message (the rest are counted).
const MAX_NAMED: usize = 20;

pub fn run(args: MatrixArgs) -> Result<ExitCode, String> {
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
        let result = runner::run(&cases, &factory, &cfg, &|_, _, _| {});
        columns.push(matrix::Column {
            name: name.to_owned(),
            target,
            reproduce,
            suite: harness_conformance_suite::SUITE_VERSION.to_owned(),
            result,
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
    let pages = site::render(&columns, &suite.requirements, &versions.join(", "));
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

/// The walk of a `--from` directory: its own files only (subdirectories skipped), at most
/// 4096 entries, each report at most `saved::MAX_REPORT_BYTES`, 256 MiB in all.
const FROM_WALK: WalkLimits = WalkLimits {
    max_entries: 4096,
    max_depth: 0,
    subdirectories: false,
    max_bytes: 256 * 1024 * 1024,
    max_file_bytes: saved::MAX_REPORT_BYTES,
};

/// A column per `*.json` report in `dir`, in file-name order. The directory is hostile input:
/// no link is followed, the walk is bounded ([`FROM_WALK`]), and more than [`MAX_COLUMNS`]
/// reports is an error before any is read.
fn saved_columns(dir: &Path) -> Result<Vec<matrix::Column>, String> {
    let paths: Vec<PathBuf> = files::walk(dir, "json", FROM_WALK, "saved reports")
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|f| f.path)
        .collect();
    if paths.len() > MAX_COLUMNS {
        return Err(format!(
            "{}: {} saved reports; a matrix has at most {MAX_COLUMNS} columns (docs/runner-guarantees.md)",
            dir.display(),
            paths.len()
        ));
    }
    if paths.is_empty() {
        return Err(format!(
            "{}: no saved reports (*.json from `run --format json`) in this directory",
            dir.display()
        ));
    }
    let mut out = Vec::new();
    for path in paths {
        let saved = crate::report_cmd::read(&path)?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push(matrix::Column {
            name,
            target: saved.target,
            reproduce: saved.reproduce,
            suite: saved.suite,
            result: saved.run,
        });
    }
    Ok(out)
}
