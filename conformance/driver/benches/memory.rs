//! Peak memory of the runner against hostile adapters (a plain bench binary; the figures go to
//! docs/benchmarks.md and docs/runner-guarantees.md).
//!
//! `cargo bench -p harness-conformance-driver --bench memory [SCENARIO…]`
//!
//! Each scenario runs in a fresh child process (this binary, re-executed with `--scenario`), so
//! the figure it prints — the process's peak resident set, `VmHWM` from `/proc/self/status` —
//! is that scenario's alone. Scenarios:
//! - `fat`: 42 cases, each answered with a 60 MiB result (the issue's 2.6 GiB case), 1 and 2
//!   workers;
//! - `write-ahead`: an adapter that writes 384 MiB of lines nobody asked for after its answer;
//! - `values-under`: a reply of 32,000 one-member objects (256 KB of text), just under the
//!   runner's count of JSON values per reply (500,000 of them, before the count, cost 350 MiB);
//! - `suite`: the whole corpus against the in-process reference, for scale.
//!
//! Uses only the driver API that predates issue 12, so the same file measures an older
//! checkout for comparison. Not a test: nothing here asserts.

use std::process::Command;
use std::time::{Duration, Instant};

use harness_conformance_driver::client::{InProcess, ProcessHarness, ProcessOptions};
use harness_conformance_driver::runner::{self, RunConfig};
use harness_conformance_suite::case::Case;
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::loader::{self, decode_case};
use harness_conformance_suite::verdict::Verdict;

fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kib| kib.parse::<f64>().ok())
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

fn plain(id: &str) -> Case {
    decode_case(&format!(
        r#"{{"id": "{id}", "requirements": ["OUT-1"], "description": "one plain call",
            "tools": [{{"name": "t", "input_schema": {{"type": "object"}}, "behavior": {{"return": {{"text": "ok"}}}}}}],
            "calls": [{{"id": "toolu_1", "name": "t", "input": {{}}}}],
            "expect": {{"results": [{{"is_error": false}}]}}}}"#
    ))
    .unwrap()
}

fn adapter(mode: &str) -> String {
    format!(
        "exec python3 {}/tests/misbehaving/adapter.py {mode}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn run_process(mode: &str, cases: &[Case], jobs: usize) -> (usize, usize) {
    let refs: Vec<&Case> = cases.iter().collect();
    let cmd = adapter(mode);
    let factory = move || -> Box<dyn Harness + Send> {
        Box::new(ProcessHarness::new(&cmd, ProcessOptions::default()))
    };
    let cfg = RunConfig {
        jobs,
        timeout: Duration::from_secs(120),
        ..RunConfig::default()
    };
    let r = runner::run(&refs, &factory, &cfg, &|_, _, _| {});
    (r.outcomes.len(), r.count(Verdict::Error))
}

fn scenario(name: &str) {
    let started = Instant::now();
    let (cases, errors) = match name {
        "fat-1" | "fat-2" => {
            let cases: Vec<Case> = (0..42).map(|i| plain(&format!("fat/c{i}"))).collect();
            run_process("fat", &cases, if name == "fat-2" { 2 } else { 1 })
        }
        "write-ahead" => run_process("write-ahead", &[plain("t/trigger")], 1),
        "values-under" => run_process("values-under", &[plain("t/trigger")], 1),
        "suite" => {
            let suite = loader::load_embedded().expect("the suite loads");
            let refs: Vec<&Case> = suite.cases.iter().collect();
            let factory = || -> Box<dyn Harness + Send> { Box::new(InProcess::new(None)) };
            let r = runner::run(&refs, &factory, &RunConfig::default(), &|_, _, _| {});
            (r.outcomes.len(), r.count(Verdict::Error))
        }
        other => panic!("unknown scenario {other}"),
    };
    println!(
        "{name}\t{cases}\t{errors}\t{:.1}\t{:.1}",
        peak_mib(),
        started.elapsed().as_secs_f64()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--scenario") {
        scenario(&args[i + 1]);
        return;
    }
    let exe = std::env::current_exe().unwrap();
    println!("scenario\tcases\terrors\tpeak RSS (MiB)\twall (s)");
    let only: Vec<&String> = args
        .iter()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    for name in ["suite", "write-ahead", "values-under", "fat-1", "fat-2"] {
        if !only.is_empty() && !only.iter().any(|o| o.as_str() == name) {
            continue;
        }
        let out = Command::new(&exe)
            .args(["--scenario", name])
            .output()
            .expect("the bench can run itself");
        print!("{}", String::from_utf8_lossy(&out.stdout));
        if !out.status.success() {
            println!(
                "{name}\tfailed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
    }
}
