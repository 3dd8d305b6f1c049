//! `report`: render a saved JSON report in any format (run once, render many).
//!
//! A harness's CI runs the suite once with `--format json` and renders the terminal, JUnit,
//! Markdown and HTML views from that file; what `report` prints is exactly what `run` would
//! have printed for the same run (`tests/report.rs` compares them for every format).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use harness_conformance_report::{self as report, saved, site, terminal};

/// The formats `report` renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// The closing summary `run` prints.
    Terminal,
    /// The JSON lines themselves, as written again by this version.
    Json,
    /// JUnit XML for CI test views.
    Junit,
    /// Markdown for a CI step summary.
    Markdown,
    /// The harness's page of the matrix site, on its own.
    Html,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A JSON-lines report written by `run --format json`.
    file: PathBuf,
    /// The format to render.
    #[arg(long, value_enum, default_value = "terminal")]
    format: ReportFormat,
    /// Write it here instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Exit 1 when the saved run failed its gate (by default `report` exits 0 once it rendered).
    #[arg(long)]
    gate: bool,
}

/// Reads and checks a saved report.
pub fn read(path: &std::path::Path) -> Result<saved::Saved, String> {
    let text = harness_conformance_report::files::read_bounded(
        path,
        saved::MAX_REPORT_BYTES,
        "the saved report",
    )
    .map_err(|e| e.to_string())?;
    saved::parse(&text).map_err(|e| format!("{}: {e} [{}]", path.display(), e.kind.code()))
}

pub fn run(args: &ReportArgs) -> Result<ExitCode, String> {
    let suite = crate::load_suite()?;
    let saved = read(&args.file)?;
    if saved.suite != harness_conformance_suite::SUITE_VERSION {
        // The renderers describe the suite they are built with (its requirement titles and
        // version); rendering another version's run with them would misstate it.
        return Err(format!(
            "{}: the report was made by suite {}, this is harness-conformance {}: render it with the version that made it (`matrix --from` combines versions with --allow-mixed-versions)",
            args.file.display(),
            site::bounded(&saved.suite, 40),
            harness_conformance_suite::SUITE_VERSION
        ));
    }
    let r = saved.report(&suite.requirements);
    let text = match args.format {
        ReportFormat::Terminal => terminal::render(&r),
        ReportFormat::Json => report::json::render_dated(&r, saved.date.as_deref()),
        ReportFormat::Junit => report::junit::render(&r),
        ReportFormat::Markdown => report::markdown::render(&r),
        ReportFormat::Html => {
            site::standalone(&r, &saved.target, &saved.suite, saved.date.as_deref())
        }
    };
    match (&args.output, args.format) {
        (None, ReportFormat::Terminal) => crate::style::stdout_report(&text)?,
        _ => crate::emit(&args.output, &text)?,
    }
    Ok(if args.gate && saved.run.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
