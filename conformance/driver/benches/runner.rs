//! Runner benchmarks (a plain bench binary; numbers go to docs/benchmarks.md).
//!
//! `cargo build --release -p harness-ref-adapter && cargo bench -p harness-conformance-driver`
//!
//! Measures, over the whole embedded corpus:
//! - wall time against the in-process reference (1 and 2 workers);
//! - wall time and cases/second against the reference adapter *process* (1 and 2 workers);
//! - protocol overhead per case: encoding each `run` and decoding its reply (CPU only), and
//!   the process-vs-in-process difference per case with one worker (pipes, threads, JSON).
//!
//! Each figure is the median of several runs. Not a test: nothing here asserts a time.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use harness_conformance_driver::client::{InProcess, ProcessHarness, ProcessOptions};
use harness_conformance_driver::driver::{AdapterProcess, DriverLimits};
use harness_conformance_driver::runner::{self, RunConfig};
use harness_conformance_protocol::{decode_reply, resolve_case, Command, Reply};
use harness_conformance_suite::case::Case;
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::loader;
use harness_conformance_suite::verdict::Verdict;

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn adapter_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    // target/<profile>/deps/runner-<hash> → target/<profile>/harness-ref-adapter
    let profile_dir = exe.parent()?.parent()?;
    let bin = profile_dir.join("harness-ref-adapter");
    bin.exists().then_some(bin)
}

fn run_suite(cases: &[&Case], jobs: usize, process: Option<&str>) -> (Duration, usize) {
    let cfg = RunConfig {
        jobs,
        timeout: Duration::from_secs(20),
        ..RunConfig::default()
    };
    let cmd = process.map(str::to_owned);
    let factory = move || -> Box<dyn Harness + Send> {
        match &cmd {
            Some(c) => Box::new(ProcessHarness::new(c, ProcessOptions::default())),
            None => Box::new(InProcess::new(None)),
        }
    };
    let started = Instant::now();
    let r = runner::run(cases, &factory, &cfg, &|_, _, _| {});
    let elapsed = started.elapsed();
    (elapsed, r.count(Verdict::Pass))
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` convention: nothing to list
    }
    // A checkout in the middle of adding cases may hold some that do not load yet; bench the
    // ones that do, and say how many were left out.
    let files = loader::embedded_files();
    let loadable: Vec<(String, &str)> = files
        .iter()
        .filter(|f| loader::load(std::slice::from_ref(*f), loader::SPEC_MD).is_ok())
        .cloned()
        .collect();
    if loadable.len() < files.len() {
        println!(
            "({} case file(s) do not load and are left out)",
            files.len() - loadable.len()
        );
    }
    let suite = loader::load(&loadable, loader::SPEC_MD).expect("the loadable cases load together");
    let cases: Vec<&Case> = suite.cases.iter().collect();
    let n = cases.len();
    let reps = 5;
    println!("corpus: {n} cases; each figure is the median of {reps} runs");

    for jobs in [1, 2] {
        let times: Vec<Duration> = (0..reps).map(|_| run_suite(&cases, jobs, None).0).collect();
        let t = median(times);
        println!(
            "in-process reference, {jobs} worker(s): {:.3} s for the suite, {:.0} cases/s",
            t.as_secs_f64(),
            n as f64 / t.as_secs_f64()
        );
    }

    // The driver's own round trip: one line to `cat` and back (pipes, the stdout reader
    // thread, the channel), with no JSON and no harness.
    if let Ok(mut cat) = AdapterProcess::spawn("exec cat", DriverLimits::default()) {
        let line = "x".repeat(1000);
        let rounds = 2000;
        let mut times = Vec::new();
        for _ in 0..reps {
            let started = Instant::now();
            for _ in 0..rounds {
                cat.send(&line, Instant::now() + Duration::from_secs(5))
                    .unwrap();
                let back = cat.recv(Instant::now() + Duration::from_secs(5)).unwrap();
                std::hint::black_box(back);
            }
            times.push(started.elapsed());
        }
        println!(
            "driver round trip (1 KB line to `cat` and back): {:.1} µs",
            median(times).as_secs_f64() * 1e6 / rounds as f64
        );
        cat.kill();
    }

    let Some(bin) = adapter_binary() else {
        println!("(harness-ref-adapter binary not built next to this bench: run `cargo build --release -p harness-ref-adapter` first)");
        return;
    };
    let cmd = format!("exec {}", bin.display());
    let mut process_1 = Duration::ZERO;
    for jobs in [1, 2] {
        let runs: Vec<(Duration, usize)> = (0..reps)
            .map(|_| run_suite(&cases, jobs, Some(&cmd)))
            .collect();
        let passes = runs[0].1;
        let t = median(runs.into_iter().map(|r| r.0).collect());
        if jobs == 1 {
            process_1 = t;
        }
        println!(
            "reference adapter process, {jobs} worker(s): {:.3} s for the suite, {:.0} cases/s ({passes} PASS)",
            t.as_secs_f64(),
            n as f64 / t.as_secs_f64()
        );
    }
    let _ = process_1;
    // Round-trip overhead of the process path, on the cases whose handlers do not sleep (the
    // sleeps dominate the suite's wall time and would drown the difference).
    let quick: Vec<&Case> = cases
        .iter()
        .copied()
        .filter(|c| !serde_json::to_string(c).unwrap().contains("\"sleep_ms\""))
        .collect();
    let q = quick.len();
    let inproc = median((0..reps).map(|_| run_suite(&quick, 1, None).0).collect());
    let process = median(
        (0..reps)
            .map(|_| run_suite(&quick, 1, Some(&cmd)).0)
            .collect(),
    );
    println!(
        "{q} cases without handler sleeps, 1 worker: in-process {:.3} s, process {:.3} s; process overhead {:.1} µs per case",
        inproc.as_secs_f64(),
        process.as_secs_f64(),
        process.saturating_sub(inproc).as_secs_f64() * 1e6 / q as f64
    );

    // CPU cost of the protocol itself: encode every run command, decode a reply of the size
    // the reference sends back.
    let mut adapter = harness_ref_adapter::ReferenceAdapter::new(None);
    let mut lines: Vec<(String, String)> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let mut wire = case.wire();
        if resolve_case(&mut wire, 16384).is_err() {
            continue;
        }
        let mut reply: Reply = adapter.run(&wire);
        reply.seq = i as u64;
        let reply_line = serde_json::to_string(&reply).unwrap();
        let cmd_line = serde_json::to_string(&Command::Run {
            seq: i as u64,
            case: wire,
        })
        .unwrap();
        lines.push((cmd_line, reply_line));
    }
    let mut times = Vec::new();
    for _ in 0..reps {
        let started = Instant::now();
        for (i, (_, reply_line)) in lines.iter().enumerate() {
            let mut wire = cases[i].wire();
            let _ = resolve_case(&mut wire, 16384);
            let encoded = serde_json::to_string(&Command::Run {
                seq: i as u64,
                case: wire,
            })
            .unwrap();
            std::hint::black_box(encoded);
            let decoded = decode_reply(reply_line.as_bytes()).unwrap();
            std::hint::black_box(decoded);
        }
        times.push(started.elapsed());
    }
    let t = median(times);
    let bytes: usize = lines.iter().map(|(a, b)| a.len() + b.len()).sum();
    println!(
        "protocol encode+decode: {:.1} µs per case (mean {} bytes on the wire per case)",
        t.as_secs_f64() * 1e6 / lines.len() as f64,
        bytes / lines.len().max(1)
    );
}
