//! The terminal experience: colour that never changes the text, progress on stderr, the
//! summary, collapsed ERRORs with their hints, completions and the man page.
//!
//! These run the binary with pipes, so stdout and stderr are never terminals here: the bar and
//! single-key answers (terminal only) are covered by docs/terminal.md's tmux capture, and
//! everything a pipe sees is checked below.

use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_harness-conformance"));
    // The tests decide colour themselves.
    for var in ["NO_COLOR", "CLICOLOR_FORCE", "CLICOLOR"] {
        c.env_remove(var);
    }
    c
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn toy(mode: &str) -> String {
    format!(
        "python3 {}/../driver/tests/misbehaving/adapter.py {mode}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Removes what differs between two runs of the same cases: timings.
fn untimed(s: &str) -> String {
    let mut out = String::new();
    for line in s.lines() {
        let line = match line.find(" case(s) in ") {
            Some(i) => {
                let rest = &line[i + " case(s) in ".len()..];
                let after = rest.find("s:").map_or("", |j| &rest[j..]);
                format!("{} case(s) in <t>{after}", &line[..i])
            }
            None => line.to_owned(),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn has_style(s: &str) -> bool {
    s.contains("\u{1b}[")
}

#[test]
fn colour_only_inserts_styles() {
    // Failures, skips, hostile adapter text: everything the renderer styles or escapes.
    for harness in [None, Some(toy("ok")), Some(toy("hostile-text"))] {
        let base = |color: &str| {
            let mut c = bin();
            c.args(["run", "-q", "--run", "cap/*,calls/*", "--color", color]);
            if let Some(h) = &harness {
                c.args(["--harness", h]);
            }
            run(&mut c)
        };
        let plain = base("never");
        let coloured = base("always");
        let (plain, coloured) = (text(&plain.stdout), text(&coloured.stdout));
        assert!(!has_style(&plain), "--color never styled: {plain}");
        assert!(has_style(&coloured), "--color always did not style");
        let stripped = anstream::adapter::strip_str(&coloured).to_string();
        assert_eq!(untimed(&stripped), untimed(&plain), "{harness:?}");
    }
}

#[test]
fn auto_follows_the_environment() {
    let out = |env: &[(&str, &str)], color: &str| {
        let mut c = bin();
        c.args([
            "run",
            "-q",
            "--run",
            "cap/capping-ascii-is-idempotent",
            "--color",
            color,
        ]);
        for (k, v) in env {
            c.env(k, v);
        }
        has_style(&text(&run(&mut c).stdout))
    };
    // A pipe is not coloured by default …
    assert!(!out(&[], "auto"));
    // … unless CLICOLOR_FORCE says so, and NO_COLOR wins over it (no-color.org).
    assert!(out(&[("CLICOLOR_FORCE", "1")], "auto"));
    assert!(!out(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")], "auto"));
    // The flag wins over the environment.
    assert!(out(&[("NO_COLOR", "1")], "always"));
    assert!(!out(&[("CLICOLOR_FORCE", "1")], "never"));
}

#[test]
fn progress_is_plain_lines_when_stderr_is_not_a_terminal() {
    let o = run(bin().args(["run", "--run", "cap/*"]));
    let stderr = text(&o.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with('[')).collect();
    let total = text(&run(bin().args(["list", "--run", "cap/*"])).stdout)
        .lines()
        .count();
    assert_eq!(lines.len(), total, "{stderr}");
    assert!(
        lines.iter().all(|l| l.contains(&format!("/{total}] PASS"))),
        "{stderr}"
    );
    // Progress never reaches stdout (the report).
    assert!(!text(&o.stdout).lines().any(|l| l.starts_with('[')));
    // --quiet prints none.
    let q = run(bin().args(["run", "-q", "--run", "cap/*"]));
    assert!(!text(&q.stderr).lines().any(|l| l.starts_with('[')));
}

#[test]
fn the_summary_names_areas_levels_and_first_failures() {
    let o = run(bin().args([
        "run",
        "-q",
        "--run",
        "cap/*,calls/*",
        "--harness",
        &toy("ok"),
    ]));
    let out = text(&o.stdout);
    let summary = &out[out.find("── summary ──").expect("a summary")..];
    let area = |name: &str| {
        summary
            .lines()
            .any(|l| l.trim_start().starts_with(&format!("{name} ")))
    };
    assert!(area("cap") && area("calls"), "{summary}");
    assert!(
        summary.contains("  MUST: ") && summary.contains("  SHOULD: "),
        "{summary}"
    );
    let listed = summary
        .lines()
        .filter(|l| l.starts_with("    FAIL "))
        .count();
    assert!(
        (1..=harness_conformance_report::summary::MAX_FIRST_FAILURES).contains(&listed),
        "{summary}"
    );
    assert_eq!(
        summary
            .lines()
            .filter(|l| l.trim_start().starts_with("reproduce: "))
            .count(),
        listed
    );
    // It closes the report: the totals and the result come after it.
    assert!(summary.contains("\nresult: FAILED"));
}

#[test]
fn identical_errors_are_one_entry_with_a_hint() {
    // A stray print before each reply: every case gets the same ERROR.
    let polluting = format!(
        "python3 -c 'import subprocess, sys\np = subprocess.Popen(sys.argv[1:], stdin=sys.stdin, stdout=subprocess.PIPE)\nfirst = True\nfor line in p.stdout:\n    sys.stdout.write(\"\" if first else \"debug: handling call\\n\")\n    first = False\n    sys.stdout.write(line.decode())\n    sys.stdout.flush()' {}",
        toy("ok")
    );
    let o = run(bin().args([
        "run",
        "-q",
        "--run",
        "cap/*",
        "--max-restarts",
        "100",
        "--harness",
        &polluting,
    ]));
    let out = text(&o.stdout);
    let details = &out[..out.find("── by requirement").unwrap_or(out.len())];
    let entries = details.lines().filter(|l| l.starts_with("ERROR ")).count();
    assert_eq!(entries, 1, "{details}");
    assert!(details.contains("the same ERROR in "), "{details}");
    assert!(
        details.contains("write logs and debug prints to stderr"),
        "{details}"
    );
    assert!(details.contains("(stdout-pollution)"));
}

#[test]
fn handshake_failures_get_their_hint() {
    for (harness, code) in [
        ("echo 'loading the model...'; sleep 5", "stdout-pollution"),
        ("definitely-not-an-adapter-command", "wrong-command"),
    ] {
        let o = run(bin().args(["run", "-q", "--harness", harness]));
        let out = text(&o.stdout);
        assert!(out.contains("the handshake failed"), "{out}");
        assert_eq!(
            out.matches(&format!("({code})")).count(),
            1,
            "{harness}: {out}"
        );
        assert_eq!(o.status.code(), Some(2));
    }
}

#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = run(bin().args(["completions", shell]));
        assert!(o.status.success(), "{shell}");
        let script = text(&o.stdout);
        assert!(
            script.contains("harness-conformance") && script.contains("color"),
            "{shell}"
        );
    }
    let o = run(bin().arg("man"));
    let page = text(&o.stdout);
    assert!(page.starts_with(".ie") || page.contains(".TH"), "{page}");
    assert!(page.contains("completions") && page.contains("review"));
    let dir = std::env::temp_dir().join(format!("hc-man-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = run(bin().args(["man", "--dir"]).arg(&dir));
    assert!(o.status.success(), "{}", text(&o.stderr));
    for page in [
        "harness-conformance.1",
        "harness-conformance-run.1",
        "harness-conformance-review.1",
    ] {
        assert!(dir.join(page).is_file(), "{page}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let bad = run(bin().args(["completions", "cmd.exe"]));
    assert_eq!(bad.status.code(), Some(2));
}
