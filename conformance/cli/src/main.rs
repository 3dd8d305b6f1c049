//! `harness-conformance`: the command line over the suite's crates.
//!
//! The binary wires the crates together — the suite (`harness-conformance-suite`), the driver
//! (adapter processes, worker threads), the reports and the generator — and does the I/O they
//! leave out (files, the terminal, exit codes); every decision is made in those crates.
//!
//! Exit statuses ([`EXIT_STATUS`], printed by `--help`): 0 the run passed (or the baseline it
//! was asked to write was written); 1 the harness failed cases (or a snapshot differs); 2 the
//! run could not judge: the handshake failed, a usage error, a file that cannot be read or
//! written; 130, 143, 129 interrupted by SIGINT, SIGTERM, SIGHUP (every adapter killed first);
//! 141 stdout or stderr was closed (`| head`). 101 is a panic, a bug: hostile adapters and case
//! files must never cause one (docs/runner-guarantees.md).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use harness_conformance_driver::client::{InProcess, ProcessHarness, ProcessOptions};
use harness_conformance_driver::runner::{self, RunConfig};
use harness_conformance_report::{self as report, escape, files, shell_quote, terminal, Report};
use harness_conformance_suite::baseline::{self, Baseline};
use harness_conformance_suite::case::Case;
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::loader::{self, Suite};
use harness_conformance_suite::needs;
use harness_conformance_suite::run::RunResult;

mod case_files;
mod completions;
mod fuzz;
mod init;
mod limits;
mod matrix_cmd;
mod out;
mod progress;
mod report_cmd;
mod review;
mod spec_cmd;
mod style;

use out::{say, tell};

/// What each exit status means, like pytest's list: a CI script tells "the harness failed
/// cases" (1) from "the run could not judge" (2). Shown by `--help` and `run --help`, and in
/// README.md and docs/install.md.
pub const EXIT_STATUS: &str = "\
Exit status:
  0    the run passed: every case as expected (with --write-baseline, --update or --prune:
       the baseline was written, and nothing is left that it does not account for)
  1    the harness failed cases: a new FAIL, an ERROR, a STALE baseline entry, a NEW SKIP,
       an untestable MUST the baseline does not list, or a wording snapshot that differs
  2    the run could not judge: the handshake failed (the report says why), a usage error,
       or a file that cannot be read or written
  130  interrupted (143 SIGTERM, 129 SIGHUP); every adapter is killed first
  141  stdout or stderr was closed (`| head`)
  101  a bug in the runner (a panic): please report it";

#[derive(Parser, Debug)]
#[command(
    name = "harness-conformance",
    version,
    about = "The conformance suite for how LLM agent harnesses handle tool calls and tool results",
    long_about = "Runs the suite's cases (embedded in this binary) against a harness behind the adapter protocol \
                  (conformance/PROTOCOL.md), or against the built-in reference harness when no --harness is given.",
    after_help = EXIT_STATUS
)]
struct Cli {
    /// Without a subcommand: `run` against the built-in reference harness.
    #[command(subcommand)]
    command: Option<Cmd>,
    /// Colour: `auto` colours a terminal (and honours NO_COLOR, CLICOLOR_FORCE).
    #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN")]
    color: style::ColorWhen,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Run the suite (default target: the built-in reference harness, in-process).
    #[command(after_help = EXIT_STATUS)]
    Run(RunArgs),
    /// Start gating a harness: write an adapter (on the kit for its language, every capability
    /// listed), run it once to write a first baseline, and write the CI job.
    Init(init::InitArgs),
    /// List the cases (id, requirements, description).
    List(FilterArgs),
    /// List every SPEC.md requirement with its level, cases and the checks it owns, and the
    /// places where SPEC.md, the cases and blame disagree (`--check`: only those; exit 1).
    Spec(spec_cmd::SpecArgs),
    /// Print one case file.
    Show {
        /// The case id (`<area>/<fault-name>`).
        case: String,
    },
    /// Write the embedded case files, schemas, providers' rules, SPEC.md and PROTOCOL.md to a directory.
    Copy {
        /// Where to write them; created if missing.
        dir: PathBuf,
    },
    /// Run the suite against the reference harness's deliberately broken variants (each must
    /// be caught by at least one case) and its legitimate ones (each must pass every MUST).
    Selftest(SelftestArgs),
    /// Run the suite against several harnesses (or combine saved reports, `--from DIR`) and
    /// write a static site and a Markdown grid.
    Matrix(matrix_cmd::MatrixArgs),
    /// Render a saved JSON report (`run --format json`) in any format, as the run would have.
    Report(report_cmd::ReportArgs),
    /// Generate cases, check the universal requirements, and shrink any failure to a case file.
    Fuzz(fuzz::FuzzArgs),
    /// Review the wording snapshots a `run --snapshots <DIR>` left as `.snap.new` files:
    /// show each diff and accept, reject or skip it (docs/wording.md).
    Review(review::ReviewArgs),
    /// Accept every pending `.snap.new` in a snapshot directory (`review --accept-all`).
    Accept {
        /// The snapshot directory.
        dir: PathBuf,
    },
    /// Reject (delete) every pending `.snap.new` in a snapshot directory (`review --reject-all`).
    Reject {
        /// The snapshot directory.
        dir: PathBuf,
    },
    /// Print the shell completion script (e.g. `harness-conformance completions bash >
    /// ~/.local/share/bash-completion/completions/harness-conformance`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page, or write one page per command into a directory.
    Man {
        /// Write `harness-conformance*.1` here instead of printing the main page.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Args, Debug, Clone)]
struct FilterArgs {
    /// Only cases whose id matches (glob: `*`, `?`; a bare area selects it). Repeatable,
    /// comma-separated.
    #[arg(long = "run", value_name = "GLOB")]
    run: Vec<String>,
    /// Leave out cases whose id matches. Repeatable, comma-separated.
    #[arg(long = "skip", value_name = "GLOB")]
    skip: Vec<String>,
}

#[derive(Args, Debug, Clone)]
struct ExecArgs {
    /// Parallel workers (one adapter process each), 1 to 64; default: the CPUs available, at
    /// most 4.
    #[arg(long, short = 'j', default_value_t = default_jobs(), value_parser = limits::jobs)]
    jobs: usize,
    /// Per-case timeout: seconds or a duration (`30s`, `1m`, `500ms`), 1 ms to 24 h (the
    /// handler sleeps a case scripts are added to it).
    #[arg(long, default_value = "10", value_parser = limits::timeout)]
    timeout: Duration,
    /// Handshake timeout: seconds or a duration (`60s`, `2m`), 1 ms to 24 h.
    #[arg(long, default_value = "60", value_parser = limits::timeout)]
    start_timeout: Duration,
    /// How many times crashed or hung adapters are restarted in the whole run (all workers
    /// together) before the runner gives up, 0 to 10000.
    #[arg(long, default_value = "8", value_parser = limits::restarts)]
    max_restarts: u32,
    /// The whole run's time limit: seconds or a duration (`90s`, `20m`, `1h`), 1 ms to a week;
    /// a case still running then is cut short, and the cases not started are ERROR with that
    /// reason.
    #[arg(long, value_name = "DURATION", value_parser = limits::run_time)]
    max_time: Option<Duration>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Terminal,
    Json,
    Junit,
    Markdown,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The adapter command, run with `sh -c` in its own process group.
    #[arg(long, value_name = "COMMAND")]
    harness: Option<String>,
    /// Run a case file from disk instead of the embedded suite; a directory runs every
    /// `*.json` case file under it (as --cases does).
    #[arg(long, value_name = "FILE", conflicts_with = "cases")]
    case_file: Option<PathBuf>,
    /// Run every `*.json` case file under DIR (e.g. the findings `fuzz` wrote, kept as a
    /// regression folder); --run/--skip select among them.
    #[arg(long, value_name = "DIR")]
    cases: Option<PathBuf>,
    #[command(flatten)]
    filter: FilterArgs,
    #[command(flatten)]
    exec: ExecArgs,
    /// The known failures (format 2, `--write-baseline` makes one): `{"format": 2, "suite":
    /// "1.1.0", "cases": {"<case id>": {"fails": ["VAL-2"], "reason": "..."}}, "skips":
    /// {"<case id>": "<why>"}, "not_testable": {"OUT-4": {"reason": "..."}}}`. A listed case
    /// failing as listed is XFAIL; a new failure, or a listed one that now passes (STALE),
    /// fails the run.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write a baseline of this run's failures, skips and untestable MUSTs (keeping the
    /// reasons --baseline gives); exits 0 once written.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["update", "prune"])]
    write_baseline: Option<PathBuf>,
    /// Rewrite the --baseline file from this run: new failures added, stale entries removed,
    /// reasons kept (the same as --write-baseline to that file).
    #[arg(long, requires = "baseline", conflicts_with = "prune")]
    update: bool,
    /// Remove the --baseline file's stale entries (cases that pass now, requirements no longer
    /// failing, skips that run, untestable MUSTs now tested) and add nothing: exits 1 while a
    /// new failure is left.
    #[arg(long, requires = "baseline")]
    prune: bool,
    /// Report format.
    #[arg(long, value_enum, default_value = "terminal")]
    format: Format,
    /// Write the report here instead of stdout (progress still goes to stderr).
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// No per-case progress lines.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Record each case's model-visible content as an insta snapshot in DIR, compare it with the
    /// stored one, and fail on a difference (written beside it as `.snap.new` for review).
    #[arg(long, value_name = "DIR")]
    snapshots: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct SelftestArgs {
    #[command(flatten)]
    filter: FilterArgs,
    /// Per-case timeout: seconds or a duration (`30s`, `1m`, `500ms`), 1 ms to 24 h.
    #[arg(long, default_value = "10", value_parser = limits::timeout)]
    timeout: Duration,
    /// Parallelism, 1 to 64: cases that compute run on 4 × this many workers shared by every
    /// variant; cases that wait on a deadline or a cancel run on workers of their own.
    #[arg(long, short = 'j', default_value_t = 2, value_parser = limits::jobs)]
    jobs: usize,
    /// Run only the broken variants (each must be caught) or only the legitimate ones (each
    /// must pass every MUST).
    #[arg(long, value_enum)]
    only: Option<SelftestSide>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SelftestSide {
    Broken,
    Legitimate,
}

/// Most of the suite's wall time is handlers sleeping past deadlines, so a few workers pay off
/// even on a small machine.
fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().clamp(1, 4))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` go to stdout (a closed pipe exits quietly), errors to
            // stderr with status 2.
            let text = e.render().to_string();
            if e.use_stderr() {
                out::stderr(text.trim_end());
            } else {
                let _ = out::stdout(&text);
            }
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    if let Err(e) = out::install_signal_handlers() {
        tell!("harness-conformance: {e}");
    }
    // The runner starts no process but adapters: it adopts their orphans (a double fork's
    // grandchild), so that none outlives its case unseen (docs/runner-guarantees.md). Where
    // that is not possible (not Linux) the group kill and the pipe sweep remain.
    let _ = harness_conformance_driver::groups::adopt_orphans();
    // A panic is a bug; it must still not leave an adapter running.
    let result = std::panic::catch_unwind(|| real_main(cli));
    out::finish();
    match result {
        Ok(Ok(code)) => code,
        Ok(Err(message)) => {
            tell!("harness-conformance: {message}");
            ExitCode::from(2)
        }
        Err(_) => out::exit(out::EXIT_PANIC),
    }
}

fn real_main(cli: Cli) -> Result<ExitCode, String> {
    style::init(cli.color);
    let command = match cli.command {
        Some(c) => c,
        None => Cli::parse_from(["harness-conformance", "run"])
            .command
            .expect("`run` parses"),
    };
    match command {
        Cmd::Run(args) => cmd_run(args),
        Cmd::Init(args) => init::run(&args),
        Cmd::Completions { shell } => completions::completions(shell),
        Cmd::Man { dir } => completions::man(dir.as_deref()),
        Cmd::List(filter) => {
            let suite = load_suite()?;
            for case in selected(&suite, &filter) {
                say!(
                    "{}\t{}\t{}",
                    case.id,
                    case.requirements.join(","),
                    case.description
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Spec(args) => spec_cmd::run(&args, &load_suite()?),
        Cmd::Show { case } => {
            let file = format!("{case}.json");
            let (_, text) = loader::embedded_files()
                .into_iter()
                .find(|(p, _)| *p == file)
                .ok_or_else(|| format!("no case {case:?} (see `harness-conformance list`)"))?;
            out::stdout(text)?;
            if !text.ends_with('\n') {
                say!("")?;
            }
            if let Ok(c) = loader::decode_case(text) {
                let needs = needs::case_needs(&c);
                if !needs.is_empty() {
                    tell!("needs (declared and derived): {}", needs.join(", "));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Copy { dir } => {
            // Into a directory that may already hold links: nothing is written through one.
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            let put = |rel: PathBuf, text: &str| {
                files::write_under(&dir, &rel, text.as_bytes()).map_err(|e| e.to_string())
            };
            let files = loader::embedded_files();
            for (path, text) in &files {
                put(Path::new("cases").join(path), text)?;
            }
            let schemas = loader::schema_files();
            for (path, text) in &schemas {
                put(Path::new("schema").join(path), text)?;
            }
            let providers = harness_conformance_suite::replay::provider_files();
            for (path, text) in &providers {
                put(Path::new("providers").join(path), text)?;
            }
            for (name, text) in [
                ("SPEC.md", loader::SPEC_MD),
                ("PROTOCOL.md", loader::PROTOCOL_MD),
            ] {
                put(PathBuf::from(name), text)?;
            }
            tell!(
                "wrote {} case files, {} schemas, {} providers' rules, SPEC.md and PROTOCOL.md under {}",
                files.len(),
                schemas.len(),
                providers.len(),
                dir.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Selftest(args) => cmd_selftest(args),
        Cmd::Matrix(args) => matrix_cmd::run(args),
        Cmd::Report(args) => report_cmd::run(&args),
        Cmd::Fuzz(args) => fuzz::run(args),
        Cmd::Review(args) => review::review(&args),
        Cmd::Accept { dir } => review::review(&review::ReviewArgs::all(dir, true)),
        Cmd::Reject { dir } => review::review(&review::ReviewArgs::all(dir, false)),
    }
}

fn load_suite() -> Result<Suite, String> {
    loader::load_embedded().map_err(|errors| {
        let mut msg = format!(
            "the embedded suite does not load ({} problem(s)); this is a bug in the suite:",
            errors.len()
        );
        for e in errors {
            msg.push_str(&format!("\n  {e}"));
        }
        msg
    })
}

fn selected<'a>(suite: &'a Suite, f: &FilterArgs) -> Vec<&'a Case> {
    case_files::selected(&suite.cases, f)
}

/// The largest baseline read: a baseline lists at most every case of a run (a few hundred
/// entries, some KiB); one of 200,000 entries is about 7 MB.
const MAX_BASELINE_BYTES: u64 = 64 * 1024 * 1024;

fn read_baseline(path: &Path) -> Result<Baseline, String> {
    let text =
        files::read_bounded(path, MAX_BASELINE_BYTES, "the baseline").map_err(|e| e.to_string())?;
    Baseline::parse(&text, harness_conformance_suite::SUITE_VERSION)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes a file the run produces (a report, a baseline, a matrix), never through a symlink.
fn write_file(path: &Path, text: &str) -> Result<(), String> {
    files::write(path, text.as_bytes()).map_err(|e| e.to_string())
}

/// How many warnings of one kind are printed (the rest are counted).
const MAX_WARNINGS: usize = 20;

fn process_options(exec: &ExecArgs) -> ProcessOptions {
    ProcessOptions {
        start_timeout: exec.start_timeout,
        ..ProcessOptions::with_max_restarts(exec.max_restarts)
    }
}

fn run_config(exec: &ExecArgs, baseline: Baseline, suite: &Suite) -> RunConfig {
    RunConfig {
        jobs: exec.jobs,
        timeout: exec.timeout,
        max_time: exec.max_time,
        baseline,
        requirements: suite.requirements.clone(),
        ..RunConfig::default()
    }
}

fn cmd_run(args: RunArgs) -> Result<ExitCode, String> {
    let suite = load_suite()?;
    let from_disk = args.cases.as_ref().or(args.case_file.as_ref());
    let file_cases = match from_disk {
        Some(path) => case_files::load(path, &suite)?,
        None => Vec::new(),
    };
    let cases: Vec<&Case> = match from_disk {
        Some(_) => case_files::selected(&file_cases, &args.filter),
        None => selected(&suite, &args.filter),
    };
    if cases.is_empty() {
        return Err("no case matches the --run/--skip filters".into());
    }
    let old = match &args.baseline {
        Some(p) => read_baseline(p)?,
        None => Baseline::new(),
    };
    let cfg = run_config(&args.exec, old.clone(), &suite);
    let opts = process_options(&args.exec);
    let command = args.harness.clone();
    let factory = move || -> Box<dyn Harness + Send> {
        match &command {
            Some(c) => Box::new(ProcessHarness::new(c, opts.clone())),
            None => Box::new(InProcess::new(None)),
        }
    };
    let recording = match &args.snapshots {
        Some(dir) => Some(review::Recording::new(
            dir,
            &cases,
            from_disk.map(PathBuf::as_path),
            args.exec
                .max_time
                .and_then(|t| std::time::Instant::now().checked_add(t)),
        )?),
        None => None,
    };
    let shown = progress::Progress::new(cases.len(), args.quiet);
    let progress =
        |done: usize, total: usize, o: &harness_conformance_suite::verdict::CaseOutcome| {
            if let Some(r) = &recording {
                r.record(o);
            }
            shown.case(done, total, o);
        };
    let date = matrix_cmd::run_date();
    let result = runner::run(&cases, &factory, &cfg, &progress);
    shown.finish();

    let mut reproduce = format!("{} run", program());
    if let Some(c) = &args.harness {
        reproduce.push_str(&format!(" --harness {}", shell_quote(c)));
    }
    if let Some(p) = &args.baseline {
        reproduce.push_str(&format!(
            " --baseline {}",
            shell_quote(&p.display().to_string())
        ));
    }
    let reproduce = match from_disk {
        Some(p) if p.is_dir() => format!(
            "{reproduce} --cases {} --run",
            shell_quote(&p.display().to_string())
        ),
        Some(p) => format!(
            "{reproduce} --case-file {} --run",
            shell_quote(&p.display().to_string())
        ),
        None => format!("{reproduce} --run"),
    };
    let target = match &args.harness {
        Some(c) => format!("adapter `{c}`"),
        None => "the built-in reference harness".to_owned(),
    };
    let report = Report {
        run: &result,
        requirements: &suite.requirements,
        target: &target,
        reproduce: &reproduce,
    };
    // The snapshot verdict comes first and decides the result: its account (ending in
    // `snapshots: ok|FAILED`) prints before the report's `result:` line, which counts it.
    // Each snapshot was compared and written as its case finished (the replies are not kept).
    let snapshots_ok = match recording {
        Some(recording) => {
            let whole_suite =
                from_disk.is_none() && args.filter.run.is_empty() && args.filter.skip.is_empty();
            Some(recording.finish(&suite, whole_suite)?)
        }
        None => None,
    };
    let terminal_text = || {
        let text = terminal::render(&report);
        match snapshots_ok {
            Some(ok) => report::snapshot::decide_result(&text, ok),
            None => text,
        }
    };
    let text = match args.format {
        Format::Terminal => terminal_text(),
        Format::Json => report::json::render_dated(&report, Some(&date)),
        Format::Junit => report::junit::render(&report),
        Format::Markdown => report::markdown::render(&report),
    };
    match (&args.output, args.format) {
        (None, Format::Terminal) => style::stdout_report(&text)?,
        _ => emit(&args.output, &text)?,
    }
    if args.format != Format::Terminal && args.output.is_some() {
        style::stderr_line(terminal_text().trim_end_matches('\n'));
    }
    let written = match baseline_to_write(&args) {
        Some((path, prune)) => {
            if let Some(e) = &result.handshake_error {
                return Err(format!(
                    "the handshake failed, so there is no run to write a baseline from; {} is left as it was: {}",
                    path.display(),
                    escape::one_line(e, escape::MAX_PRINTED_CHARS)
                ));
            }
            write_baseline(path, prune, &result, &old, &suite)?
        }
        None => false,
    };
    if from_disk.is_none() {
        let ids: std::collections::BTreeSet<&str> =
            suite.cases.iter().map(|c| c.id.as_str()).collect();
        let unknown = old.unknown_cases(&ids);
        for stale in unknown.iter().take(MAX_WARNINGS) {
            tell!(
                "warning: the baseline lists {}, which is not a case of this suite",
                escape::one_line(&format!("{stale:?}"), escape::MAX_NAME_CHARS)
            );
        }
        if unknown.len() > MAX_WARNINGS {
            tell!(
                "warning: … and {} more baseline entries that are not cases of this suite",
                unknown.len() - MAX_WARNINGS
            );
        }
    }
    if snapshots_ok == Some(false) {
        return Ok(ExitCode::FAILURE);
    }
    if written {
        return Ok(ExitCode::SUCCESS);
    }
    Ok(exit_for(&result))
}

/// The baseline file this run is asked to write, and whether only to prune it.
fn baseline_to_write(args: &RunArgs) -> Option<(&Path, bool)> {
    match (&args.write_baseline, &args.baseline) {
        (Some(path), _) => Some((path, false)),
        (None, Some(path)) if args.update || args.prune => Some((path, args.prune)),
        _ => None,
    }
}

/// Writes the baseline `--write-baseline`, `--update` or `--prune` asked for. `true` when the
/// written file accounts for the whole run (the exit is then 0); a prune that leaves a new
/// failure returns `false`, so the run fails on it.
fn write_baseline(
    path: &Path,
    prune: bool,
    result: &RunResult,
    old: &Baseline,
    suite: &Suite,
) -> Result<bool, String> {
    use harness_conformance_suite::verdict::Verdict;
    if prune {
        // The suite's cases and the run's own (a --cases folder holds cases the suite lacks).
        let ids: std::collections::BTreeSet<&str> = suite
            .cases
            .iter()
            .map(|c| c.id.as_str())
            .chain(result.outcomes.iter().map(|o| o.id.as_str()))
            .collect();
        let pruned = baseline::prune(
            old,
            &result.outcomes,
            &result.coverage.stale_not_testable,
            &ids,
        );
        for change in pruned.changes.iter().take(MAX_WARNINGS) {
            tell!(
                "  pruned {}",
                escape::one_line(change, escape::MAX_PRINTED_CHARS)
            );
        }
        if pruned.changes.len() > MAX_WARNINGS {
            tell!("  … and {} more", pruned.changes.len() - MAX_WARNINGS);
        }
        write_file(path, &escape::json(&pruned.baseline.to_json()))?;
        let left = result
            .outcomes
            .iter()
            .filter(|o| o.verdict.is_unexpected() && o.verdict != Verdict::Stale)
            .count()
            + result
                .coverage
                .requirements
                .iter()
                .filter(|r| r.fails_run())
                .count();
        tell!(
            "pruned {} stale entr{} from {}{}",
            pruned.changes.len(),
            if pruned.changes.len() == 1 {
                "y"
            } else {
                "ies"
            },
            path.display(),
            if left > 0 {
                format!("; {left} new failure(s) are left, which pruning never adds: fix them, or accept them with --update")
            } else {
                String::new()
            }
        );
        return Ok(left == 0);
    }
    let untestable = result
        .coverage
        .not_testable(harness_conformance_suite::spec::Level::Must);
    let b = baseline::from_run(
        &result.outcomes,
        &untestable,
        old,
        harness_conformance_suite::SUITE_VERSION,
    );
    // Reasons come from adapter messages: no raw control character goes into the file.
    write_file(path, &escape::json(&b.to_json()))?;
    tell!(
        "wrote a baseline of {} failing case(s), {} skip(s) and {} untestable MUST requirement(s) to {}",
        b.cases.len(),
        b.skips.as_ref().map_or(0, |s| s.len()),
        b.not_testable.len(),
        path.display()
    );
    Ok(true)
}

/// How the user started this runner, for the commands it prints: `npx harness-conformance`
/// when npm's launcher ran it from a project, `python -m harness_conformance` through the
/// wheel's module, else `harness-conformance`. The launchers say so in
/// `HARNESS_CONFORMANCE_COMMAND`; only the forms in `saved::LAUNCHERS` are taken, so a saved
/// report's reproducer can always be read back.
pub fn program() -> String {
    std::env::var("HARNESS_CONFORMANCE_COMMAND")
        .ok()
        .and_then(|said| report::saved::launcher_prefix(&said))
        .unwrap_or_else(|| "harness-conformance".to_owned())
}

fn emit(output: &Option<PathBuf>, text: &str) -> Result<(), String> {
    match output {
        Some(p) => write_file(p, text),
        None => out::stdout(text),
    }
}

/// 2 when the run could not judge (the handshake failed), 1 when the harness failed cases,
/// else 0 ([`EXIT_STATUS`]).
fn exit_for(result: &RunResult) -> ExitCode {
    if result.handshake_error.is_some() {
        ExitCode::from(2)
    } else if result.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn cmd_selftest(args: SelftestArgs) -> Result<ExitCode, String> {
    let suite = load_suite()?;
    let cases = selected(&suite, &args.filter);
    let cfg = RunConfig {
        jobs: args.jobs,
        timeout: args.timeout,
        requirements: suite.requirements.clone(),
        ..RunConfig::default()
    };
    use harness_conformance_driver::selftest::{self, Sides};
    let sides = match args.only {
        None => Sides::Both,
        Some(SelftestSide::Broken) => Sides::Broken,
        Some(SelftestSide::Legitimate) => Sides::Legitimate,
    };
    let report = selftest::selftest(&cases, &cfg, sides, &|line: &str| tell!("{line}"));
    out::stdout(&report.render())?;
    Ok(if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
