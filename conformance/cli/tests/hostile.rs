//! The command line against hostile adapters and hostile input (issue 12): each test is one
//! row of the issue — what a hostile adapter author, case file or baseline tried, and what the
//! runner must do instead. The adapters are `driver/tests/misbehaving/adapter.py MODE`.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

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
    assert_eq!(o.status.code(), Some(1));
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
