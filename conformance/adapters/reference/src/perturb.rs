//! The result-side faults: what sloppy harnesses do to a correct answer on its way out.
//!
//! Each function takes what harness-ref produced (or, for the capping faults, the text
//! harness-ref would have capped) and returns what a harness with that one mistake returns.
//! They are built from harness-ref's own cap primitives ([`harness_ref::cap`]), so that
//! everything but the fault is exactly the reference's behaviour: the same budgets, the same
//! note wording, the same numbers.

use harness_ref::cap::{self, CapConfig, Strategy, Truncation, Unit};
use harness_ref::Violation;

/// The first `n` units of `text` (`n` in `unit`, on a character boundary).
pub(crate) fn head_units(text: &str, n: u64, unit: Unit) -> &str {
    let n = n as usize;
    match unit {
        Unit::Bytes => &text[..floor_boundary(text, n)],
        Unit::Chars => match text.char_indices().nth(n) {
            Some((i, _)) => &text[..i],
            None => text,
        },
        Unit::Lines | Unit::Tokens(_) => cap::prefix_units(text, n, unit),
    }
}

/// The last `n` units of `text` (`n` in `unit`, on a character boundary).
pub(crate) fn tail_units(text: &str, n: u64, unit: Unit) -> &str {
    let n = n as usize;
    match unit {
        Unit::Bytes => {
            let mut start = text.len().saturating_sub(n);
            while !text.is_char_boundary(start) {
                start += 1;
            }
            &text[start..]
        }
        Unit::Chars => {
            if n == 0 {
                return "";
            }
            match text.char_indices().rev().nth(n - 1) {
                Some((i, _)) => &text[i..],
                None => text,
            }
        }
        Unit::Lines | Unit::Tokens(_) => cap::suffix_units(text, n, unit),
    }
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    if i >= text.len() {
        return text.len();
    }
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// `omits-note`: the capped content with the note (and its separators) taken out, leaving the
/// head and the tail joined, as a harness that slices `text[:h] + text[-t:]` produces.
pub(crate) fn strip_note(content: &str, truncation: &Truncation) -> String {
    let (head, tail) = kept_parts(content, truncation);
    format!("{head}{tail}")
}

/// The kept head and tail of harness-ref's capped `content` (the tail empty for a head-only
/// cut). A token cut's sizes are estimates, not offsets, so under a token cap the parts are
/// found around the note's own text (`head\nnote\ntail`, `head\nnote`).
pub(crate) fn kept_parts<'a>(content: &'a str, truncation: &Truncation) -> (&'a str, &'a str) {
    let cuts_middle = matches!(truncation.strategy, Strategy::HeadTail | Strategy::Reject);
    if let Unit::Tokens(_) = truncation.unit {
        let note = truncation.note();
        if let Some(at) = content.find(&format!("\n{note}")) {
            let rest = &content[at + 1 + note.len()..];
            let tail = if cuts_middle {
                rest.strip_prefix('\n').unwrap_or(rest)
            } else {
                ""
            };
            return (&content[..at], tail);
        }
    }
    let head = head_units(content, truncation.head_size, truncation.unit);
    let tail = if cuts_middle {
        tail_units(content, truncation.tail_size, truncation.unit)
    } else {
        ""
    };
    (head, tail)
}

/// `caps-in-quadratic-time`: harness-ref's own cut, found the slow way first: one character
/// at a time is dropped from the end of a fresh copy of the text, and the copy is measured
/// again, until the kept part fits the budget harness-ref's cut keeps (Conway-Research/automaton
/// PR #358). The content is the reference's; only the time differs, quadratic in the output.
/// The slow search is made on texts up to [`QUADRATIC_SEARCH_MAX_BYTES`] only (the time case's
/// output is under it), so that selftest's huge outputs do not run for hours; above it the
/// variant is the reference.
pub(crate) fn cap_in_quadratic_time(text: &str, config: &CapConfig) -> String {
    let honest = cap::cap(text, config);
    if let Some(truncation) = honest
        .truncation
        .as_ref()
        .filter(|_| text.len() <= QUADRATIC_SEARCH_MAX_BYTES)
    {
        let (copied, kept) = search_cut_quadratically(text, truncation.head_size, config.unit);
        std::hint::black_box((copied, kept));
    }
    honest.content.into_owned()
}

/// The largest text `caps-in-quadratic-time` searches slowly.
const QUADRATIC_SEARCH_MAX_BYTES: usize = 64 * 1024;

/// The slow search for the longest prefix of `text` within `budget` units: how many bytes it
/// copied, and the prefix's length in bytes.
fn search_cut_quadratically(text: &str, budget: u64, unit: Unit) -> (u64, usize) {
    let mut kept = text.to_owned();
    let mut copied = kept.len() as u64;
    while cap::measure(&kept, unit) as u64 > budget {
        let end = kept.char_indices().next_back().map_or(0, |(i, _)| i);
        kept = kept[..end].to_owned();
        copied += kept.len() as u64;
    }
    (copied, kept.len())
}

/// `note-outside-cap`: head and tail fill the whole limit, then the note is added between
/// them, so the content exceeds the cap by the note's length.
pub(crate) fn note_outside_cap(text: &str, config: &CapConfig) -> String {
    let honest = cap::cap(text, config);
    let Some(truncation) = honest.truncation else {
        return honest.content.into_owned();
    };
    let limit = config.limit as u64;
    let (head_budget, tail_budget) = match config.strategy {
        Strategy::HeadOnly | Strategy::Spill => (limit, 0),
        Strategy::HeadTail | Strategy::Reject => {
            let head = limit * u64::from(config.head_permille.min(1000)) / 1000;
            (head, limit - head)
        }
    };
    let head = head_units(text, head_budget, config.unit);
    let tail = if tail_budget == 0 {
        ""
    } else {
        tail_units(text, tail_budget, config.unit)
    };
    let middle = &text[head.len()..text.len() - tail.len()];
    let note = Truncation {
        head_size: cap::measure(head, config.unit) as u64,
        tail_size: cap::measure(tail, config.unit) as u64,
        omitted_size: cap::measure(middle, config.unit) as u64,
        omitted_lines: middle.bytes().filter(|&b| b == b'\n').count() as u64,
        ..truncation
    }
    .note();
    match config.strategy {
        Strategy::HeadOnly | Strategy::Spill => format!("{head}\n{note}"),
        Strategy::HeadTail | Strategy::Reject => format!("{head}\n{note}\n{tail}"),
    }
}

/// `splits-code-point`: the reference's budgets, but the cut is made at a raw offset — a byte
/// offset for a byte cap, a UTF-16 offset for a char cap (what `str.slice` does in
/// JavaScript) — and the broken sequence is repaired with U+FFFD, as lossy decoding does.
pub(crate) fn split_code_point(text: &str, config: &CapConfig) -> String {
    let honest = cap::cap(text, config);
    let Some(truncation) = honest.truncation else {
        return honest.content.into_owned();
    };
    let Some((head_budget, tail_budget)) =
        config.text_budget(truncation.original_size, truncation.original_lines)
    else {
        // The note alone does not fit: no original text is kept, so nothing can be split.
        return honest.content.into_owned();
    };
    let (head, middle_newlines, tail) = match config.unit {
        // A lines cut keeps whole lines: there is no code point to split. A token cut is left
        // to the byte and char caps, which show this fault.
        Unit::Lines | Unit::Tokens(_) => return honest.content.into_owned(),
        Unit::Bytes => {
            let bytes = text.as_bytes();
            let tail_start = bytes.len().saturating_sub(tail_budget).max(head_budget);
            let head = String::from_utf8_lossy(&bytes[..head_budget.min(bytes.len())]);
            let tail = String::from_utf8_lossy(&bytes[tail_start..]);
            let middle = &bytes[head_budget.min(tail_start)..tail_start];
            let newlines = middle.iter().filter(|&&b| b == b'\n').count();
            (head.into_owned(), newlines, tail.into_owned())
        }
        Unit::Chars => {
            let units: Vec<u16> = text.encode_utf16().collect();
            let tail_start = units.len().saturating_sub(tail_budget).max(head_budget);
            let head = String::from_utf16_lossy(&units[..head_budget.min(units.len())]);
            let tail = String::from_utf16_lossy(&units[tail_start..]);
            let middle = &units[head_budget.min(tail_start)..tail_start];
            let newlines = middle.iter().filter(|&&u| u == u16::from(b'\n')).count();
            (head, newlines, tail)
        }
    };
    let head_size = head_budget as u64;
    let tail_size = tail_budget as u64;
    let note = Truncation {
        head_size,
        tail_size,
        omitted_size: truncation
            .original_size
            .saturating_sub(head_size + tail_size),
        omitted_lines: middle_newlines as u64,
        ..truncation
    }
    .note();
    match config.strategy {
        Strategy::HeadOnly | Strategy::Spill => format!("{head}\n{note}"),
        Strategy::HeadTail | Strategy::Reject => format!("{head}\n{note}\n{tail}"),
    }
}

/// `first-violation-only`: the message lists only the first violation.
pub(crate) fn first_violation_only(content: &str, violations: &[Violation]) -> String {
    if violations.len() < 2 {
        return content.to_owned();
    }
    let all: Vec<String> = violations.iter().map(Violation::to_string).collect();
    content.replacen(&all.join("; "), &all[0], 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(limit: usize, unit: Unit) -> CapConfig {
        CapConfig::new(limit, unit)
    }

    #[test]
    fn strip_note_leaves_head_and_tail() {
        let text = "a".repeat(300) + &"b".repeat(300);
        let capped = cap::cap(&text, &config(200, Unit::Bytes));
        let tr = capped.truncation.unwrap();
        let stripped = strip_note(&capped.content, &tr);
        assert!(!stripped.contains("truncated"));
        assert_eq!(stripped.len() as u64, tr.kept_size());
        assert!(text.starts_with(&stripped[..tr.head_size as usize]));
        assert!(text.ends_with(&stripped[tr.head_size as usize..]));
    }

    #[test]
    fn note_outside_cap_exceeds_the_limit_by_the_note() {
        let text = "x".repeat(1000);
        let out = note_outside_cap(&text, &config(200, Unit::Chars));
        assert!(out.chars().count() > 200);
        assert!(out.starts_with(&"x".repeat(100)));
        let short = "short";
        assert_eq!(note_outside_cap(short, &config(200, Unit::Chars)), short);
    }

    #[test]
    fn split_code_point_repairs_with_replacement_characters() {
        // Whether a given limit's budget lands inside a character depends on the note's
        // length, so try a range of limits: some must split, and the reference never does.
        let two_byte = "é".repeat(500);
        let astral = "😀".repeat(200);
        let mut split = [0, 0];
        for limit in 280..300 {
            let bytes = config(limit, Unit::Bytes);
            assert!(!cap::cap(&two_byte, &bytes).content.contains('\u{FFFD}'));
            split[0] += usize::from(split_code_point(&two_byte, &bytes).contains('\u{FFFD}'));
            let chars = config(limit - 130, Unit::Chars);
            assert!(!cap::cap(&astral, &chars).content.contains('\u{FFFD}'));
            split[1] += usize::from(split_code_point(&astral, &chars).contains('\u{FFFD}'));
        }
        assert!(split[0] > 0 && split[1] > 0, "{split:?}");
        let ascii = "a".repeat(1000);
        assert_eq!(
            split_code_point(&ascii, &config(300, Unit::Bytes)),
            cap::cap(&ascii, &config(300, Unit::Bytes)).content
        );
    }

    #[test]
    fn the_quadratic_capper_returns_the_reference_content_after_quadratic_work() {
        for unit in [Unit::Bytes, Unit::Chars, Unit::Lines] {
            let config = config(50, unit);
            let text = "abcdefghi\n".repeat(400);
            assert_eq!(
                cap_in_quadratic_time(&text, &config),
                cap::cap(&text, &config).content
            );
            let budget = cap::cap(&text, &config).truncation.unwrap().head_size;
            let (copied, kept) = search_cut_quadratically(&text, budget, unit);
            assert_eq!(
                &text[..kept],
                cap::prefix_units(&text, budget as usize, unit)
            );
            // Every dropped character copied what was left: over half the text, times the
            // number of characters dropped (at least half of them).
            let n = text.len() as u64;
            assert!(
                copied >= (n / 2) * (n / 2),
                "{unit:?}: {copied} bytes copied"
            );
        }
        // Under the cap, nothing is searched and nothing changes.
        assert_eq!(
            cap_in_quadratic_time("short", &config(50, Unit::Chars)),
            "short"
        );
    }
}
