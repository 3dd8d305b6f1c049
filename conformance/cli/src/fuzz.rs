//! `harness-conformance fuzz`: the command line over [`harness_conformance_generate`].
//!
//! A module of the binary, not of the generator crate, because it does the I/O the
//! library leaves out: writing finding case files, printing progress, the summary and the
//! one-command reproducers.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use harness_conformance_driver::client::{InProcess, ProcessHarness, ProcessOptions};
use harness_conformance_generate::{self as generate, FuzzConfig};
use harness_conformance_report::{escape, files, shell_quote};
use harness_conformance_suite::harness::Harness;

use crate::limits;
use crate::out::{say, tell};

#[derive(Args, Debug)]
pub struct FuzzArgs {
    /// The adapter command, run with `sh -c`; without it, the built-in reference harness.
    #[arg(long, value_name = "COMMAND", conflicts_with = "fault")]
    harness: Option<String>,
    /// Fuzz a deliberately broken variant of the reference, in-process (see
    /// `harness-ref-adapter --list-faults`).
    #[arg(long, value_name = "NAME")]
    fault: Option<String>,
    /// The seed (default: derived from the clock, and printed).
    #[arg(long)]
    seed: Option<u64>,
    /// Stop after this long (`90s`, `2m`, `500ms`, or seconds; 0.001 s to a week).
    #[arg(long, value_name = "DURATION", conflicts_with = "cases", value_parser = limits::run_time)]
    time: Option<Duration>,
    /// Stop after this many cases (default 500 when --time is not given).
    #[arg(long, value_name = "N")]
    cases: Option<u64>,
    /// Where finding case files are written.
    #[arg(long, value_name = "DIR", default_value = "fuzz-findings")]
    out: PathBuf,
    /// Stop after this many findings (each of a different requirement; later failures of a
    /// requirement already found are counted, not shrunk again).
    #[arg(long, default_value_t = 1)]
    max_findings: usize,
    /// The most adapter runs one shrink may use.
    #[arg(long, default_value_t = 400)]
    shrink_runs: usize,
    /// The longest one shrink may take: seconds or a duration (`2m`), 0 to a week.
    #[arg(long, default_value = "120", value_parser = limits::budget)]
    shrink_time: Duration,
    /// Per-case timeout: seconds or a duration (`30s`, `1m`, `500ms`), 1 ms to 24 h.
    #[arg(long, default_value = "10", value_parser = limits::timeout)]
    timeout: Duration,
    /// Handshake timeout: seconds or a duration (`60s`, `2m`), 1 ms to 24 h.
    #[arg(long, default_value = "60", value_parser = limits::timeout)]
    start_timeout: Duration,
    /// A baseline (`run --write-baseline`): findings in requirements it already lists (a case
    /// entry's `fails`, or the requirements of a case it expects to fail) are counted, not
    /// shrunk or reported, so only new findings fail the run.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// No progress lines.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// The requirements a baseline says the harness fails: each case entry's `fails`, or, for an
/// entry that expects the whole case to fail (format 1), the case's requirements.
fn known_requirements(
    baseline: &harness_conformance_suite::baseline::Baseline,
    suite: &harness_conformance_suite::loader::Suite,
) -> std::collections::BTreeSet<String> {
    let mut known = std::collections::BTreeSet::new();
    for (id, entry) in &baseline.cases {
        match &entry.fails {
            Some(fails) => known.extend(fails.iter().cloned()),
            None => {
                if let Some(case) = suite.cases.iter().find(|c| &c.id == id) {
                    known.extend(case.requirements.iter().cloned());
                }
            }
        }
    }
    known
}

/// The reference adapter's binary: the one built next to this binary when there is one.
fn adapter_binary() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join("harness-ref-adapter")))
        .filter(|p| p.exists())
        .map_or_else(
            || "harness-ref-adapter".to_owned(),
            |p| p.display().to_string(),
        )
}

pub fn run(args: FuzzArgs) -> Result<ExitCode, String> {
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() ^ u64::from(d.subsec_nanos()))
            % 1_000_000
    });
    let time = args.time;
    let cfg = FuzzConfig {
        seed,
        cases: if time.is_some() {
            args.cases
        } else {
            Some(args.cases.unwrap_or(500))
        },
        time,
        timeout: args.timeout,
        shrink_runs: args.shrink_runs,
        shrink_time: args.shrink_time,
        max_findings: args.max_findings.max(1),
        known: match &args.baseline {
            Some(path) => {
                let suite = crate::load_suite()?;
                known_requirements(&crate::read_baseline(path)?, &suite)
            }
            None => Default::default(),
        },
    };
    if args.baseline.is_some() {
        let known: Vec<&str> = cfg.known.iter().map(String::as_str).collect();
        eprintln!(
            "fuzz: the baseline lists {} known requirement(s){}{}",
            known.len(),
            if known.is_empty() { "" } else { ": " },
            known.join(", ")
        );
    }
    let (mut harness, target, reproduce_with): (Box<dyn Harness>, String, String) =
        match (&args.harness, &args.fault) {
            (Some(cmd), _) => (
                Box::new(ProcessHarness::new(
                    cmd,
                    ProcessOptions {
                        start_timeout: args.start_timeout,
                        ..ProcessOptions::default()
                    },
                )),
                format!("adapter `{cmd}`"),
                format!(" --harness {}", shell_quote(cmd)),
            ),
            (None, Some(name)) => {
                let fault: harness_ref_adapter::Fault =
                    name.parse().map_err(|e| format!("--fault: {e}"))?;
                (
                    Box::new(InProcess::new(Some(fault))),
                    format!("the reference's broken variant `{name}`"),
                    format!(
                        " --harness {}",
                        shell_quote(&format!("{} --fault {name}", adapter_binary()))
                    ),
                )
            }
            (None, None) => (
                Box::new(InProcess::new(None)),
                "the built-in reference harness".into(),
                String::new(),
            ),
        };
    let bound = match (cfg.time, cfg.cases) {
        (Some(t), Some(n)) => format!("{:.0}s or {n} cases", t.as_secs_f64()),
        (Some(t), None) => format!("{:.1}s", t.as_secs_f64()),
        (None, Some(n)) => format!("{n} cases"),
        (None, None) => "no bound".into(),
    };
    tell!("fuzz: seed {seed} (replay with --seed {seed}), {bound}, against {target}");
    let quiet = args.quiet;
    let mut progress = |line: String| {
        if !quiet {
            tell!("{line}");
        }
    };
    let report = generate::fuzz(harness.as_mut(), &cfg, &mut progress);
    harness.close();
    let report = report?;
    let mut written = Vec::new();
    for f in &report.findings {
        std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
        let name = format!("seed-{}-case-{}.json", report.seed, f.index);
        let file = args.out.join(&name);
        let text = serde_json::to_string_pretty(&f.case).map_err(|e| e.to_string())? + "\n";
        files::write_under(&args.out, std::path::Path::new(&name), text.as_bytes())
            .map_err(|e| e.to_string())?;
        say!(
            "FAIL [{}] case {} of seed {} — shrunk in {} step(s) ({} run(s)) from {} call(s)/{} tool(s) to {}/{}",
            f.requirements.join(", "),
            f.index,
            report.seed,
            f.steps,
            f.shrink_runs,
            f.size_before.0,
            f.size_before.1,
            f.size_after.0,
            f.size_after.1
        )?;
        for m in &f.messages {
            say!(
                "  {}",
                escape::terminal(&harness_conformance_suite::quote::quote_n(m, 400))
            )?;
        }
        say!("  wrote {}", escape::terminal(&file.display().to_string()))?;
        let reproduce = format!(
            "{} run{reproduce_with} --case-file {}",
            crate::program(),
            shell_quote(&file.display().to_string())
        );
        say!("  reproduce: {reproduce}")?;
        written.push((f, reproduce));
    }
    tell!("{}", report.stats.render());
    if !written.is_empty() {
        say!(
            "\nfindings ({}{}), each a case file to keep as a regression test:",
            written.len(),
            if args.baseline.is_some() {
                " new; the baseline lists none of them"
            } else {
                ""
            }
        )?;
        for (f, reproduce) in &written {
            say!("  [{}] {reproduce}", f.requirements.join(", "))?;
        }
        say!(
            "  all of them: {} run{reproduce_with} --cases {}",
            crate::program(),
            shell_quote(&args.out.display().to_string())
        )?;
    }
    match report.findings.first() {
        Some(f) => say!(
            "result: found [{}] after {} case(s) in {:.1}s",
            f.target,
            f.index + 1,
            report.elapsed.as_secs_f64()
        )?,
        None => say!(
            "result: nothing {}found in {} case(s) in {:.1}s",
            if args.baseline.is_some() { "new " } else { "" },
            report.stats.cases,
            report.elapsed.as_secs_f64()
        )?,
    }
    Ok(if report.findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
