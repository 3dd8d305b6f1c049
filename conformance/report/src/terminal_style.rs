//! Colour for the terminal report and progress lines, added after escaping.
//!
//! [`paint`] takes text that has already been through `escape::terminal` (so no adapter string
//! can hold an escape sequence of its own) and inserts ANSI styles in front of the words a
//! reader looks for: verdicts, the requirement table's marks, section headings, hints and the
//! `result:` line. It only inserts styles, never changes a character of the text: stripping
//! them gives the plain report back (a test checks it), so colour can be switched on or off
//! anywhere without changing what a log says. Whether to colour is the binary's decision
//! (`--color`, `NO_COLOR`, `CLICOLOR_FORCE`, a TTY).
//!
//! The styles are `anstyle` values, the crate clap itself renders its help with.

use anstyle::{AnsiColor, Effects, Style};

const GREEN: Style = AnsiColor::Green.on_default();
const RED: Style = AnsiColor::Red.on_default().effects(Effects::BOLD);
const YELLOW: Style = AnsiColor::Yellow.on_default();
const MAGENTA: Style = AnsiColor::Magenta.on_default().effects(Effects::BOLD);
const DIM: Style = Style::new().effects(Effects::DIMMED);
const BOLD: Style = Style::new().effects(Effects::BOLD);
const CYAN: Style = AnsiColor::Cyan.on_default();

/// Verdict labels as reports print them, longest first (so `NEW SKIP` wins over `SKIP`).
const VERDICTS: &[(&str, Style)] = &[
    ("BUG IN CASE", MAGENTA),
    ("NEW SKIP", YELLOW),
    ("XFAIL", YELLOW),
    ("STALE", YELLOW),
    ("ERROR", RED),
    ("PASS", GREEN),
    ("FAIL", RED),
    ("SKIP", DIM),
];

/// The requirement and teaching tables' marks.
const MARKS: &[(&str, Style)] = &[
    ("✓", GREEN),
    ("✗", RED),
    ("~", YELLOW),
    ("!", YELLOW),
    ("–", DIM),
];

/// Labels whose rest of line is styled.
const LABELS: &[(&str, Style, Style)] = &[
    ("reproduce: ", DIM, CYAN),
    ("hint: ", YELLOW, Style::new()),
    ("result: ok", GREEN, GREEN),
    ("result: FAILED", RED, RED),
];

fn styled(out: &mut String, style: Style, text: &str) {
    if text.is_empty() || style == Style::new() {
        out.push_str(text);
        return;
    }
    out.push_str(&style.render().to_string());
    out.push_str(text);
    out.push_str(&style.render_reset().to_string());
}

/// `text` with styles inserted; stripping them gives `text` back.
pub fn paint(text: &str) -> String {
    per_line(text, paint_line)
}

/// Applies `paint_line` to each line of `text` (without its newline), keeping the newlines.
fn per_line(text: &str, paint_line: impl Fn(&mut String, &str)) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for line in text.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        paint_line(&mut out, body);
        out.push_str(newline);
    }
    out
}

fn paint_line(out: &mut String, line: &str) {
    let trimmed = line.trim_start();
    let indent = &line[..line.len() - trimmed.len()];
    if trimmed.starts_with("── ") && trimmed.ends_with(" ──") {
        out.push_str(indent);
        return styled(out, BOLD, trimmed);
    }
    // Progress lines: `[ 12/160] PASS  id (3 ms)`.
    let (counter, rest) = match trimmed.strip_prefix('[').and_then(|r| r.split_once("] ")) {
        Some((inside, rest)) if inside.trim().split('/').all(|n| n.parse::<u64>().is_ok()) => {
            (&trimmed[..trimmed.len() - rest.len()], rest)
        }
        _ => ("", trimmed),
    };
    out.push_str(indent);
    styled(out, DIM, counter);
    for (word, style) in VERDICTS {
        if let Some(after) = rest.strip_prefix(word) {
            if after.is_empty() || after.starts_with([' ', ':']) {
                styled(out, *style, word);
                out.push_str(after);
                return;
            }
        }
    }
    for (mark, style) in MARKS {
        if let Some(after) = rest.strip_prefix(mark) {
            if after.starts_with(' ') {
                styled(out, *style, mark);
                out.push_str(after);
                return;
            }
        }
    }
    for (label, label_style, rest_style) in LABELS {
        if let Some(after) = rest.strip_prefix(label) {
            styled(out, *label_style, label);
            styled(out, *rest_style, after);
            return;
        }
    }
    out.push_str(rest);
}

/// A snapshot review's text (escaped) with styles: added lines green, removed lines red, hunk
/// headers cyan, headings bold. Stripping them gives `text` back.
pub fn paint_diff(text: &str) -> String {
    per_line(text, |out, body| {
        let style = if body.starts_with("── ") {
            BOLD
        } else if body.starts_with("@@") {
            CYAN
        } else if body.starts_with('+') {
            GREEN
        } else if body.starts_with('-') {
            AnsiColor::Red.on_default()
        } else {
            Style::new()
        };
        styled(out, style, body);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\n── unexpected results ──\n\nFAIL cap/x [CAP-1; MUST]\n  - expected a note\n  reproduce: harness-conformance run --run cap/x\n  hint: write logs to stderr\n[ 3/10] PASS        a/b (2 ms)\n[10/10] NEW SKIP    a/c (0 ms)\n  ✓ CAP-1    title\n  ! OUT-2    title\nresult: FAILED (1 unexpected case result(s))\nPASSWORD is not a verdict\n[x] FAIL not a counter\n";

    #[test]
    fn stripping_the_styles_gives_the_text_back() {
        let painted = paint(SAMPLE);
        assert_ne!(painted, SAMPLE, "nothing was styled");
        assert_eq!(anstream::adapter::strip_str(&painted).to_string(), SAMPLE);
    }

    #[test]
    fn a_diff_keeps_its_text() {
        let diff = "── 1/2: a.snap ──\n@@ -1,2 +1,2 @@\n-old\n+new\n same\n";
        let painted = paint_diff(diff);
        assert!(painted.contains(&format!("{}+new", GREEN.render())));
        assert_eq!(anstream::adapter::strip_str(&painted).to_string(), diff);
    }

    #[test]
    fn styles_the_words_a_reader_looks_for() {
        let red = RED.render().to_string();
        let green = GREEN.render().to_string();
        let painted = paint(SAMPLE);
        for (needle, style) in [
            ("FAIL</>", &red),
            ("PASS</>", &green),
            ("✓</>", &green),
            ("result: FAILED</>", &red),
        ] {
            let word = needle.trim_end_matches("</>");
            assert!(
                painted.contains(&format!("{style}{word}")),
                "{word} not styled in {painted:?}"
            );
        }
        let line = |prefix: &str| {
            paint(SAMPLE)
                .lines()
                .find(|l| {
                    anstream::adapter::strip_str(l)
                        .to_string()
                        .starts_with(prefix)
                })
                .unwrap()
                .to_owned()
        };
        // Words that only look like a verdict, and text that is not a counter, stay plain.
        assert_eq!(line("PASSWORD"), "PASSWORD is not a verdict");
        assert_eq!(line("[x]"), "[x] FAIL not a counter");
    }
}
