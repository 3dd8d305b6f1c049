//! The command line against hostile adapters and hostile input (issue 12): each test is one
//! row of the issue — what a hostile adapter author, case file or baseline tried, and what the
//! runner must do instead. The adapters are `driver/tests/misbehaving/adapter.py MODE`.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

#[path = "../../driver/tests/misbehaving/mod.rs"]
mod misbehaving;
use misbehaving::{command as adapter, dead, pids, wait_until};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_harness-conformance"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hc-hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A one-call case file at `dir/name.json` with id `id`; `expect_error` makes the toy adapter
/// (which answers every call with a success) fail it.
fn case_file(dir: &Path, name: &str, id: &str, expect_error: bool) -> PathBuf {
    let case = serde_json::json!({
        "id": id, "requirements": ["OUT-1"], "description": "one plain call",
        "tools": [{"name": "t", "input_schema": {"type": "object"}, "behavior": {"return": {"text": "ok"}}}],
        "calls": [{"id": "toolu_1", "name": "t", "input": {}}],
        "expect": {"results": [{"is_error": expect_error}]}
    });
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, case.to_string()).unwrap();
    path
}

/// No byte or character a terminal would act on: ESC, BEL, CR, C1 controls, bidi overrides.
fn assert_no_raw_controls(what: &str, s: &str) {
    let bad: Vec<char> = s
        .chars()
        .filter(|&c| {
            matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    assert!(bad.is_empty(), "{what} carries raw {bad:?}:\n{s}");
}

/// Rows 4 and 5: SIGINT and SIGTERM kill every adapter process group (children included),
/// then the runner exits with 128 + the signal.
#[test]
fn interrupts_kill_every_adapter_then_exit_with_128_plus_the_signal() {
    for (signal, code) in [
        (rustix::process::Signal::TERM, 143),
        (rustix::process::Signal::INT, 130),
    ] {
        let dir = tmp(&format!("signal-{code}"));
        let case = case_file(&dir, "trigger", "t/trigger", false);
        let children = dir.join("children");
        let starts = dir.join("starts");
        let cmd = format!(
            "HC_PIDFILE={} HC_STARTFILE={} {}",
            children.display(),
            starts.display(),
            adapter("hang-with-child")
        );
        let mut child = bin()
            .args(["run", "--harness", &cmd, "--case-file"])
            .arg(&case)
            .args(["--timeout", "600", "-q"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        assert!(
            wait_until(Duration::from_secs(60), || !pids(&children).is_empty()),
            "the adapter never started its child"
        );
        let pid = rustix::process::Pid::from_child(&child);
        rustix::process::kill_process(pid, signal).unwrap();
        let mut status = None;
        assert!(
            wait_until(Duration::from_secs(20), || {
                status = child.try_wait().unwrap();
                status.is_some()
            }),
            "the runner did not exit on {signal:?}"
        );
        assert_eq!(status.unwrap().code(), Some(code), "{signal:?}");
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert!(err.contains("killed 1 adapter process group(s)"), "{err}");
        let all: Vec<u32> = pids(&children).into_iter().chain(pids(&starts)).collect();
        assert_eq!(all.len(), 2, "{all:?}");
        assert!(
            wait_until(Duration::from_secs(5), || all.iter().all(|&p| dead(p))),
            "adapter processes {all:?} outlived the runner"
        );
    }
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.exists())
    })
}

/// Row 5: groups are killed with a syscall, so a machine without a `kill` program (slim
/// images) still loses its hung adapters and their children.
#[test]
fn hung_adapters_die_without_a_kill_program_on_the_path() {
    let dir = tmp("no-kill");
    let bin_dir = dir.join("bin");
    std::fs::create_dir(&bin_dir).unwrap();
    // The real interpreter, not a version manager's shim (which needs more of the PATH).
    let python = Command::new("python3")
        .args([
            "-c",
            "import os, sys; print(os.path.realpath(sys.executable))",
        ])
        .output()
        .unwrap();
    let python = PathBuf::from(text(&python.stdout).trim());
    let sh = which("sh").expect("sh is installed");
    std::os::unix::fs::symlink(sh, bin_dir.join("sh")).unwrap();
    std::os::unix::fs::symlink(python, bin_dir.join("python3")).unwrap();
    let case = case_file(&dir, "trigger", "t/trigger", false);
    let children = dir.join("children");
    let cmd = format!(
        "HC_PIDFILE={} {}",
        children.display(),
        adapter("hang-with-child")
    );
    let o = bin()
        .env("PATH", &bin_dir)
        .args(["run", "--harness", &cmd, "--case-file"])
        .arg(&case)
        .args(["--timeout", "1", "-q"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    assert!(text(&o.stdout).contains("adapter_timeout"));
    let kids = pids(&children);
    assert_eq!(kids.len(), 1);
    assert!(
        wait_until(Duration::from_secs(5), || dead(kids[0])),
        "the hung adapter's child {kids:?} survived: its group was not killed"
    );
}

/// Rows 6 and 15: adapter text (the implementation's name, error and skip reasons) and
/// baseline reasons reach the terminal with every control escaped, and `--write-baseline`
/// writes none of them raw.
#[test]
fn adapter_and_baseline_text_reach_the_terminal_escaped() {
    let dir = tmp("terminal");
    let cmd = adapter("hostile-text");
    let baseline = dir.join("baseline.json");
    let o = run(&[
        "run",
        "--harness",
        &cmd,
        "--run",
        "calls/unknown-*,validation/string-*",
        "--write-baseline",
        baseline.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "the baseline was written");
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_no_raw_controls("stdout", &out);
    assert_no_raw_controls("stderr", &err);
    assert!(out.contains("evil\\u{1b}[2J"), "{out}");
    assert!(
        out.contains("\\u{9b}31m") && out.contains("\\u{202e}txt.exe"),
        "{out}"
    );
    assert!(err.contains("cannot express: evil\\u{1b}[2J"), "{err}");
    // The forged line never stands on a line of its own: indented under its message in the
    // report, and not on a line at all in the one-line progress.
    assert!(!out.lines().any(|l| l.starts_with("result: ok")), "{out}");
    assert!(!err.lines().any(|l| l.trim() == "result: ok"), "{err}");
    let written = std::fs::read_to_string(&baseline).unwrap();
    assert_no_raw_controls("the written baseline", &written);
    // The reasons are all there, as JSON escapes.
    let parsed: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert!(written.contains("\\u009b31m\\u202etxt.exe"), "{written}");
    assert!(
        parsed["skips"].to_string().contains("\u{202e}txt.exe"),
        "{written}"
    );
    // XFAIL lines print the baseline's reasons: escaped, bounded, one line each.
    let o = run(&[
        "run",
        "--harness",
        &cmd,
        "--run",
        "calls/unknown-*,validation/string-*",
        "--baseline",
        baseline.to_str().unwrap(),
    ]);
    let out = text(&o.stdout);
    assert!(out.contains("XFAIL"), "{out}");
    assert_no_raw_controls("stdout with the baseline", &out);
    // A hand-written baseline whose reason is an escape sequence.
    let hand = dir.join("hand.json");
    std::fs::write(
        &hand,
        serde_json::json!({
            "calls/unknown-tool-with-no-tools-registered": {"reason": "\u{1b}[2J\u{1b}]8;;http://evil/\u{7}x\u{9b}"}
        })
        .to_string(),
    )
    .unwrap();
    let o = run(&[
        "run",
        "--harness",
        &adapter("ok"),
        "--run",
        "calls/unknown-tool-with-no-tools-registered",
        "-q",
        "--baseline",
        hand.to_str().unwrap(),
    ]);
    let out = text(&o.stdout);
    assert!(
        out.contains("XFAIL calls/unknown-tool-with-no-tools-registered — \\u{1b}[2J"),
        "{out}"
    );
    assert_no_raw_controls("stdout with a hand-written baseline", &out);
}

/// Row 7: in `--format markdown`, adapter text opens no HTML, image, heading or code block.
#[test]
fn markdown_reports_never_let_adapter_text_open_a_block() {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let o = run(&[
        "run",
        "--harness",
        &adapter("hostile-markdown"),
        "--run",
        "calls/unknown-*,validation/string-*",
        "--format",
        "markdown",
        "-q",
    ]);
    let md = text(&o.stdout);
    assert!(md.contains("onerror"), "the hostile text is shown: {md}");
    let mut depth_code = 0i32;
    for event in Parser::new(&md) {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => {
                // Only the report's own tags.
                let tag = h.trim().trim_start_matches('<').trim_start_matches('/');
                assert!(
                    ["details", "summary", "b>", "code>", "br>"]
                        .iter()
                        .any(|t| tag.starts_with(t)),
                    "raw HTML from adapter text: {h:?}"
                );
                assert!(!h.contains("img") && !h.contains("onerror"), "{h:?}");
            }
            Event::Start(Tag::Image { dest_url, .. }) => {
                panic!("an image from adapter text: {dest_url}")
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                panic!("a link from adapter text: {dest_url}")
            }
            Event::Start(Tag::Heading { .. }) => {}
            Event::Text(t) if t.contains("Injected heading") => {}
            Event::Start(Tag::CodeBlock(_)) => depth_code += 1,
            Event::End(TagEnd::CodeBlock) => depth_code -= 1,
            _ => {}
        }
    }
    assert_eq!(depth_code, 0);
    // Headings are the report's own.
    let headings: Vec<&str> = md.lines().filter(|l| l.starts_with('#')).collect();
    assert!(
        headings.iter().all(|h| !h.contains("Injected")),
        "{headings:?}"
    );
    // Every code block is the report's own: the reproducers, which the adapter text cannot
    // close early (a line of three backticks inside stays inside).
    let blocks = Parser::new(&md)
        .filter(|e| matches!(e, Event::Start(Tag::CodeBlock(_))))
        .count();
    let unexpected = md.matches("<details>").count();
    assert_eq!(blocks, unexpected, "{md}");
}

/// Rows 8 and 9: a snapshot directory's symlinks are never written or read through.
/// `run --case-file CASE --snapshots SNAPS -q`.
fn record(case: &Path, snaps: &Path) -> Output {
    bin()
        .args(["run", "--case-file"])
        .arg(case)
        .arg("--snapshots")
        .arg(snaps)
        .arg("-q")
        .output()
        .unwrap()
}

#[test]
fn snapshot_links_are_neither_written_nor_read_through() {
    let dir = tmp("snap-links");
    let case = case_file(&dir, "one", "t/linked", false);
    let snaps = dir.join("snaps");
    std::fs::create_dir(&snaps).unwrap();
    let outside = dir.join("outside.txt");
    std::fs::write(&outside, "precious").unwrap();
    // Row 8: a pending `.snap.new` that points outside.
    std::os::unix::fs::symlink(&outside, snaps.join("conformance__t__linked.snap.new")).unwrap();
    let o = record(&case, &snaps);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a new snapshot: {}",
        text(&o.stderr)
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
    let new = snaps.join("conformance__t__linked.snap.new");
    assert!(!std::fs::symlink_metadata(&new)
        .unwrap()
        .file_type()
        .is_symlink());
    // Row 9: a stored `.snap` that points at a secret.
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, "SECRET-5f1d do not print").unwrap();
    std::os::unix::fs::symlink(&secret, snaps.join("conformance__t__linked.snap")).unwrap();
    let o = record(&case, &snaps);
    let all = text(&o.stdout) + &text(&o.stderr);
    assert!(!all.contains("SECRET-5f1d"), "{all}");
    assert_eq!(o.status.code(), Some(2), "{all}");
    assert!(
        all.contains("is a symbolic link; refusing to follow it"),
        "{all}"
    );
    // The same for a baseline and a report file.
    let o = bin()
        .args(["run", "--run", "calls/unknown-tool-*", "-q", "--baseline"])
        .arg(snaps.join("conformance__t__linked.snap"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(!text(&o.stderr).contains("SECRET-5f1d"));
    let o = bin()
        .args(["run", "--run", "calls/unknown-tool-*", "-q", "-o"])
        .arg(snaps.join("conformance__t__linked.snap.new.link"))
        .output()
        .unwrap();
    assert!(o.status.success(), "a plain new report file is fine");
    std::os::unix::fs::symlink(&outside, dir.join("report-link")).unwrap();
    let o = bin()
        .args(["run", "--run", "calls/unknown-tool-*", "-q", "-o"])
        .arg(dir.join("report-link"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
}

/// The matrix's Markdown and site pages are written like every other output: never through a
/// symlink (a link committed where the site goes cannot redirect the write).
#[test]
fn matrix_outputs_are_not_written_through_links() {
    let dir = tmp("matrix-links");
    let outside = dir.join("outside.txt");
    std::fs::write(&outside, "precious").unwrap();
    let site = dir.join("site");
    std::fs::create_dir(&site).unwrap();
    std::os::unix::fs::symlink(&outside, site.join("index.html")).unwrap();
    let matrix = |md: &Path| {
        bin()
            .args([
                "matrix",
                "--harness",
                "reference=reference",
                "--run",
                "calls/unknown-tool-*",
            ])
            .arg("--markdown")
            .arg(md)
            .arg("--site")
            .arg(&site)
            .output()
            .unwrap()
    };
    let o = matrix(&dir.join("m.md"));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("symbolic link"),
        "{}",
        text(&o.stderr)
    );
    std::os::unix::fs::symlink(&outside, dir.join("m-link.md")).unwrap();
    std::fs::remove_file(site.join("index.html")).unwrap();
    let o = matrix(&dir.join("m-link.md"));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
}

/// Row 10: numbers outside their documented ranges are usage errors (exit 2), never a panic
/// or a silent clamp.
#[test]
fn numbers_out_of_range_are_usage_errors() {
    let cases: &[&[&str]] = &[
        &["run", "--timeout", "inf"],
        &["run", "--timeout", "NaN"],
        &["run", "--timeout", "0"],
        &["run", "--timeout", "1e19"],
        &["run", "--timeout=-1"],
        &["run", "--start-timeout", "inf"],
        &["run", "--jobs", "0"],
        &["run", "--jobs", "100000"],
        &["run", "--max-time", "inf"],
        &["run", "--max-restarts", "99999999"],
        &["fuzz", "--shrink-time", "inf"],
        &["fuzz", "--timeout", "1e300"],
        &["fuzz", "--time", "1e300h"],
        &["selftest", "--jobs", "0"],
        &["matrix", "--harness", "r=reference", "--timeout", "NaN"],
    ];
    for args in cases {
        let o = run(args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("invalid value"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// Row 11: a closed stdout ends the process quietly with 141 (128 + SIGPIPE).
#[test]
fn a_closed_stdout_ends_the_process_quietly() {
    for args in [
        &["list"][..],
        &["show", "calls/unknown-tool-with-no-tools-registered"],
        &["run", "--run", "calls/unknown-tool-*", "-q"],
        &[
            "run",
            "--run",
            "calls/unknown-tool-*",
            "-q",
            "--format",
            "json",
        ],
    ] {
        let mut child = bin()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // `| head -0`: the reader is gone before the first write
        let o = child.wait_with_output().unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(141), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// Row 12: a reply of 100,000 results (the issue had a million; the bound is 1024), a 200 KiB implementation name and a baseline of
/// 200,000 unknown ids each print a bounded report.
#[test]
fn huge_replies_names_and_baselines_print_bounded_reports() {
    let dir = tmp("bounded");
    let case = case_file(&dir, "trigger", "t/trigger", false);
    for format in ["terminal", "json", "junit", "markdown"] {
        let o = bin()
            .args(["run", "--harness", &adapter("many-results"), "--case-file"])
            .arg(&case)
            .args(["-q", "--timeout", "120", "--format", format])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{format}");
        assert!(
            o.stdout.len() < 64 * 1024,
            "{format}: {} bytes",
            o.stdout.len()
        );
        assert!(text(&o.stdout).contains("over the runner"), "{format}");
    }
    let o = run(&[
        "run",
        "--harness",
        &adapter("long-name"),
        "--run",
        "calls/unknown-tool-*",
        "-q",
    ]);
    let out = text(&o.stdout);
    assert!(out.contains("implementation: NNNN"), "{out}");
    assert!(out.contains("(cut: 204800 chars in all)"), "{out}");
    assert!(out.len() < 32 * 1024, "{} bytes", out.len());
    let baseline = dir.join("huge-baseline.json");
    let entries: serde_json::Map<String, serde_json::Value> = (0..200_000)
        .map(|i| (format!("gone/case-{i}"), serde_json::json!({"reason": "r"})))
        .collect();
    std::fs::write(&baseline, serde_json::Value::Object(entries).to_string()).unwrap();
    let o = bin()
        .args(["run", "--run", "calls/unknown-tool-*", "-q", "--baseline"])
        .arg(&baseline)
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert!(err.lines().count() < 40, "{} lines", err.lines().count());
    assert!(err.contains("and 199980 more baseline entries"), "{err}");
}

/// Row 13: a printed reproducer, pasted into a shell, can only run the runner — whatever the
/// case id holds.
#[test]
fn a_pasted_reproducer_can_only_run_the_runner() {
    let dir = tmp("paste");
    let marker = dir.join("PWNED");
    // Run from `dir`: the injected command needs no `/` (an id has exactly one).
    let id = "t/x\ntouch PWNED #\u{1b}[2J".to_owned();
    let case = case_file(&dir, "evil", &id, true);
    let o = bin()
        .args(["run", "--harness", &adapter("ok"), "--case-file"])
        .arg(&case)
        .arg("-q")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    // What a reader selects: from `reproduce: ` to the end of that block.
    let start = out.find("reproduce: ").expect("a reproducer") + "reproduce: ".len();
    let pasted: String = out[start..]
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        !pasted.contains('\n'),
        "the reproducer spans lines: {pasted:?}"
    );
    let shim = dir.join("shim");
    std::fs::create_dir(&shim).unwrap();
    let log = dir.join("ran.log");
    let script = shim.join("harness-conformance");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho ran >> {}\n", log.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", shim.display(), std::env::var("PATH").unwrap());
    for shell in ["sh", "bash"] {
        let _ = std::fs::remove_file(&log);
        let status = Command::new(shell)
            .args(["-c", &pasted])
            .env("PATH", &path)
            .current_dir(&dir)
            .status();
        let Ok(status) = status else { continue };
        assert!(status.success(), "{shell}: {pasted}");
        assert!(
            !marker.exists(),
            "{shell} ran the injected command: {pasted}"
        );
        assert_eq!(
            std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .count(),
            1,
            "{shell}: {pasted}"
        );
    }
}

/// Row 14: a small case file whose expansion would be huge is BUG IN CASE at once, before
/// anything is allocated (here under a 1.5 GiB address-space limit; the old runner allocated
/// 2.4 GiB for it).
#[test]
fn a_case_that_expands_too_far_is_a_bug_in_case_at_once() {
    let dir = tmp("expansion");
    let part = serde_json::json!({"repeat": "\u{1F600}", "size": 200_000_000u64});
    let case = serde_json::json!({
        "id": "t/amplified", "requirements": ["CAP-1"], "description": "a few hundred bytes",
        "config": {"cap": {"limit": 1000, "unit": "chars", "strategy": "head_tail"}},
        "tools": [{"name": "t", "input_schema": {"type": "object"},
                   "behavior": {"return": {"generate": {"concat": [part.clone(), part.clone(), part]}}}}],
        "calls": [{"id": "toolu_1", "name": "t", "input": {}}],
        "expect": {"results": [{"is_error": false}]}
    });
    let path = dir.join("amplified.json");
    std::fs::write(&path, case.to_string()).unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() < 600);
    let o = Command::new("sh")
        .args([
            "-c",
            "ulimit -v 1572864 && exec \"$0\" \"$@\"",
            env!("CARGO_BIN_EXE_harness-conformance"),
            "run",
            "--case-file",
        ])
        .arg(&path)
        .arg("-q")
        .output()
        .unwrap();
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}{}", text(&o.stderr));
    assert!(out.contains("BUG IN CASE t/amplified"), "{out}");
    assert!(
        out.contains("bytes, over the limit of 268435456 bytes"),
        "{out}"
    );
}

/// No hostile case file or adapter makes the runner panic (exit 101): each ends with a verdict
/// or a clear error.
#[test]
fn hostile_inputs_never_panic() {
    let dir = tmp("no-panic");
    let tool = |behavior: serde_json::Value| serde_json::json!({"name": "t", "input_schema": {"type": "object"}, "behavior": behavior});
    let with = |tools: Vec<serde_json::Value>, expect: serde_json::Value| {
        serde_json::json!({
            "id": "t/hostile", "requirements": ["OUT-1"], "description": "hostile",
            "tools": tools,
            "calls": [{"id": "toolu_1", "name": "t", "input": {}}],
            "expect": {"results": [expect]}
        })
    };
    let ok = serde_json::json!({"return": {"text": "ok"}});
    let max = u64::MAX;
    let cases = [
        with(
            vec![tool(serde_json::json!({"sleep_ms": max, "then": ok}))],
            serde_json::json!({}),
        ),
        with(
            vec![
                tool(serde_json::json!({"sleep_ms": max / 2, "then": ok})),
                serde_json::json!({"name": "u", "input_schema": {"type": "object"}, "behavior": {"sleep_ms": max / 2, "then": ok}}),
            ],
            serde_json::json!({}),
        ),
        with(
            vec![tool(
                serde_json::json!({"return": {"generate": {"repeat": "a", "size": {"cap": 1e308, "plus": i64::MAX}}}}),
            )],
            serde_json::json!({}),
        ),
        with(
            vec![tool(
                serde_json::json!({"return": {"generate": {"repeat": "a", "size": {"cap": -1.0, "plus": i64::MIN}}}}),
            )],
            serde_json::json!({}),
        ),
        with(
            vec![tool(
                serde_json::json!({"return": {"generate": {"lines": {"size": max, "width": max, "last": ""}}}}),
            )],
            serde_json::json!({}),
        ),
        with(
            vec![tool(
                serde_json::json!({"return": {"generate": {"repeat": "", "size": 5}}}),
            )],
            serde_json::json!({}),
        ),
        with(
            vec![tool(ok.clone())],
            serde_json::json!({"content": {"max_chars": max}}),
        ),
        with(
            vec![tool(ok.clone())],
            serde_json::json!({"content": {"matches": "(((((a{1000}){1000}){1000})))"}}),
        ),
        with(
            vec![tool(ok.clone())],
            serde_json::json!({"content": {"matches": "("}}),
        ),
        with(
            vec![tool(ok.clone())],
            serde_json::json!({"tool_use_id": "\u{0}\u{1b}\u{202e}"}),
        ),
    ];
    let mut files: Vec<PathBuf> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let p = dir.join(format!("case-{i}.json"));
        std::fs::write(&p, case.to_string()).unwrap();
        files.push(p);
    }
    // Not JSON, a deeply nested value, a non-UTF-8 file.
    let raw: [&[u8]; 3] = [b"{\"id\": ", &[b'['; 100_000], &[0xff, 0xfe, b'{']];
    for (i, bytes) in raw.iter().enumerate() {
        let p = dir.join(format!("raw-{i}.json"));
        std::fs::write(&p, bytes).unwrap();
        files.push(p);
    }
    for f in &files {
        let o = bin()
            .args(["run", "--case-file"])
            .arg(f)
            .args(["-q", "--timeout", "5", "--max-time", "60"])
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_ne!(o.status.code(), Some(101), "{}: {err}", f.display());
        assert!(!err.contains("panicked"), "{}: {err}", f.display());
        assert!(
            o.status.code().is_some(),
            "{}: killed by a signal",
            f.display()
        );
    }
    let trigger = case_file(&dir, "trigger", "t/trigger", false);
    for mode in [
        "garbage",
        "partial",
        "two-answers",
        "wrong-id",
        "crash",
        "many-results",
        "huge-hello",
        "hostile-text",
        "hostile-markdown",
        "long-name",
        "typo-keyword",
        "exit-handshake",
    ] {
        for format in ["terminal", "json", "junit", "markdown"] {
            let o = bin()
                .args(["run", "--harness", &adapter(mode), "--case-file"])
                .arg(&trigger)
                .args(["-q", "--timeout", "20", "--format", format])
                .output()
                .unwrap();
            let err = text(&o.stderr);
            assert!(
                matches!(o.status.code(), Some(0..=2)),
                "{mode} {format}: {:?}: {err}",
                o.status
            );
            assert!(!err.contains("panicked"), "{mode} {format}: {err}");
        }
    }
}

// ── hostile input, round 2 (issue 28): case directories, saved reports, matrix sources,
// snapshots and processes. Bounds are proven by counts, sizes and error codes; the one guard
// on time (`output_within`) is a hang detector with a margin of many times the expected run. ──

/// Runs `cmd` to completion, or kills it and fails the test after `limit` (a hang).
fn output_within(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let until = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {limit:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: out_reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    }
}

/// N1: a case directory whose links point at itself is an error naming the link, at once
/// (the walk followed them: still running at 60 s, 657 MiB and growing).
#[test]
fn case_directory_links_to_itself_are_refused() {
    let dir = tmp("loop");
    let cases = dir.join("c");
    std::fs::create_dir(&cases).unwrap();
    case_file(&cases, "one", "t/one", false);
    std::os::unix::fs::symlink(".", cases.join("a")).unwrap();
    std::os::unix::fs::symlink(".", cases.join("b")).unwrap();
    let o = output_within(
        bin().args(["run", "-q", "--cases"]).arg(&cases),
        Duration::from_secs(60),
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is a symbolic link; refusing to follow it"),
        "{err}"
    );
}

/// N13: a link inside a case directory to a case outside it is refused; the outside case
/// never runs.
#[test]
fn case_directory_links_out_are_refused_and_nothing_outside_runs() {
    let dir = tmp("link-out");
    let outside = dir.join("outside");
    std::fs::create_dir(&outside).unwrap();
    case_file(&outside, "x", "outside/escaped-case", false);
    let cases = dir.join("cases");
    std::fs::create_dir(&cases).unwrap();
    case_file(&cases, "one", "t/one", false);
    std::os::unix::fs::symlink("../outside", cases.join("evil")).unwrap();
    let o = output_within(
        bin().args(["run", "--cases"]).arg(&cases),
        Duration::from_secs(60),
    );
    let all = text(&o.stdout) + &text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{all}");
    assert!(all.contains("evil: is a symbolic link"), "{all}");
    assert!(!all.contains("outside/escaped-case"), "{all}");
}

/// N6: a case directory of more entries than a walk looks at is an error before any file is
/// read (100,000 files took 75 s and 493 MiB); at the bound, two files with one id are still
/// found (in a hash map, not by comparing every pair).
#[test]
fn case_directories_past_the_entry_bound_are_refused() {
    let dir = tmp("many-files");
    let cases = dir.join("cases");
    std::fs::create_dir(&cases).unwrap();
    for i in 0..10_001 {
        case_file(&cases, &format!("c{i:05}"), &format!("t/c{i}"), false);
    }
    let o = output_within(
        bin().args(["run", "-q", "--cases"]).arg(&cases),
        Duration::from_secs(120),
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("holds more than 10000 entries"), "{err}");
    // At the bound: 10,000 case files, the last two with one id.
    std::fs::remove_file(cases.join("c10000.json")).unwrap();
    case_file(&cases, "c09999", "t/c9998", false);
    let o = output_within(
        bin().args(["run", "-q", "--cases"]).arg(&cases),
        Duration::from_secs(300),
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("c09999.json: case id \"t/c9998\" is also the id of"),
        "{err}"
    );
}

/// A case file, its stored snapshot at `snaps`, recorded with an adapter that answers `ok`.
fn record_against(case: &Path, snaps: &Path, extra: &[&str]) -> Output {
    output_within(
        bin()
            .args(["run", "--harness", &adapter("ok"), "--case-file"])
            .arg(case)
            .arg("--snapshots")
            .arg(snaps)
            .args(["-q", "--max-time", "60"])
            .args(extra),
        Duration::from_secs(180),
    )
}

/// N2: a stored snapshot of 150,000 lines is diffed under a deadline (a 200,000-line one took
/// 95 s: the diff had none), and one over the stored-file bound is not diffed at all.
#[test]
fn snapshot_diffs_stop_at_their_deadline_and_huge_stored_files_are_not_diffed() {
    let dir = tmp("snap-diff");
    let case = case_file(&dir, "one", "t/diffed", false);
    let snaps = dir.join("snaps");
    std::fs::create_dir(&snaps).unwrap();
    let stored = snaps.join("conformance__t__diffed.snap");
    let mut big = String::from("---\nsource: x\nexpression: results of t/diffed\n---\n");
    for i in 0..150_000 {
        big.push_str(&format!("│ {i}\n"));
    }
    assert!(big.len() < 2 * 1024 * 1024);
    std::fs::write(&stored, &big).unwrap();
    let o = record_against(&case, &snaps, &[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("the diff reached its time limit"), "{err}");
    assert!(err.lines().count() < 200, "{} lines", err.lines().count());
    // Over the stored-file bound: changed, never read whole nor diffed.
    let huge = "│ x\n".repeat(600_000);
    std::fs::write(&stored, format!("---\nsource: x\n---\n{huge}")).unwrap();
    let o = record_against(&case, &snaps, &[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("the stored snapshot is over the limit of 2097152 bytes"),
        "{err}"
    );
    assert!(err.contains("not compared line by line"), "{err}");
}

/// N3: the checks over a large answer are linear in it: a case with a 1 MiB base64 image and a
/// check that no payload reached the text, answered with a 4 MiB text, is judged within its
/// time limit (the check searched the text once per 16-byte run of the payload: 17.9 s for the
/// issue's reproducer, far longer here).
#[test]
fn checks_over_a_large_answer_finish_within_the_runs_time() {
    let dir = tmp("image");
    let payload = "QUJD".repeat(256 * 1024);
    let case = serde_json::json!({
        "id": "t/image", "requirements": ["MCP-3"], "description": "a 1 MiB image",
        "tools": [{"name": "t", "input_schema": {"type": "object"},
                   "behavior": {"return": {"mcp_result": {"content": [
                       {"type": "text", "text": "see"},
                       {"type": "image", "data": payload, "mimeType": "image/png"}]}}}}],
        "calls": [{"id": "toolu_1", "name": "t", "input": {}}],
        "expect": {"results": [{"blocks": {"no_payload_text": true}}],
                   "blame": {"blocks": "MCP-3"}}
    });
    let path = dir.join("image.json");
    std::fs::write(&path, case.to_string()).unwrap();
    let o = output_within(
        bin()
            .args(["run", "--harness", &adapter("big-text"), "--case-file"])
            .arg(&path)
            .args(["-q", "--timeout", "20", "--max-time", "60"]),
        Duration::from_secs(180),
    );
    let out = text(&o.stdout);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{out}{}",
        text(&o.stderr)
    );
    assert!(!out.contains("time limit"), "{out}");
    assert!(out.contains("1 case(s)"), "{out}");
}

/// A saved JSON report of `--run SELECTION` against the `ok` adapter (most cases FAIL).
fn saved_report(dir: &Path, selection: &str) -> PathBuf {
    let path = dir.join("saved.json");
    let o = bin()
        .args(["run", "--harness", &adapter("ok"), "--run", selection, "-q"])
        .args(["--format", "json", "-o"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(path.exists(), "{}", text(&o.stderr));
    path
}

/// N4: `matrix --from` with more reports than a matrix has columns is an error before any is
/// read (4,000 reports named `é.json`, `è.json`, … took 23 s: slugs were numbered by searching
/// every earlier one; `site::tests::colliding_names_get_distinct_slugs` holds the linear
/// numbering).
#[test]
fn matrix_sources_past_the_column_bound_are_refused() {
    let dir = tmp("many-reports");
    let report = std::fs::read(saved_report(&dir, "calls/unknown-tool-*")).unwrap();
    let from = dir.join("from");
    std::fs::create_dir(&from).unwrap();
    for i in 0..300u32 {
        let name: String = char::from_u32(0xE0 + i % 32)
            .unwrap()
            .to_string()
            .repeat(1 + i as usize / 32);
        std::fs::write(from.join(format!("{name}.json")), &report).unwrap();
    }
    let o = matrix_from(&dir, &from, &[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("300 saved reports; a matrix has at most 256 columns"),
        "{err}"
    );
    assert!(!dir.join("m.md").exists());
}

/// `matrix --from FROM` writing its outputs under `dir`.
fn matrix_from(dir: &Path, from: &Path, extra: &[&str]) -> Output {
    output_within(
        bin()
            .args(["matrix", "--from"])
            .arg(from)
            .args(extra)
            .arg("--markdown")
            .arg(dir.join("m.md"))
            .arg("--site")
            .arg(dir.join("site")),
        Duration::from_secs(120),
    )
}

/// The lines of a saved report: start, cases, summary.
fn report_lines(path: &Path) -> (String, Vec<String>, String) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let summary = lines.pop().unwrap();
    let start = lines.remove(0);
    (start, lines, summary)
}

/// `n` copies of a case line, each with its own id in the grammar.
fn copies(line: &str, n: usize) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    let id = v["id"].as_str().unwrap().to_owned();
    (0..n)
        .map(|i| {
            line.replacen(
                &format!("\"id\":\"{id}\""),
                &format!("\"id\":\"copies/case-{i}\""),
                1,
            )
        })
        .collect()
}

/// N5: a saved report of more cases than any run writes is refused with a code (a 10 MB
/// report of 25,000 case ids took 85 s in `matrix --from`: each cell searched every outcome).
#[test]
fn saved_reports_of_too_many_cases_are_refused() {
    let dir = tmp("many-cases");
    let path = saved_report(&dir, "calls/unknown-tool-*");
    let (start, cases, summary) = report_lines(&path);
    let mut lines = vec![start];
    lines.extend(copies(&cases[0], 25_000));
    lines.push(summary);
    let from = dir.join("from");
    std::fs::create_dir(&from).unwrap();
    std::fs::write(from.join("big.json"), lines.join("\n") + "\n").unwrap();
    let o = matrix_from(&dir, &from, &[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("[report.too-many-cases]"), "{err}");
}

/// N7, N8: a saved report's reproducer is rebuilt from its words, never copied: a forged one
/// (a newline, a forged `result: ok`, a second command; or 256 KiB of it over 2,000 FAILs,
/// which printed 501 MB) is refused in every format, and nothing of it is printed.
#[test]
fn forged_reproducers_in_saved_reports_are_refused_not_printed() {
    let dir = tmp("forged");
    let path = saved_report(&dir, "calls/unknown-tool-*");
    let (start, cases, summary) = report_lines(&path);
    let forge = |reproduce: &str, n: usize| {
        let mut v: serde_json::Value = serde_json::from_str(&start).unwrap();
        v["reproduce"] = serde_json::json!(reproduce);
        let fail = cases
            .iter()
            .find(|l| l.contains("\"verdict\":\"FAIL\""))
            .expect("a FAIL");
        let mut lines = vec![v.to_string()];
        lines.extend(copies(fail, n));
        lines.push(summary.clone());
        let p = dir.join(format!("forged-{n}.json"));
        std::fs::write(&p, lines.join("\n") + "\n").unwrap();
        p
    };
    let injected = forge(
        "harness-conformance run --run X\nresult: ok\ntouch pwned #",
        3,
    );
    let huge = forge(
        &format!("harness-conformance run --run {}", "A".repeat(256 * 1024)),
        2000,
    );
    for file in [&injected, &huge] {
        for format in ["terminal", "markdown", "html", "json", "junit"] {
            let o = output_within(
                bin().arg("report").arg(file).args(["--format", format]),
                Duration::from_secs(120),
            );
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{format}: {err}");
            assert!(err.contains("[report.bad-reproducer]"), "{format}: {err}");
            assert!(o.stdout.is_empty(), "{format}: {} bytes", o.stdout.len());
            assert!(!err.contains("touch pwned") && err.len() < 4096, "{err}");
        }
    }
    // A valid report of 2,000 FAILs prints output in proportion to it.
    let (start_ok, ..) = report_lines(&path);
    let v: serde_json::Value = serde_json::from_str(&start_ok).unwrap();
    let fails = forge(v["reproduce"].as_str().unwrap(), 2000);
    let size = std::fs::metadata(&fails).unwrap().len() as usize;
    for format in ["terminal", "markdown", "html"] {
        let o = output_within(
            bin().arg("report").arg(&fails).args(["--format", format]),
            Duration::from_secs(120),
        );
        assert_eq!(o.status.code(), Some(0), "{format}: {}", text(&o.stderr));
        assert!(
            o.stdout.len() < 4 * size,
            "{format}: {} bytes from {size}",
            o.stdout.len()
        );
    }
}

/// N9: a hello listing 45,000 names (under the hello's byte bound) fails the handshake with one
/// short message (each unknown name was a line of it: a 34 MB JSON report).
#[test]
fn a_hello_of_too_many_names_fails_the_handshake_with_a_bounded_report() {
    let o = output_within(
        bin().args([
            "run",
            "--harness",
            &adapter("many-names"),
            "-q",
            "--format",
            "json",
        ]),
        Duration::from_secs(120),
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(2), "a run that could not judge");
    assert!(out.len() < 1024 * 1024, "{} bytes", out.len());
    assert!(
        out.contains("capabilities.keywords holds 45000 names, over the runner's limit of 256"),
        "{:.2000}",
        out
    );
}

/// A saved report with its `suite` replaced by `suite`.
fn with_suite(path: &Path, suite: &str) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut v: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    v["suite"] = serde_json::json!(suite);
    lines[0] = v.to_string();
    lines.join("\n") + "\n"
}

/// N10: `suite` strings in matrix sources are versions or the report is refused (20 reports
/// with distinct 250 KiB versions printed 4.9 MB on stderr, and made a 109 MB site).
#[test]
fn matrix_sources_with_huge_suite_strings_are_refused_with_a_bounded_message() {
    let dir = tmp("suite-strings");
    let path = saved_report(&dir, "calls/unknown-tool-*");
    let from = dir.join("from");
    std::fs::create_dir(&from).unwrap();
    for i in 0..20 {
        let suite = format!("1.0.{i}-{}", "x".repeat(250 * 1024));
        std::fs::write(from.join(format!("r{i}.json")), with_suite(&path, &suite)).unwrap();
    }
    for extra in [&[][..], &["--allow-mixed-versions"]] {
        let o = matrix_from(&dir, &from, extra);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err:.2000}");
        assert!(err.contains("[report.bad-suite-version]"), "{err:.2000}");
        assert!(err.len() < 4096, "{} bytes on stderr", err.len());
    }
    assert!(!dir.join("site").exists());
}

/// N11: an adapter answering every case with a thousand distinct 2.5 KB results (2.49 GiB of
/// `.snap.new` over the suite; 2.5 MB a case, and 30 MiB of RSS kept per case) writes none of
/// it: more results than calls + 16 is a protocol error, and no snapshot body exceeds 1 MiB
/// (`snapshot::tests::a_body_of_many_results_is_cut_to_its_bound`; the run's own budget:
/// `store::tests::a_run_writes_at_most_its_budget_of_snap_new`).
#[test]
fn replies_of_a_thousand_results_write_no_snapshot() {
    let dir = tmp("snap-flood");
    let snaps = dir.join("snaps");
    let o = output_within(
        bin()
            .args([
                "run",
                "--harness",
                &adapter("many-texts"),
                "--run",
                "calls/unknown-tool-*",
                "-q",
                "--snapshots",
            ])
            .arg(&snaps),
        Duration::from_secs(300),
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("over the runner's limit of 17 results for this case"),
        "{out}"
    );
    let written: u64 = std::fs::read_dir(&snaps)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(written < 64 * 1024, "{written} bytes of snapshots");
}

/// N12: `matrix.md` carries no HTML from an adapter's implementation name.
#[test]
fn matrix_markdown_never_carries_adapter_html() {
    use pulldown_cmark::{Event, Parser, Tag};
    let dir = tmp("matrix-html");
    let md = dir.join("m.md");
    let o = output_within(
        bin()
            .args([
                "matrix",
                "--harness",
                &format!("evil={}", adapter("hostile-markdown")),
                "--run",
                "calls/unknown-tool-*",
                "--markdown",
            ])
            .arg(&md)
            .arg("--site")
            .arg(dir.join("site")),
        Duration::from_secs(120),
    );
    assert!(md.exists(), "{}", text(&o.stderr));
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.contains("onerror"), "the name is shown: {text}");
    for event in Parser::new(&text) {
        match event {
            // `<br>` is the escaping's own line break (a newline in adapter text).
            Event::Html(h) | Event::InlineHtml(h) if &*h != "<br>" => {
                panic!("raw HTML in matrix.md: {h:?}")
            }
            Event::Start(Tag::Image { dest_url, .. }) => panic!("an image: {dest_url}"),
            Event::Start(Tag::Link { dest_url, .. }) => panic!("a link: {dest_url}"),
            _ => {}
        }
    }
    assert!(!text.lines().any(|l| l.starts_with("# Injected")), "{text}");
}

/// N14: a case file's id with a C1 or bidi character reaches the `.snap.new` header escaped.
#[test]
fn snapshot_headers_carry_no_raw_control_or_bidi_character() {
    let dir = tmp("snap-header");
    let case = case_file(&dir, "one", "t/x\u{9b}31m\u{202e}gpj.exe", false);
    let snaps = dir.join("snaps");
    let o = record(&case, &snaps);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let new: Vec<PathBuf> = std::fs::read_dir(&snaps)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".snap.new"))
        .collect();
    assert_eq!(new.len(), 1, "{new:?}");
    let written = std::fs::read_to_string(&new[0]).unwrap();
    assert_no_raw_controls("the .snap.new", &written);
    assert!(written.contains("u{202e}gpj.exe"), "{written}");
}

/// N15: a double fork's grandchild, holding the adapter's stdin and nothing else, with no
/// parent, group or session left in common with the adapter, is found at the end of the case
/// that made it, killed, and reported in that case's ERROR (it survived, unreported).
#[test]
fn a_double_forked_orphan_is_ended_with_its_case_and_reported() {
    if !Path::new("/proc/self/task").exists() {
        return; // found through /proc (Linux)
    }
    let dir = tmp("double-fork");
    let case = case_file(&dir, "trigger", "t/trigger", false);
    let orphans = dir.join("orphans");
    let cmd = format!(
        "HC_PIDFILE={} {}",
        orphans.display(),
        adapter("double-fork")
    );
    let o = output_within(
        bin()
            .args(["run", "--harness", &cmd, "--case-file"])
            .arg(&case)
            .args(["-q", "--timeout", "20"]),
        Duration::from_secs(120),
    );
    let found = pids(&orphans);
    let survivors: Vec<u32> = found.iter().copied().filter(|&p| !dead(p)).collect();
    for &p in &survivors {
        if let Some(pid) = rustix::process::Pid::from_raw(p as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
    let out = text(&o.stdout);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        survivors.is_empty(),
        "the orphan {survivors:?} outlived its case"
    );
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("adapter_left_process"), "{out}");
    assert!(out.contains(&format!("pid {}", found[0])), "{out}");
}

/// Issue 29: the site shows a hello's implementation (name, language, version, links) and its
/// capabilities, and an adapter's skip and error reasons. An adapter whose every such string is
/// HTML that would run script gets none of it into any page as markup, and none of its links
/// (`javascript:`, `data:`, a URL that breaks out of its attribute) made live.
#[test]
fn a_hostile_hello_becomes_no_markup_on_the_site() {
    let dir = tmp("hostile-html-site");
    let site = dir.join("site");
    let o = output_within(
        bin()
            .args(["matrix", "--harness"])
            .arg(format!("evil={}", adapter("hostile-html")))
            .args(["--run", "validation/*", "--markdown"])
            .arg(dir.join("m.md"))
            .arg("--site")
            .arg(&site),
        Duration::from_secs(120),
    );
    assert_ne!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let mut pages = 0;
    for name in [
        "index.html",
        "harness/evil.html",
        "data/evil.js",
        "data/cases.js",
    ] {
        let page = std::fs::read_to_string(site.join(name)).unwrap();
        pages += 1;
        for raw in [
            "<script>alert",
            "<img src=x",
            "<svg onload",
            "href=\"javascript:",
            "href=\"data:",
            "\"onmouseover=\"alert",
        ] {
            assert!(!page.contains(raw), "{name} has {raw:?} raw");
        }
        // Every <script> on a page is the site's own, loaded from its folder, and empty.
        if name.ends_with(".html") {
            let scripts: Vec<&str> = page
                .match_indices("<script")
                .map(|(i, _)| &page[i..])
                .collect();
            for s in &scripts {
                assert!(
                    s.starts_with("<script src=\"site.js\"></script>")
                        || s.starts_with("<script src=\"../site.js\"></script>"),
                    "{name}: {}",
                    &s[..s.len().min(80)]
                );
            }
        }
    }
    let page = std::fs::read_to_string(site.join("harness/evil.html")).unwrap();
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the name is shown, as text"
    );
    assert!(
        page.contains("javascript:alert(6)") && page.contains("not an http(s) URL"),
        "a script link is shown as text, said not to be a link"
    );
    assert_eq!(pages, 4);
}
