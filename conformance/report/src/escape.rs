//! Escaping and bounding of untrusted text, one function per kind of output.
//!
//! Adapters, case files and baselines are written by people the runner does not trust (a CI
//! gate runs a pull request's adapter on the pull request's files), and their strings reach
//! terminals, CI logs, step summaries, report files and the command lines a reader pastes.
//! Each output has exactly one escaping layer, here, used by its renderer in one place:
//!
//! | output | function | what it guarantees |
//! |---|---|---|
//! | terminal (reports, progress, stderr) | [`terminal`] | no control (C0 but `\n`/`\t`, DEL, C1) or disguising format character (bidi overrides, zero-width, tags) reaches the terminal raw: each is written as a visible `\u{…}` |
//! | one adapter string in a one-line slot | [`one_line`] | as [`terminal`], newlines too, and at most `max` chars |
//! | JSON (reports, baselines) | [`json`] | the same characters as `\uXXXX` escapes: the data is unchanged, and `cat` shows no raw control |
//! | XML (JUnit) | [`xml`] | markup escaped, characters XML forbids written visibly, the rest of the disguising ones as character references |
//! | Markdown text | [`markdown`] | inline syntax backslash-escaped, `<`, `>`, `&` as entities, a leading block marker escaped: adapter text never opens a block, a link, an image or raw HTML; newlines are `<br>` |
//! | HTML inside Markdown (`<summary>`) | [`html`] | entities, controls visible |
//! | a Markdown code block | [`fence`] | a fence longer than any backtick run inside, so the text cannot close it |
//! | a command line to paste | [`shell_quote`] | one shell word whatever the text: pasting it can only pass the text as an argument |
//! | a command line read back from a file | [`shell_words`] | only what [`shell_quote`] writes is read; anything else (a raw newline, `;`, `$(…)`) is refused, so a reproducer is rebuilt from its words, never copied |
//!
//! Bounds are counted in chars and say what was cut ([`bound`]): [`MAX_PRINTED_CHARS`] for any
//! adapter string a report prints, [`MAX_NAME_CHARS`] for the implementation's name, version
//! and language.

use std::borrow::Cow;
use std::fmt::Write as _;

/// The most chars of one adapter-supplied string (an error or skip reason, a failure message)
/// any report prints.
pub const MAX_PRINTED_CHARS: usize = 4000;

/// The most chars of the implementation's name, version or language, and of an id or reason
/// on a one-line slot (progress lines, XFAIL lines).
pub const MAX_NAME_CHARS: usize = 200;

/// Whether `c` is a control or a character that can disguise text on a screen: C0 (including
/// `\n` and `\t`, which callers may keep), DEL, C1, the bidirectional controls, zero-width and
/// other invisible format characters, line/paragraph separators, and the tag characters.
pub fn is_disguising(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1F}'
        | '\u{7F}'..='\u{9F}'
        | '\u{AD}'
        | '\u{61C}'
        | '\u{180E}'
        | '\u{200B}'..='\u{200F}'
        | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206F}'
        | '\u{FEFF}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{E0000}'..='\u{E007F}')
}

fn escape_where(text: &str, escape: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if escape(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Text for a terminal: every disguising character but `\n` and `\t` written as `\u{…}`.
/// Idempotent (escaped text has nothing left to escape).
pub fn terminal(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| is_disguising(c) && c != '\n' && c != '\t')
}

/// One adapter string for a one-line slot: bounded to `max` chars, every disguising character
/// (newlines and tabs included) written as `\u{…}`.
pub fn one_line(text: &str, max: usize) -> String {
    escape_where(&bound(text, max), is_disguising).into_owned()
}

/// `text`, or its first `max` chars and a note of its full length when longer.
pub fn bound(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => Cow::Owned(format!(
            "{} … (cut: {} chars in all)",
            &text[..cut],
            text.chars().count()
        )),
    }
}

/// Multi-line text for a terminal under a list item: bounded to `max` chars, escaped, and
/// every line after the first indented by `indent`, so adapter text cannot start a line of its
/// own (a forged `result: ok`).
pub fn indented(text: &str, max: usize, indent: &str) -> String {
    let bounded = bound(text, max);
    let escaped = terminal(&bounded);
    escaped.replace('\n', &format!("\n{indent}"))
}

/// JSON text (as serialized) with every disguising character outside ASCII's printable range
/// written as a `\uXXXX` escape. Only valid on serialized JSON, where such characters occur
/// inside strings only; serde already escapes C0.
pub fn json(serialized: &str) -> Cow<'_, str> {
    if !serialized
        .chars()
        .any(|c| is_disguising(c) && c >= '\u{7F}')
    {
        return Cow::Borrowed(serialized);
    }
    let mut out = String::with_capacity(serialized.len() + 16);
    let mut units = [0u16; 2];
    for c in serialized.chars() {
        if is_disguising(c) && c >= '\u{7F}' {
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{u:04x}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Text for XML attributes and text nodes: markup escaped; the characters XML 1.0 forbids
/// (C0 but tab and newlines, U+FFFE, U+FFFF) written visibly as `\u{…}`; the other disguising
/// characters (`\r`, DEL, C1, bidi, zero-width) as character references, which XML keeps and
/// a viewer shows as text.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' => out.push(c),
            c if ((c as u32) < 0x20 && c != '\r') || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c if is_disguising(c) => {
                let _ = write!(out, "&#x{:x};", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Text for a Markdown paragraph, list item or table cell: controls visible; the characters
/// that open inline syntax anywhere (`` \ ` * _ [ ] ! | ~ # $ ``) backslash-escaped (CommonMark
/// renders each literally); `<`, `>`, `&` as entities; a leading `-`, `+`, `=` or list number
/// escaped; newlines as `<br>` (a line break, never a new block). Placed after the report's
/// own text on a line, the result cannot start a block, a link, an image, emphasis, a code
/// span, a table column or raw HTML.
pub fn markdown(text: &str) -> String {
    let visible = escape_where(text, |c| is_disguising(c) && c != '\n');
    let mut out = String::with_capacity(visible.len() + 16);
    let number_end = visible
        .find(|c: char| !c.is_ascii_digit())
        .filter(|&i| i > 0 && visible[i..].starts_with(['.', ')']));
    for (i, c) in visible.char_indices() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' => out.push_str("<br>"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '!' | '|' | '~' | '#' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '-' | '+' | '=' if i == 0 => {
                out.push('\\');
                out.push(c);
            }
            c if Some(i) == number_end => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Text inside an HTML element of a Markdown document (`<summary>`, `<code>`), where Markdown
/// escapes do not apply: entities, controls visible, no newline.
pub fn html(text: &str) -> String {
    let visible = escape_where(text, is_disguising);
    let mut out = String::with_capacity(visible.len());
    for c in visible.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A fenced Markdown code block holding `text` (controls visible): the fence is one backtick
/// longer than the longest run of backticks in the text (at least three), so no line of the
/// text can close it.
pub fn fence(text: &str, info: &str) -> String {
    let body = terminal(text);
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat((longest + 1).max(3));
    format!("{ticks}{info}\n{}\n{ticks}\n", body.trim_end_matches('\n'))
}

/// Quotes `s` as one POSIX shell word. Plain words stay as they are; anything else is
/// single-quoted; a word with a control or disguising character (a newline in a case id, say)
/// is written `$'…'` with every such byte as `\xHH`, so that the printed command holds no raw
/// control character and pasting it can only pass `s` as an argument. (A shell without `$'…'`
/// reads it as one literal word, which is still only an argument.)
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b));
    if plain {
        return s.to_owned();
    }
    if !s.chars().any(is_disguising) {
        return format!("'{}'", s.replace('\'', r"'\''"));
    }
    let mut out = String::from("$'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if is_disguising(c) => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    let _ = write!(out, "\\x{b:02x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// The words of a command line [`shell_quote`] wrote (words joined by single spaces), or `None`
/// when `line` holds anything `shell_quote` never writes: an unquoted character outside its
/// plain set (a space run, `;`, `|`, `$(`, a raw newline or control), an unclosed quote, an
/// escape `$'…'` does not use, or bytes that are not UTF-8. Quoting the words again gives a
/// line a shell splits into exactly these words; a saved reproducer is rebuilt that way.
pub fn shell_words(line: &str) -> Option<Vec<String>> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c);
    let mut words = Vec::new();
    let mut out: Vec<u8> = Vec::new();
    let mut started = false;
    let mut chars = line.chars().peekable();
    let push =
        |out: &mut Vec<u8>, c: char| out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                // Exactly one space between two words.
                if !started {
                    return None;
                }
                words.push(String::from_utf8(std::mem::take(&mut out)).ok()?);
                started = false;
                continue;
            }
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c if is_disguising(c) => return None,
                    c => push(&mut out, c),
                }
            },
            '\\' if chars.next_if_eq(&'\'').is_some() => out.push(b'\''),
            '$' if chars.next_if_eq(&'\'').is_some() => loop {
                match chars.next()? {
                    '\'' => break,
                    '\\' => match chars.next()? {
                        '\\' => out.push(b'\\'),
                        '\'' => out.push(b'\''),
                        'x' => {
                            let hex: String = [chars.next()?, chars.next()?].iter().collect();
                            out.push(u8::from_str_radix(&hex, 16).ok()?);
                        }
                        _ => return None,
                    },
                    c if is_disguising(c) => return None,
                    c => push(&mut out, c),
                }
            },
            c if plain(c) => out.push(c as u8),
            _ => return None,
        }
        started = true;
    }
    if !started {
        return None;
    }
    words.push(String::from_utf8(out).ok()?);
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str =
        "a\u{1b}[2J\u{1b}]8;;http://x/\u{7}l\rb\u{9b}c\u{202e}d\u{200b}e\u{7f}\nf";

    #[test]
    fn terminal_text_has_no_raw_control_and_keeps_newlines() {
        let t = terminal(HOSTILE);
        assert!(!t.chars().any(|c| is_disguising(c) && c != '\n'), "{t:?}");
        assert_eq!(
            t,
            "a\\u{1b}[2J\\u{1b}]8;;http://x/\\u{7}l\\u{d}b\\u{9b}c\\u{202e}d\\u{200b}e\\u{7f}\nf"
        );
        assert_eq!(terminal(&t), t, "idempotent");
        assert!(matches!(terminal("plain ✓ text"), Cow::Borrowed(_)));
    }

    #[test]
    fn one_line_slots_are_bounded_and_have_no_newline() {
        let long = format!("x\ny{}", "z".repeat(10_000));
        let s = one_line(&long, 20);
        assert!(!s.contains('\n'));
        assert!(s.starts_with("x\\u{a}y"));
        assert!(s.ends_with("(cut: 10003 chars in all)"), "{s}");
        assert!(s.chars().count() < 60);
        assert_eq!(bound("short", 20), "short");
        // Cut on a char boundary.
        assert_eq!(bound("ééé", 2), "éé … (cut: 3 chars in all)");
    }

    #[test]
    fn indented_lines_cannot_start_a_line_of_their_own() {
        assert_eq!(indented("a\nresult: ok", 100, "    "), "a\n    result: ok");
    }

    #[test]
    fn json_keeps_the_data_and_escapes_the_rest() {
        let v = serde_json::json!({"r": HOSTILE, "emoji": "😀"});
        let text = serde_json::to_string(&v).unwrap();
        let safe = json(&text);
        assert!(!safe.chars().any(is_disguising), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, v);
        assert!(safe.contains("😀"));
    }

    #[test]
    fn xml_escapes_markup_and_references_the_rest() {
        assert_eq!(xml("<a>&\"'"), "&lt;a&gt;&amp;&quot;&apos;");
        assert_eq!(xml("\u{1b}\u{9b}\r\t"), "\\u{1b}&#x9b;&#xd;\t");
    }

    #[test]
    fn markdown_text_escapes_every_punctuation_and_newline() {
        assert_eq!(
            markdown("<img src=x>\n# h ![i](u) `c` | t"),
            "&lt;img src=x&gt;<br>\\# h \\!\\[i\\](u) \\`c\\` \\| t"
        );
        assert_eq!(markdown("- item"), "\\- item");
        assert_eq!(markdown("12. x 3. y"), "12\\. x 3. y");
        assert_eq!(markdown("CALL-1 a-b"), "CALL-1 a-b");
        assert_eq!(html("</code><b>"), "&lt;/code&gt;&lt;b&gt;");
    }

    #[test]
    fn fences_are_longer_than_any_run_inside() {
        let f = fence("a\n```\nb ````` c", "text");
        assert!(f.starts_with("``````text\n"), "{f}");
        assert!(f.ends_with("\n``````\n"));
        assert_eq!(fence("x", "sh"), "```sh\nx\n```\n");
    }

    #[test]
    fn shell_quoting() {
        assert_eq!(shell_quote("cap/a-b"), "cap/a-b");
        assert_eq!(shell_quote("python3 a.py"), "'python3 a.py'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a\nb'c\\"), r"$'a\x0ab\'c\\'");
        assert_eq!(shell_quote("x\u{202e}"), r"$'x\xe2\x80\xae'");
    }

    #[test]
    fn shell_words_read_back_exactly_what_shell_quote_wrote() {
        let words = [
            "harness-conformance",
            "python3 a.py",
            "it's",
            "",
            "a\nb'c\\",
            "x\u{202e}",
            "$(id)`id`;|&",
            "é ✓",
        ];
        let line: Vec<String> = words.iter().map(|w| shell_quote(w)).collect();
        assert_eq!(shell_words(&line.join(" ")).unwrap(), words);
        for forged in [
            "run --run X\nresult: ok\ntouch pwned #",
            "run; touch pwned",
            "run $(touch pwned)",
            "run  --run",
            "'unclosed",
            "$'\\q'",
            "$'\\xff'",
            "a\u{1b}[2J",
            "run\t--run",
            "",
        ] {
            assert_eq!(shell_words(forged), None, "{forged:?}");
        }
    }

    #[test]
    fn quoted_words_reach_a_shell_as_one_argument() {
        let Ok(sh) = std::process::Command::new("sh")
            .args(["-c", "printf '%s' \"$1\"", "sh"])
            .arg("probe")
            .output()
        else {
            return; // no shell here
        };
        assert_eq!(sh.stdout, b"probe");
        for word in [
            "a b",
            "it's",
            "a\nb; touch /tmp/hc-pwned",
            "$(id)`id`",
            "x\u{1b}[2J",
        ] {
            let script = format!("printf '%s' {}", shell_quote(word));
            let out = std::process::Command::new("bash")
                .args(["-c", &script])
                .output();
            if let Ok(out) = out {
                assert_eq!(String::from_utf8_lossy(&out.stdout), word, "{script}");
            }
        }
    }
}
