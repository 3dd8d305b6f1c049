//! Issue 29: what a new author meets on the way to a green gate — exit statuses that tell "the
//! harness failed cases" (1) from "the run could not judge" (2), a failed handshake's cause in
//! every format, baseline upkeep (`--write-baseline`, `--update`, `--prune`), durations with
//! units, reproducers in the launcher's words, a red path that shows the failures first, and
//! `init`.

use std::path::Path;
use std::process::Output;

mod common;
use common::{bin, run, run_toy, text, tmp};

/// A case the toy adapter fails (it answers every call with a success).
const FAILING: &str = "calls/unknown-tool-with-no-tools-registered";

/// The misbehaving adapter in `mode`.
fn misbehaving(mode: &str) -> String {
    format!(
        "python3 {}/../driver/tests/misbehaving/adapter.py {mode}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn out(o: &Output) -> String {
    format!("{}{}", text(&o.stdout), text(&o.stderr))
}

#[test]
fn help_lists_the_exit_statuses() {
    for args in [&["--help"][..], &["run", "--help"]] {
        let o = run(args);
        assert!(o.status.success());
        let help = text(&o.stdout);
        assert!(help.contains("Exit status:"), "{help}");
        assert!(help.contains("2    the run could not judge"), "{help}");
        assert!(help.contains("1    the harness failed cases"), "{help}");
    }
    // `--baseline`'s help shows the format `--write-baseline` writes (format 2), not format 1.
    let help = text(&run(&["run", "--help"]).stdout);
    assert!(help.contains(r#"{"format": 2,"#), "{help}");
}

/// A handshake that fails exits 2, and each case of the JUnit report (which CI shows one by
/// one) says why in its own message, as the JSON and Markdown reports do.
#[test]
fn a_failed_handshake_says_why_in_every_format_and_exits_2() {
    let adapter = misbehaving("typo-keyword");
    for format in ["terminal", "json", "junit", "markdown"] {
        let o = run(&[
            "run",
            "--harness",
            &adapter,
            "--run",
            "validation/*",
            "-q",
            "--format",
            format,
        ]);
        assert_eq!(o.status.code(), Some(2), "{format}: {}", out(&o));
        let said = text(&o.stdout);
        assert!(
            said.contains("unknown name") && said.contains("propertie"),
            "{format}: the cause is missing: {said}"
        );
        assert!(
            !said.contains("the message above says why"),
            "{format}: {said}"
        );
        if format == "junit" {
            let errors: Vec<&str> = said.split("<error ").skip(1).collect();
            assert!(errors.len() > 1, "{said}");
            for e in errors {
                let message = e.split('>').next().unwrap();
                assert!(
                    message.contains("the handshake failed") && message.contains("propertie"),
                    "a case's error does not say why: {message}"
                );
            }
        }
    }
}

#[test]
fn durations_take_units_on_every_option() {
    let o = run_toy(
        FAILING,
        &[
            "--timeout",
            "30s",
            "--start-timeout",
            "1m",
            "--max-time",
            "2m",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let o = run_toy(FAILING, &["--timeout", "500ms"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    for bad in ["0s", "30 parsecs", "25h"] {
        let o = run_toy(FAILING, &["--timeout", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", out(&o));
    }
}

/// Reproducers are printed in the words of the launcher that started the runner (npm's sets
/// `HARNESS_CONFORMANCE_COMMAND`), and only a known launcher's words are taken.
#[test]
fn reproducers_use_the_launchers_command() {
    let toy = common::toy();
    let reproduce = |launcher: &str| {
        let o = bin()
            .env("HARNESS_CONFORMANCE_COMMAND", launcher)
            .args(["run", "--harness", &toy, "--run", FAILING, "-q"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
        let said = text(&o.stdout);
        let line = said
            .lines()
            .find(|l| l.trim_start().starts_with("reproduce: "))
            .unwrap_or_else(|| panic!("no reproducer: {said}"))
            .trim_start()
            .trim_start_matches("reproduce: ")
            .to_owned();
        line
    };
    assert!(reproduce("npx harness-conformance").starts_with("npx harness-conformance run "));
    assert!(reproduce("python3 -m harness_conformance")
        .starts_with("python3 -m harness_conformance run "));
    assert!(reproduce("rm -rf /; harness-conformance").starts_with("harness-conformance run "));
}

/// `--update` rewrites the baseline from the run (new failures in, reasons kept) and exits 0;
/// `--prune` only removes stale entries, and exits 1 while a new failure is left.
#[test]
fn update_and_prune_keep_the_baseline_true() {
    let dir = tmp("upkeep");
    let path = dir.join("baseline.json");
    let p = path.to_str().unwrap();
    let passing = "calls/call-runs-the-named-tool";
    let read = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    };
    // A baseline with a stale entry (a case that passes) and without the real failure.
    let o = run_toy(FAILING, &["--write-baseline", p]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let mut b = read();
    let entry = b["cases"][FAILING].clone();
    b["cases"].as_object_mut().unwrap().remove(FAILING);
    b["cases"][passing] = entry;
    b["cases"][passing]["reason"] = serde_json::json!("kept by hand");
    std::fs::write(&path, b.to_string()).unwrap();

    // Prune: the stale entry goes, the new failure is not added, so the run still fails.
    let o = run_toy(FAILING, &["--run", passing, "--baseline", p, "--prune"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(out(&o).contains("pruned"), "{}", out(&o));
    let b = read();
    assert!(b["cases"].get(passing).is_none(), "{b}");
    assert!(b["cases"].get(FAILING).is_none(), "{b}");

    // Update: the failure is added and the run is green at once.
    let o = run_toy(FAILING, &["--run", passing, "--baseline", p, "--update"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let b = read();
    assert!(b["cases"].get(FAILING).is_some(), "{b}");
    let o = run_toy(FAILING, &["--run", passing, "--baseline", p]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));

    // Both need the baseline they rewrite.
    for flag in ["--update", "--prune"] {
        assert_eq!(run_toy(FAILING, &[flag]).status.code(), Some(2));
    }
}

/// The red path: the new failure comes before the requirements the baseline already lists as
/// untestable, which take one line per level rather than one line each.
#[test]
fn the_red_path_shows_failures_before_known_gaps() {
    let dir = tmp("red");
    let path = dir.join("baseline.json");
    let p = path.to_str().unwrap();
    let untestable = "outcomes/handler-past-deadline-times-out";
    let o = run_toy(untestable, &["--write-baseline", p]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let o = run_toy(FAILING, &["--run", untestable, "--baseline", p]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let said = text(&o.stdout);
    let summary = &said[said.rfind("── summary").unwrap_or(0)..];
    let failure = summary.find(FAILING).expect(&said);
    let known = summary
        .find("not testable (MUST), as the baseline says: OUT-4")
        .expect(&said);
    assert!(failure < known, "{summary}");
    assert!(!summary.contains("    OUT-4 —"), "{summary}");
}

/// `init` in a Python project: it writes the adapter, the CI job and a first baseline, and the
/// gate it prints is green at once.
#[test]
fn init_writes_an_adapter_a_baseline_and_a_job_and_the_gate_is_green() {
    let dir = tmp("init");
    std::fs::write(
        dir.join("pyproject.toml"),
        "[project]\nname = \"my-harness\"\nversion = \"0.3.0\"\n",
    )
    .unwrap();
    let kit = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kits/python/src");
    let with_kit = |args: &[&str]| {
        bin()
            .current_dir(&dir)
            .env("PYTHONPATH", &kit)
            .env_remove("VIRTUAL_ENV")
            .args(args)
            .output()
            .unwrap()
    };
    let o = with_kit(&["init", "--run", "calls/*"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let adapter = std::fs::read_to_string(dir.join("conformance/adapter.py")).unwrap();
    assert!(adapter.contains("Implementation(\"my-harness\", \"python\", \"0.3.0\""));
    let job =
        std::fs::read_to_string(dir.join(".github/workflows/harness-conformance.yml")).unwrap();
    assert!(
        job.contains("adapter: python3 conformance/adapter.py"),
        "{job}"
    );
    assert!(job.contains("baseline: conformance/baseline.json"), "{job}");
    assert!(dir.join("conformance/baseline.json").is_file());
    let o = with_kit(&[
        "run",
        "--harness",
        "python3 conformance/adapter.py",
        "--baseline",
        "conformance/baseline.json",
        "--run",
        "calls/*",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    // A second init writes nothing over the first.
    let o = with_kit(&["init", "--no-baseline"]);
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));
    assert!(out(&o).contains("--force"), "{}", out(&o));
}

/// The action installs the kit at the runner's version (`harness-conformance-adapter==X`,
/// `@harness-conformance/adapter@X`), and the release publishes them together: every place a
/// kit states its version says the suite's.
#[test]
fn the_kits_are_at_the_suites_version() {
    let suite = env!("CARGO_PKG_VERSION");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let read = |rel: &str| std::fs::read_to_string(root.join(rel)).unwrap();
    let pyproject = read("conformance/kits/python/pyproject.toml");
    assert!(
        pyproject.contains(&format!("\nversion = \"{suite}\"\n")),
        "conformance/kits/python/pyproject.toml is not at {suite}"
    );
    let init = read("conformance/kits/python/src/harness_conformance_adapter/__init__.py");
    assert!(
        init.contains(&format!("__version__ = \"{suite}\"")),
        "the Python kit's __version__ is not {suite}"
    );
    let package: serde_json::Value =
        serde_json::from_str(&read("conformance/kits/typescript/package.json")).unwrap();
    assert_eq!(
        package["version"], suite,
        "the TypeScript kit's package.json"
    );
    let lock: serde_json::Value =
        serde_json::from_str(&read("conformance/kits/typescript/package-lock.json")).unwrap();
    assert_eq!(
        lock["packages"][""]["version"], suite,
        "its package-lock.json"
    );
}
