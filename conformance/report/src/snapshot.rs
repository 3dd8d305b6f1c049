//! Wording snapshots: the model-visible content of every case's results, as insta `.snap` files.
//!
//! The wording a model reads is behaviour: when a harness's message for a missing field changes,
//! the model's next move changes. `harness-conformance run --snapshots <dir>` records, per case,
//! what the model would be shown (each result's id, `is_error`, code, retryability and content)
//! in a file `cargo insta` can read and review, compares it with the stored one, and writes a
//! `.snap.new` beside it when they differ — so a wording change shows up in review like a code
//! change. `docs/wording.md` is the user guide.
//!
//! This module is pure (rendering, filters, parsing, comparison, diffs); [`store`] does the
//! file I/O (the one module of this crate that does), as the driver crate does the process I/O.
//!
//! ## The file format (insta's)
//!
//! ```text
//! ---
//! source: conformance/cases/teaching/names-the-missing-property.json
//! description: The model omits a required field; the message names it.
//! expression: results of teaching/names-the-missing-property
//! ---
//! result 1 of 1 · tool_use_id: "toolu_01" · is_error: true · code: invalid_arguments · retryable: false
//! │ invalid arguments for tool "get_weather": /city: expected string (required field), got nothing
//! └─
//! ```
//!
//! The header is the YAML insta writes (keys in insta's order, scalars quoted exactly when
//! insta's emitter quotes them), so `cargo insta accept` rewrites an accepted file byte for byte
//! as this module wrote it. The body has one block per result: a header line, every content line
//! prefixed with `│ ` (an empty line is `│`), and `└─` closing the block, so trailing newlines and
//! blank lines in content stay visible and exact. Control characters other than `\n` and `\t`,
//! and invisible format characters (BOM, zero-width, bidi controls, line/paragraph separators),
//! are written as `\u{…}`. A harness that returns a different number of results than there were
//! calls gets a first line saying so. Values that legitimately vary between runs are replaced by
//! [`FILTERS`] before anything is compared.
//!
//! ## Snapshots stay small
//!
//! A content longer than [`MAX_CONTENT_BYTES`] (after filtering) is stored as its first
//! [`HEAD_BYTES`] and last [`TAIL_BYTES`] with one line between them that gives the size of the
//! whole and its SHA-256 — an uncapped harness's 2 MB tool output becomes a 12 KiB snapshot, and
//! a change anywhere in the middle still changes the digest, so it is still caught. Diffs
//! ([`diff`]) show a long line only around its first change ([`DIFF_LINE_CHARS`]).
//!
//! ## Snapshot files are hostile input
//!
//! A snapshot directory is committed in the repository a pull request changes, so what the
//! runner reads from it and writes into it is bounded like an adapter's reply: a whole body
//! longer than [`MAX_BODY_BYTES`] (a thousand results of a few KiB each) is cut the same way a
//! long content is; a stored `.snap` is read up to [`MAX_STORED_BYTES`] and one past it is
//! "changed" without a line diff; a diff stops at its deadline ([`diff_until`],
//! [`MAX_DIFF_TIME`]) and shows what it has; and the header's strings (a case id or a
//! description from a case file) are written with every control and disguising character as a
//! visible `\u{…}`, so no C1 or bidi character reaches a file a reviewer opens.

pub mod store;

use std::sync::LazyLock;

use harness_conformance_protocol::ObservedResult;
use regex::{Captures, Regex};

/// The module part of every snapshot file name (`conformance__<area>__<fault-name>.snap`).
pub const PREFIX: &str = "conformance";

/// The extension of a stored snapshot.
pub const EXT: &str = "snap";

/// The extension of a snapshot waiting for review.
pub const NEW_EXT: &str = "snap.new";

/// One normalisation applied to the body before comparison.
#[derive(Debug)]
pub struct Filter {
    /// What it replaces, for the docs and `--help`.
    pub name: &'static str,
    /// The placeholder written instead.
    pub placeholder: &'static str,
    /// An example of what it matches.
    pub example: &'static str,
    regex: Regex,
    /// When set, a match is replaced only if this accepts it (keeps false positives out).
    accept: Option<fn(&str) -> bool>,
    /// The regex can only match text holding one of these (a cheap test before the regex).
    hint: &'static [&'static str],
}

/// Characters that may precede a path (so `/tmp` inside a word or a JSON pointer is left alone).
/// A filter's `lead` group is kept; only the rest of the match (or its `v` group) is replaced.
const PATH_LEAD: &str = r#"(?P<lead>^|[\s"'`(\[{=:,])"#;
/// Characters a path runs over.
const PATH_BODY: &str = r#"[^\s"'`<>()\[\]{},;]*"#;

fn hex_id(s: &str) -> bool {
    let digits = s.bytes().any(|b| b.is_ascii_digit());
    let letters = s.bytes().any(|b| b.is_ascii_alphabetic());
    let mut distinct: Vec<u8> = s.bytes().collect();
    distinct.sort_unstable();
    distinct.dedup();
    digits && letters && distinct.len() >= 6
}

fn generated_id(s: &str) -> bool {
    // `toolu_01…` and `call_…` ids the suite itself sends are short; generated ones are long
    // and mix digits with letters.
    let tail = s.split_once('_').map_or(s, |(_, t)| t);
    tail.bytes().any(|b| b.is_ascii_digit()) && tail.bytes().any(|b| b.is_ascii_alphabetic())
}

/// The documented filters, applied in this order (`docs/wording.md` lists them).
pub static FILTERS: LazyLock<Vec<Filter>> = LazyLock::new(|| {
    let f = |name, placeholder, example, re: &str, accept, hint| Filter {
        name,
        placeholder,
        example,
        regex: Regex::new(re).expect("filter regexes compile"),
        accept,
        hint,
    };
    vec![
        f(
            "temporary paths (Unix /tmp, /var/tmp, macOS /var/folders, Windows …\\Temp\\…)",
            "[PATH]",
            "/tmp/pytest-of-ci/pytest-3/handler.py",
            &format!(r"{PATH_LEAD}(?:/private)?/(?:tmp|var/tmp|var/folders)(?-u:\b)(?:/{PATH_BODY})?"),
            None,
            &["/tmp", "/var/"],
        ),
        f(
            "temporary paths (Windows)",
            "[PATH]",
            r"C:\Users\ci\AppData\Local\Temp\tmpa1b2\x.py",
            &format!(r"{PATH_LEAD}[A-Za-z]:\\(?:[^\s\\]+\\)*?(?:Temp|tmp)\\{PATH_BODY}"),
            None,
            &[":\\"],
        ),
        f(
            "timestamps (ISO 8601 / RFC 3339)",
            "[TIMESTAMP]",
            "2026-11-30T00:12:09.123Z",
            r"(?-u:\b)[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?",
            None,
            &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
        ),
        f(
            "UUIDs",
            "[ID]",
            "3f2b8c1e-9a4d-4e6f-8b1a-2c3d4e5f6a7b",
            r"(?i)(?-u:\b)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?-u:\b)",
            None,
            &["-"],
        ),
        f(
            "generated call, message and request ids (a known prefix, then 16+ mixed letters and digits)",
            "[ID]",
            "toolu_01A09q90qw90lq917835lq9x / call_Hq8cS3dUTHmXWpQW2vd1Fx7b",
            r"(?-u:\b)(?:toolu|call|fc|chatcmpl|msg|req|run|resp)_[A-Za-z0-9]{16,}(?-u:\b)",
            Some(generated_id),
            &["_"],
        ),
        f(
            "long hexadecimal ids (32 to 64 hex digits mixing letters and digits, alone or after `_`: trace ids, hashes, pydantic-ai's `pyd_ai_…` call ids)",
            "[ID]",
            "4bf92f3577b34da6a3ce929d0e0e4736 / pyd_ai_d8ed9cc72f7746d899baea2faac9b52c",
            r"(?P<lead>^|[^0-9A-Za-z])(?P<v>[0-9a-fA-F]{32,64})(?-u:\b)",
            Some(hex_id),
            &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
        ),
        f(
            "memory addresses (0x followed by 6 to 16 hex digits)",
            "[ADDR]",
            "<function handler at 0x7ffd5e8c1a40>",
            r"(?-u:\b)0x[0-9a-fA-F]{6,16}(?-u:\b)",
            None,
            &["0x"],
        ),
        f(
            "process ids (`pid 1234`, `pid=1234`, `process 1234`)",
            "[PID]",
            "worker pid=48213 exited",
            r"(?i)(?P<lead>(?-u:\b)(?:pid|process)[ =:#]+)[0-9]+(?-u:\b)",
            None,
            &["pid", "PID", "Pid", "rocess", "ROCESS"],
        ),
        f(
            "durations (a number with a time unit: ns, µs, us, ms, s, sec(s), second(s), millisecond(s), minute(s))",
            "[DURATION]",
            "timed out after 0.203s / within 50 ms",
            r"(?-u:\b)[0-9]+(?:\.[0-9]+)?\s?(?:ns|µs|μs|us|ms|s|secs?|seconds?|milliseconds?|minutes?)(?-u:\b)",
            None,
            &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
        ),
    ]
});

/// Applies [`FILTERS`] to `text`.
pub fn apply_filters(text: &str) -> String {
    let mut out = text.to_owned();
    for f in FILTERS.iter() {
        if !f.hint.iter().any(|h| out.contains(h)) || !f.regex.is_match(&out) {
            continue;
        }
        out = f
            .regex
            .replace_all(&out, |c: &Captures| {
                let whole = c.get(0).map_or("", |m| m.as_str());
                let lead = c.name("lead").map_or("", |m| m.as_str());
                let value = c.name("v").map_or(&whole[lead.len()..], |m| m.as_str());
                if let Some(accept) = f.accept {
                    if !accept(value) {
                        return whole.to_owned();
                    }
                }
                format!("{lead}{}", f.placeholder)
            })
            .into_owned();
    }
    out
}

/// The snapshot file name for a case id (`teaching/x` → `conformance__teaching__x.snap`).
///
/// Embedded case ids are `[a-z0-9-]+/[a-z0-9-]+`; anything else in an id (from `--case-file`)
/// becomes `_`, and `/` becomes `__`.
pub fn file_name(case_id: &str) -> String {
    let safe: String = case_id
        .split('/')
        .map(|part| {
            part.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("__");
    format!("{PREFIX}__{safe}.{EXT}")
}

/// Whether a character is written as `\u{…}` in the body.
fn escaped(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{FEFF}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// A content longer than this many UTF-8 bytes is stored as head + tail + a digest of the whole.
/// The most a result capped at the reference's default cap can take: 16 Ki units, each up to 4
/// UTF-8 bytes under a chars cap. So a capped result — whose exact cut is what a cap snapshot
/// is about — is always stored whole; only output a harness did not cap is cut.
pub const MAX_CONTENT_BYTES: usize = 64 * 1024;

/// How much of a long content's start a snapshot keeps.
pub const HEAD_BYTES: usize = 8 * 1024;

/// How much of a long content's end a snapshot keeps.
pub const TAIL_BYTES: usize = 4 * 1024;

/// How many chars of a changed line a diff shows (around the first change).
pub const DIFF_LINE_CHARS: usize = 240;

/// The most bytes of one snapshot's body: a reply of up to 1024 results (the runner's bound),
/// each cut at [`MAX_CONTENT_BYTES`], could otherwise make a snapshot of 64 MiB. A longer body
/// is stored as its first [`BODY_HEAD_BYTES`] and last [`BODY_TAIL_BYTES`] around a line with
/// the whole's size and SHA-256, as a long content is.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// How much of a long body's start a snapshot keeps.
pub const BODY_HEAD_BYTES: usize = 256 * 1024;

/// How much of a long body's end a snapshot keeps.
pub const BODY_TAIL_BYTES: usize = 64 * 1024;

/// The most bytes of a stored `.snap` read: a snapshot this module writes is at most
/// [`MAX_BODY_BYTES`] and a header, so a larger stored file cannot match, and is reported as
/// changed without being read further or diffed line by line.
pub const MAX_STORED_BYTES: u64 = 2 * 1024 * 1024;

/// The longest one snapshot diff may take before it shows what it has (and never past the
/// run's `--max-time`). A line diff of two very different files is quadratic in the worst
/// case: a 200,000-line stored snapshot took 95 s without a deadline.
pub const MAX_DIFF_TIME: std::time::Duration = std::time::Duration::from_secs(2);

/// `content` as a snapshot stores it: whole up to [`MAX_CONTENT_BYTES`], else its head and tail
/// (cut at char boundaries) around a line giving the whole's size and SHA-256.
pub fn stored_content(content: &str) -> std::borrow::Cow<'_, str> {
    cut(content, MAX_CONTENT_BYTES, HEAD_BYTES, TAIL_BYTES)
}

/// `content` whole up to `max` bytes, else its first `head` and last `tail` bytes (cut at char
/// boundaries) around a line giving the whole's size and SHA-256.
fn cut(content: &str, max: usize, head: usize, tail: usize) -> std::borrow::Cow<'_, str> {
    use sha2::{Digest, Sha256};
    if content.len() <= max {
        return std::borrow::Cow::Borrowed(content);
    }
    let mut head = head;
    while !content.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = content.len() - tail;
    while !content.is_char_boundary(tail) {
        tail += 1;
    }
    let digest: String = Sha256::digest(content.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    std::borrow::Cow::Owned(format!(
        "{}\n┄ snapshot cut: {} bytes, {} chars, {} lines in all; {} bytes in the middle left out; sha256 of the whole: {digest} ┄\n{}",
        &content[..head],
        content.len(),
        content.chars().count(),
        content.split('\n').count(),
        tail - head,
        &content[tail..]
    ))
}

/// Appends `content` as `│ `-prefixed lines.
fn push_content(out: &mut String, content: &str) {
    if content.is_empty() {
        return;
    }
    for line in content.split('\n') {
        if line.is_empty() {
            out.push_str("│\n");
            continue;
        }
        out.push_str("│ ");
        for c in line.chars() {
            if escaped(c) {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            } else {
                out.push(c);
            }
        }
        out.push('\n');
    }
}

/// The snapshot body for one case: one block per result, contents filtered.
///
/// `call_ids` are the ids the case sent, one per call (None where a call has no string id); a
/// result's `tool_use_id` that is one of them is shown as it is, any other id (one the harness
/// generated) goes through the filters like content does.
pub fn render_body(call_ids: &[Option<&str>], results: &[ObservedResult]) -> String {
    let calls = call_ids.len();
    let mut out = String::new();
    if results.len() != calls {
        out.push_str(&format!("{calls} call(s), {} result(s)\n", results.len()));
    }
    if results.is_empty() {
        out.push_str("no results\n");
    }
    for (i, r) in results.iter().enumerate() {
        let id = serde_json::to_string(&r.tool_use_id).unwrap_or_default();
        let sent = r
            .tool_use_id
            .as_str()
            .is_some_and(|s| call_ids.contains(&Some(s)));
        let id = if sent { id } else { apply_filters(&id) };
        let mut head = format!(
            "result {} of {} · tool_use_id: {} · is_error: {} · code: {}",
            i + 1,
            results.len(),
            one_line(&id),
            r.is_error,
            r.code.as_deref().map_or("none".to_owned(), one_line)
        );
        if let Some(retry) = r.retryable {
            head.push_str(&format!(" · retryable: {retry}"));
        }
        out.push_str(&head);
        out.push('\n');
        if let Some(blocks) = &r.blocks {
            out.push_str(&format!("blocks: {}\n", block_layout(blocks)));
        }
        push_content(&mut out, &stored_content(&apply_filters(&r.content)));
        out.push_str(if r.content.is_empty() {
            "└─ (empty)\n"
        } else {
            "└─\n"
        });
    }
    // insta trims trailing whitespace from a body; the last line is always `└─…`, so nothing
    // of the content is lost.
    cut(
        out.trim_end(),
        MAX_BODY_BYTES,
        BODY_HEAD_BYTES,
        BODY_TAIL_BYTES,
    )
    .into_owned()
}

/// A result's blocks in one line — each kind, with an image's type and payload size and a
/// resource's URI — so a snapshot shows what reached the model besides the text (the text itself
/// is the content below). At most 16 blocks are named.
fn block_layout(blocks: &[harness_conformance_protocol::ContentBlock]) -> String {
    use harness_conformance_protocol::ContentBlock;
    let mut parts: Vec<String> = blocks
        .iter()
        .take(16)
        .map(|b| match b {
            ContentBlock::Text { text } => format!("text ({} chars)", text.chars().count()),
            ContentBlock::Image { data, mime_type } => {
                format!(
                    "image ({}, {} base64 chars)",
                    bounded(mime_type),
                    data.len()
                )
            }
            ContentBlock::Resource { resource } => format!(
                "resource ({}, {})",
                bounded(&resource.uri),
                if resource.text.is_some() {
                    "text"
                } else {
                    "blob"
                }
            ),
            ContentBlock::Audio { data, mime_type } => {
                format!(
                    "audio ({}, {} base64 chars)",
                    bounded(mime_type),
                    data.len()
                )
            }
            ContentBlock::ResourceLink(link) => format!(
                "resource link ({}, {})",
                bounded(&link.uri),
                bounded(&link.name)
            ),
            ContentBlock::SyntheticImage(spec) => {
                format!("synthetic image ({} × {} pixels)", spec.width, spec.height)
            }
        })
        .collect();
    if blocks.len() > 16 {
        parts.push(format!("and {} more", blocks.len() - 16));
    }
    parts.join(", ")
}

/// `one_line`, at most 120 chars (an adapter's MIME type or URI can be any size).
fn bounded(s: &str) -> String {
    let mut out = one_line(&s.chars().take(120).collect::<String>());
    if s.chars().nth(120).is_some() {
        out.push('…');
    }
    out
}

fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if escaped(c) || c == '\n' { ' ' } else { c })
        .collect()
}

/// What a snapshot's header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// Where the case comes from (`conformance/cases/<id>.json`, or the `--case-file` path).
    pub source: String,
    /// The case's description.
    pub description: String,
    /// What the body is (`results of <case id>`).
    pub expression: String,
}

impl Meta {
    /// The header for an embedded case.
    pub fn for_case(case_id: &str, description: &str) -> Meta {
        Meta {
            source: format!("conformance/cases/{case_id}.json"),
            description: description.to_owned(),
            expression: format!("results of {case_id}"),
        }
    }
}

/// The whole `.snap` file: insta's YAML header, `---`, the body, a final newline. The header's
/// strings come from case files (ids, descriptions, paths): every control and disguising
/// character in them (C1, bidi, zero-width; `\n` and `\t` are quoted by YAML) is written as a
/// visible `\u{…}`, and each is bounded to [`crate::escape::MAX_PRINTED_CHARS`].
pub fn render_file(meta: &Meta, body: &str) -> String {
    let field = |s: &str| {
        let bounded = crate::escape::bound(s, crate::escape::MAX_PRINTED_CHARS);
        yaml_scalar(&crate::escape::terminal(&bounded))
    };
    let mut out = String::from("---\n");
    out.push_str(&format!("source: {}\n", field(&meta.source)));
    if !meta.description.is_empty() {
        out.push_str(&format!("description: {}\n", field(&meta.description)));
    }
    out.push_str(&format!("expression: {}\n", field(&meta.expression)));
    out.push_str("---\n");
    out.push_str(body.trim_end());
    out.push('\n');
    out
}

/// A string as insta's YAML emitter writes it: bare when it can be, else double-quoted with
/// insta's escapes (mirrors `need_quotes` and `escape_str` in insta's vendored emitter).
pub fn yaml_scalar(s: &str) -> String {
    if !needs_quotes(s) {
        return s.to_owned();
    }
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn needs_quotes(s: &str) -> bool {
    const WORDS: [&str; 22] = [
        "yes", "Yes", "YES", "no", "No", "NO", "True", "TRUE", "true", "False", "FALSE", "false",
        "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~",
    ];
    s.is_empty()
        || s.starts_with(' ')
        || s.ends_with(' ')
        || s.starts_with(['&', '*', '?', '|', '-', '<', '>', '=', '!', '%', '@'])
        || s.contains(|c: char| {
            matches!(c, ':' | '{' | '}' | '[' | ']' | ',' | '#' | '`' | '"' | '\'' | '\\'
                | '\0'..='\x06' | '\t' | '\n' | '\r' | '\x0e'..='\x1a' | '\x1c'..='\x1f')
        })
        || WORDS.contains(&s)
        || s.starts_with('.')
        || s.starts_with("0x")
        || s.parse::<i64>().is_ok()
        || s.parse::<f64>().is_ok()
}

/// A snapshot file split the way insta reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The header lines between the two `---` lines (`key: value`), as written.
    pub header: Vec<String>,
    /// The body, normalised as insta compares it (CRLF → LF, trailing whitespace trimmed).
    pub body: String,
}

impl Parsed {
    /// A header field's raw value (`source`, `description`, `expression`).
    pub fn field(&self, key: &str) -> Option<&str> {
        self.header
            .iter()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(": "))
    }
}

/// Splits a `.snap` file into header and body; `Err` says why it is not one.
pub fn parse(text: &str) -> Result<Parsed, String> {
    let text = text.replace("\r\n", "\n");
    let rest = text
        .strip_prefix("---\n")
        .ok_or("a snapshot starts with a `---` line")?;
    let end = rest
        .find("\n---\n")
        .map(|i| (i, i + 5))
        .or_else(|| rest.strip_suffix("\n---").map(|r| (r.len(), rest.len())))
        .ok_or("the header is not closed by a `---` line")?;
    let header = rest[..end.0].lines().map(str::to_owned).collect();
    let body = rest[end.1..].trim_end().to_owned();
    Ok(Parsed { header, body })
}

/// Whether a stored snapshot equals a freshly rendered one: the whole file, normalised as insta
/// normalises it (so a checkout with CRLF line endings still matches).
pub fn same(stored: &str, new: &str) -> bool {
    let norm = |s: &str| s.replace("\r\n", "\n").trim_end().to_owned();
    norm(stored) == norm(new)
}

/// A line diff of two snapshot files (`-` stored, `+` new), with `context` lines around each
/// change, at most `max_lines` lines (then a count of what was left out). A line longer than
/// [`DIFF_LINE_CHARS`] is shown around its first difference from the line it replaces (or by
/// its head and tail when it has no counterpart), with how much was left out on each side.
pub fn diff(old: &str, new: &str, context: usize, max_lines: usize) -> String {
    diff_until(
        old,
        new,
        context,
        max_lines,
        std::time::Instant::now() + MAX_DIFF_TIME,
    )
}

/// [`diff`] that stops looking for the smallest diff at `deadline`: past it, the lines not yet
/// matched are shown as removed and added, and a last line says the diff was cut short. The
/// work after the deadline is linear in the files.
pub fn diff_until(
    old: &str,
    new: &str,
    context: usize,
    max_lines: usize,
    deadline: std::time::Instant,
) -> String {
    let d = similar::TextDiff::configure()
        .deadline(deadline)
        .diff_lines(old, new);
    let late = std::time::Instant::now() >= deadline;
    let (olds, news) = (d.old_slices(), d.new_slices());
    let mut out = String::new();
    let mut lines = 0usize;
    let mut left_out = 0usize;
    for group in d.grouped_ops(context) {
        for op in group {
            let (tag, o, n) = op.as_tag_tuple();
            let mut rows: Vec<(char, String)> = Vec::new();
            match tag {
                similar::DiffTag::Equal => {
                    rows.extend(o.map(|i| (' ', elide(olds[i], None))));
                }
                similar::DiffTag::Delete => {
                    rows.extend(o.map(|i| ('-', elide(olds[i], None))));
                }
                similar::DiffTag::Insert => {
                    rows.extend(n.map(|j| ('+', elide(news[j], None))));
                }
                similar::DiffTag::Replace => {
                    let pair = |i: usize, j: usize| olds.get(i).zip(news.get(j));
                    for (k, i) in o.clone().enumerate() {
                        let other = pair(i, n.start + k).map(|(_, b)| *b);
                        rows.push(('-', elide(olds[i], other)));
                    }
                    for (k, j) in n.clone().enumerate() {
                        let other = pair(o.start + k, j).map(|(a, _)| *a);
                        rows.push(('+', elide(news[j], other)));
                    }
                }
            }
            for (sign, text) in rows {
                if lines >= max_lines {
                    left_out += 1;
                    continue;
                }
                out.push(sign);
                out.push_str(&text);
                out.push('\n');
                lines += 1;
            }
        }
        if lines < max_lines {
            out.push_str("  ┈\n");
        }
    }
    if left_out > 0 {
        out.push_str(&format!("  … {left_out} more diff line(s)\n"));
    }
    if late {
        out.push_str(DIFF_CUT_NOTE);
        out.push('\n');
    }
    out
}

/// The last line of a diff that reached its deadline.
pub const DIFF_CUT_NOTE: &str =
    "  (the diff reached its time limit: lines it had not matched by then are shown as removed and added)";

/// The reason a failed snapshot comparison adds to the run's `result:` line.
pub const RESULT_REASON: &str = "the wording snapshots differ (see `snapshots:` above)";

/// The terminal report with the snapshot verdict deciding its `result:` line: a report whose
/// run was ok says `result: FAILED (…)` when the snapshots differ, and a failed one gains the
/// reason. The account itself (ending in `snapshots: ok` or `snapshots: FAILED`) is printed
/// before the report, so the two verdicts read in order.
pub fn decide_result(report: &str, snapshots_ok: bool) -> String {
    if snapshots_ok {
        return report.to_owned();
    }
    let mut out: Vec<String> = Vec::new();
    for line in report.lines() {
        if line == "result: ok" {
            out.push(format!("result: FAILED ({RESULT_REASON})"));
        } else if let Some(reasons) = line
            .strip_prefix("result: FAILED (")
            .and_then(|r| r.strip_suffix(')'))
        {
            out.push(format!("result: FAILED ({reasons}; {RESULT_REASON})"));
        } else {
            out.push(line.to_owned());
        }
    }
    let mut text = out.join("\n");
    if report.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// One diff line, without its newline, cut to [`DIFF_LINE_CHARS`] around its first difference
/// from `other` (the line it replaces or is replaced by).
fn elide(line: &str, other: Option<&str>) -> String {
    let line = line.strip_suffix('\n').unwrap_or(line);
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= DIFF_LINE_CHARS {
        return line.to_owned();
    }
    let first_change = other.map_or(0, |o| {
        o.chars()
            .zip(chars.iter())
            .take_while(|(a, b)| a == *b)
            .count()
    });
    let before = DIFF_LINE_CHARS / 3;
    let start = first_change
        .saturating_sub(before)
        .min(chars.len() - DIFF_LINE_CHARS);
    let (start, end) = if other.is_none() {
        (0, DIFF_LINE_CHARS)
    } else {
        (start, start + DIFF_LINE_CHARS)
    };
    let mut out = String::new();
    if start > 0 {
        out.push_str(&format!("…[{start} chars]… "));
    }
    out.extend(&chars[start..end]);
    if end < chars.len() {
        out.push_str(&format!(" …[{} chars]…", chars.len() - end));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differing_snapshots_decide_the_result_line() {
        let ok = "x — 1 case(s): 1 PASS\nresult: ok\n";
        assert_eq!(decide_result(ok, true), ok);
        assert_eq!(
            decide_result(ok, false),
            format!("x — 1 case(s): 1 PASS\nresult: FAILED ({RESULT_REASON})\n")
        );
        let failed = "result: FAILED (1 unexpected case result(s))\n";
        assert_eq!(
            decide_result(failed, false),
            format!("result: FAILED (1 unexpected case result(s); {RESULT_REASON})\n")
        );
    }

    #[test]
    fn long_content_is_stored_as_head_tail_and_digest() {
        let small = "x".repeat(MAX_CONTENT_BYTES);
        assert_eq!(stored_content(&small), small);
        let big = format!(
            "{}é{}",
            "a".repeat(HEAD_BYTES - 1),
            "b".repeat(3 * MAX_CONTENT_BYTES)
        );
        let stored = stored_content(&big);
        assert!(
            stored.len() < HEAD_BYTES + TAIL_BYTES + 300,
            "{}",
            stored.len()
        );
        assert!(
            stored.starts_with(&"a".repeat(HEAD_BYTES - 1)),
            "the head is kept"
        );
        assert!(
            stored.ends_with(&"b".repeat(TAIL_BYTES - 1)),
            "the tail is kept"
        );
        assert!(
            stored.contains(&format!("{} bytes", big.len())),
            "{stored:.200}"
        );
        // A change in the middle, which neither head nor tail shows, changes the digest.
        let mut changed = big.clone();
        changed.replace_range(HEAD_BYTES + 100..HEAD_BYTES + 101, "c");
        assert_ne!(stored_content(&changed), stored);
    }

    #[test]
    fn diffs_show_a_long_line_around_its_change() {
        let old = format!("header\n{}X{}\n", "a".repeat(10_000), "b".repeat(10_000));
        let new = format!("header\n{}Y{}\n", "a".repeat(10_000), "b".repeat(10_000));
        let d = diff(&old, &new, 1, 100);
        assert!(d.len() < 4 * DIFF_LINE_CHARS, "{d}");
        let minus = d.lines().find(|l| l.starts_with('-')).unwrap();
        let plus = d.lines().find(|l| l.starts_with('+')).unwrap();
        assert!(minus.contains("aX") && plus.contains("aY"), "{d}");
        assert!(
            minus.starts_with("-…[") && minus.ends_with("chars]…"),
            "{minus}"
        );
        assert!(d.contains(" header"), "{d}");
    }

    fn result(id: &str, is_error: bool, code: Option<&str>, content: &str) -> ObservedResult {
        ObservedResult {
            tool_use_id: json!(id),
            is_error,
            content: content.to_owned(),
            code: code.map(str::to_owned),
            retryable: Some(false),
            ..ObservedResult::default()
        }
    }

    #[test]
    fn file_names_follow_insta_module_double_underscore_name() {
        assert_eq!(
            file_name("teaching/names-the-missing-property"),
            "conformance__teaching__names-the-missing-property.snap"
        );
        assert_eq!(file_name("a b/c.d"), "conformance__a_b__c_d.snap");
    }

    #[test]
    fn body_has_one_block_per_result_and_keeps_blank_and_trailing_lines() {
        let body = render_body(
            &[Some("toolu_01"), Some("toolu_02")],
            &[
                result("toolu_01", true, Some("invalid_arguments"), "a\n\nb\n"),
                result("toolu_02", false, None, ""),
            ],
        );
        assert_eq!(
            body,
            "result 1 of 2 · tool_use_id: \"toolu_01\" · is_error: true · code: invalid_arguments · retryable: false\n\
             │ a\n│\n│ b\n│\n└─\n\
             result 2 of 2 · tool_use_id: \"toolu_02\" · is_error: false · code: none · retryable: false\n\
             └─ (empty)"
        );
    }

    #[test]
    fn different_contents_render_differently() {
        let a = render_body(&[Some("t")], &[result("t", false, None, "x\n")]);
        let b = render_body(&[Some("t")], &[result("t", false, None, "x")]);
        let c = render_body(&[Some("t")], &[result("t", false, None, "x\r\n")]);
        let d = render_body(&[Some("t")], &[result("t", false, None, "x ")]);
        assert!(a != b && a != c && b != c && d != b);
        assert!(c.contains("x\\u{d}"));
    }

    #[test]
    fn missing_results_are_called_out() {
        let body = render_body(&[Some("t"), None], &[result("t", true, None, "e")]);
        assert!(body.starts_with("2 call(s), 1 result(s)\n"));
        assert!(render_body(&[None], &[]).contains("no results"));
    }

    #[test]
    fn sent_ids_are_shown_as_sent_and_generated_ones_filtered() {
        let sent = "toolu_0123456789abcdef0123456789abcdef";
        let body = render_body(&[Some(sent)], &[result(sent, false, None, "ok")]);
        assert!(body.contains(sent));
        let generated = "3f2b8c1e-9a4d-4e6f-8b1a-2c3d4e5f6a7b";
        let body = render_body(&[None], &[result(generated, true, None, "no id")]);
        assert!(body.contains("tool_use_id: \"[ID]\"") && !body.contains(generated));
    }

    #[test]
    fn filters_replace_what_varies_and_leave_the_rest() {
        let cases = [
            (
                "error in /tmp/pytest-3/x.py line 4",
                "error in [PATH] line 4",
            ),
            ("at \"/var/folders/ab/T/x\"", "at \"[PATH]\""),
            (
                r"C:\Users\ci\AppData\Local\Temp\tmp1\x.py failed",
                "[PATH] failed",
            ),
            ("<function f at 0x7ffd5e8c1a40>", "<function f at [ADDR]>"),
            ("id 3F2B8C1E-9A4D-4E6F-8B1A-2C3D4E5F6A7B", "id [ID]"),
            ("call_Hq8cS3dUTHmXWpQW2vd1Fx7b failed", "[ID] failed"),
            ("trace 4bf92f3577b34da6a3ce929d0e0e4736", "trace [ID]"),
            (
                "timed out after 0.203s (limit 200 ms)",
                "timed out after [DURATION] (limit [DURATION])",
            ),
            ("at 2026-11-30T00:12:09.123Z", "at [TIMESTAMP]"),
            ("worker pid=48213 exited", "worker pid=[PID] exited"),
            (
                "\"pyd_ai_d8ed9cc72f7746d899baea2faac9b52c\"",
                "\"pyd_ai_[ID]\"",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(apply_filters(input), want, "{input}");
        }
        // Things that look alike but are stable stay.
        for keep in [
            "/items/3/tmp",
            "toolu_01",
            "call_01",
            &"a".repeat(40),
            "deadbeefdeadbeefdeadbeefdeadbeef",
            "got 3 items; 000123 xxxx",
            "SECRET-7f3a9c",
            "/tmpfoo is a pointer",
        ] {
            assert_eq!(apply_filters(keep), keep, "{keep}");
        }
    }

    #[test]
    fn yaml_scalars_are_quoted_exactly_when_insta_quotes_them() {
        assert_eq!(
            yaml_scalar("conformance/cases/a/b.json"),
            "conformance/cases/a/b.json"
        );
        assert_eq!(yaml_scalar("results of a/b"), "results of a/b");
        assert_eq!(yaml_scalar("say \"3\": no"), "\"say \\\"3\\\": no\"");
        assert_eq!(yaml_scalar("-x"), "\"-x\"");
        assert_eq!(yaml_scalar("true"), "\"true\"");
        assert_eq!(yaml_scalar("12"), "\"12\"");
        assert_eq!(yaml_scalar("a\u{1}b"), "\"a\\u0001b\"");
    }

    #[test]
    fn files_parse_back_and_compare_normalised() {
        let meta = Meta::for_case("a/b", "It does: things.");
        let file = render_file(&meta, "result 1\n│ x\n└─");
        assert!(file.starts_with(
            "---\nsource: conformance/cases/a/b.json\ndescription: \"It does: things.\"\nexpression: results of a/b\n---\n"
        ));
        let p = parse(&file).unwrap();
        assert_eq!(p.body, "result 1\n│ x\n└─");
        assert_eq!(p.field("expression"), Some("results of a/b"));
        assert!(same(&file.replace('\n', "\r\n"), &file));
        assert!(!same(&file.replace("│ x", "│ y"), &file));
        assert!(parse("no header").is_err());
    }

    /// Issue 28, N2: a diff past its deadline stops matching lines: the result is the coarse
    /// one (everything removed, everything added), bounded, and says so.
    #[test]
    fn a_diff_past_its_deadline_stops_and_says_so() {
        let old: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        let new: String = (0..20_000).map(|i| format!("line {}\n", i + 7)).collect();
        let fine = diff_until(
            &old,
            &new,
            0,
            50,
            std::time::Instant::now() + std::time::Duration::from_secs(3600),
        );
        assert!(!fine.contains(DIFF_CUT_NOTE), "{fine}");
        assert!(
            fine.contains("-line 0\n") && fine.contains("+line 20006\n"),
            "{fine}"
        );
        // Already past: nothing is matched line by line.
        let past = std::time::Instant::now() - std::time::Duration::from_secs(1);
        let coarse = diff_until(&old, &new, 0, 50, past);
        assert!(coarse.contains(DIFF_CUT_NOTE), "{coarse}");
        assert!(coarse.contains("… 39950 more diff line(s)"), "{coarse}");
        assert!(coarse.lines().count() < 60);
    }

    /// Issue 28, N11: a body of many results is cut like a long content, so one snapshot is
    /// at most `MAX_BODY_BYTES` and a bit.
    #[test]
    fn a_body_of_many_results_is_cut_to_its_bound() {
        let results: Vec<ObservedResult> = (0..1024)
            .map(|i| result(&format!("x{i}"), false, None, &format!("{i} ").repeat(1200)))
            .collect();
        let body = render_body(&[Some("t")], &results);
        assert!(body.len() < MAX_BODY_BYTES + 1024, "{}", body.len());
        assert!(body.contains("snapshot cut:"), "the cut says so");
        assert!(body.starts_with("1 call(s), 1024 result(s)\n"));
    }

    /// Issue 28, N14: C1 and bidi characters from a case file's id or description reach the
    /// header as visible escapes, never raw.
    #[test]
    fn header_strings_have_no_raw_control_or_bidi_character() {
        let meta = Meta::for_case("t/x\u{9b}31m\u{202e}gpj.exe", "a\u{202e}b\u{1b}[2J\nc");
        let file = render_file(&meta, "result");
        assert!(
            !file
                .chars()
                .any(|c| crate::escape::is_disguising(c) && c != '\n'),
            "{file:?}"
        );
        // YAML quotes the escape's backslash: it reads back as the visible text `\u{9b}`.
        assert!(file.contains(r"\\u{9b}31m\\u{202e}gpj.exe"), "{file}");
    }

    #[test]
    fn diffs_mark_removed_and_added_lines() {
        let d = diff("a\nb\nc\n", "a\nB\nc\n", 1, 100);
        assert!(d.contains("-b\n") && d.contains("+B\n") && d.contains(" a\n"));
        let long = diff(&"x\n".repeat(50), &"y\n".repeat(50), 0, 10);
        assert!(long.contains("… 90 more diff line(s)"));
    }
}
