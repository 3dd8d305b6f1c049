//! The notes of two legitimate variants: harness-ref's own cut, with the note placed or worded
//! another way.
//!
//! `note-after-tail` moves harness-ref's note after the kept tail (`head \n tail \n note`, the
//! same length); `note-before-head` moves it first (`note \n head \n tail`); `grouped-note` writes another honest note between head and tail
//! (`... 41 lines, 12,345 bytes omitted from the middle ...`); `inline-note` puts a short one
//! inside the text, with no line breaks and no line count (`head[… 3000 chars cut …]tail`).
//! The notes are never longer than harness-ref's for the same cut, so the content still fits. The cut itself — how much head and tail are
//! kept, on character boundaries, within the limit — is harness-ref's, read from its
//! [`Truncation`]; harness-ref's content is `head \n note \n tail` (or `head \n note`). Under a
//! lines cap and for a spill's preview the variants keep harness-ref's layout.

use harness_ref::cap::{Strategy, Truncation};

use crate::perturb::{head_units, tail_units};

/// Where the note goes and how it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoteStyle {
    /// harness-ref's note, after the tail.
    AfterTail,
    /// harness-ref's note, first: before the head.
    BeforeHead,
    /// Lines first, digit groups, no brackets; between head and tail.
    Grouped,
    /// The omitted amount only, in brackets, inside the text: no separators.
    Inline,
}

/// `n` with its digits in groups of three separated by commas: `12,345`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

fn note(style: NoteStyle, t: &Truncation) -> String {
    match style {
        NoteStyle::AfterTail | NoteStyle::BeforeHead => t.note(),
        NoteStyle::Grouped => {
            let place = match t.strategy {
                Strategy::HeadTail | Strategy::Reject => "from the middle",
                Strategy::HeadOnly | Strategy::Spill => "at the end",
            };
            let lines = if t.omitted_lines == 1 {
                "line"
            } else {
                "lines"
            };
            format!(
                "... {} {lines}, {} {} omitted {place} ...",
                grouped(t.omitted_lines),
                grouped(t.omitted_size),
                t.unit
            )
        }
        NoteStyle::Inline => match t.strategy {
            Strategy::HeadTail | Strategy::Reject => {
                format!("[… {} {} cut …]", t.omitted_size, t.unit)
            }
            Strategy::HeadOnly | Strategy::Spill => {
                format!("[… {} {} cut]", t.omitted_size, t.unit)
            }
        },
    }
}

/// harness-ref's capped `content` with its note in `style` (`truncation`: what harness-ref
/// cut, if anything).
pub(crate) fn renote(content: &str, truncation: Option<&Truncation>, style: NoteStyle) -> String {
    let Some(t) = truncation else {
        return content.to_owned();
    };
    // The styles place a cut's note between text separated by line breaks: under a lines cap
    // those breaks are lines the budget did not reserve, and a spill's note is a pointer, not
    // a count. Both keep harness-ref's layout.
    if t.unit == harness_ref::Unit::Lines || t.strategy == Strategy::Spill {
        return content.to_owned();
    }
    let note = note(style, t);
    if t.head_size == 0 && t.tail_size == 0 && !content.contains('\n') {
        // The limit holds the note alone (harness-ref's, ASCII, cut to the limit): so does
        // ours, on a character boundary.
        let mut end = content.len().min(note.len());
        while !note.is_char_boundary(end) {
            end -= 1;
        }
        return note[..end].to_owned();
    }
    let (head, tail) = match t.unit {
        harness_ref::Unit::Tokens(_) => crate::perturb::kept_parts(content, t),
        _ => (
            head_units(content, t.head_size, t.unit),
            tail_units(content, t.tail_size, t.unit),
        ),
    };
    // A spill's preview is placed like a head-only cut; a reject's messages are cut head+tail.
    let strategy = match t.strategy {
        Strategy::Spill => Strategy::HeadOnly,
        Strategy::Reject => Strategy::HeadTail,
        s => s,
    };
    match (strategy, style) {
        (Strategy::HeadOnly, NoteStyle::AfterTail) => content.to_owned(),
        (Strategy::HeadOnly, NoteStyle::BeforeHead) => format!("{note}\n{head}"),
        (Strategy::HeadTail, NoteStyle::BeforeHead) => format!("{note}\n{head}\n{tail}"),
        (Strategy::HeadOnly, NoteStyle::Grouped) => format!("{head}\n{note}"),
        (Strategy::HeadTail, NoteStyle::AfterTail) => format!("{head}\n{tail}\n{note}"),
        (Strategy::HeadTail, NoteStyle::Grouped) => format!("{head}\n{note}\n{tail}"),
        (Strategy::HeadOnly, NoteStyle::Inline) => format!("{head}{note}"),
        (Strategy::HeadTail, NoteStyle::Inline) => format!("{head}{note}{tail}"),
        (Strategy::Reject | Strategy::Spill, _) => content.to_owned(),
    }
}

/// `nonce-in-note`'s note as its hello declares it: harness-ref's numbers, the nonce after
/// `truncated`, and no remedy (so it is never longer than harness-ref's note, whose remedy is
/// longer than the nonce).
pub(crate) const NONCE_NOTE_FORM: &str =
    "[truncated {nonce}: {omitted} of {total} {unit} omitted {...} ({omitted_lines} of {total_lines} lines)]";

/// The nonce `nonce-in-note` tells the model its notes carry: random for the process (a copy in
/// an output cannot know it), the same for every turn, so the same turn gets the same results.
pub(crate) fn nonce() -> &'static str {
    static NONCE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NONCE.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(0x5eed);
        format!("n{:08x}", h.finish() as u32)
    })
}

/// harness-ref's capped `content` with its cut's note ([`Truncation::note`]) replaced by the
/// note of [`NONCE_NOTE_FORM`], in the same place; content without a cut, or a spill's preview,
/// is harness-ref's.
pub(crate) fn with_nonce(content: &str, truncation: Option<&Truncation>) -> String {
    let Some(t) = truncation.filter(|t| t.artifact.is_none()) else {
        return content.to_owned();
    };
    let place = match t.strategy {
        Strategy::HeadTail | Strategy::Reject => "from the middle",
        Strategy::HeadOnly | Strategy::Spill => "at the end",
    };
    let note = NONCE_NOTE_FORM
        .replace("{nonce}", nonce())
        .replace("{omitted_lines}", &t.omitted_lines.to_string())
        .replace("{total_lines}", &t.original_lines.to_string())
        .replace("{omitted}", &t.omitted_size.to_string())
        .replace("{total}", &t.original_size.to_string())
        .replace("{unit}", t.unit.as_str())
        .replace("{...}", place);
    content.replacen(&t.note(), &note, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_ref::cap::{self, CapConfig, Unit};

    fn lines(n: usize) -> String {
        (1..=n)
            .map(|i| format!("{i:06} é line"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn renoted(text: &str, config: &CapConfig, style: NoteStyle) -> String {
        let capped = cap::cap(text, config);
        renote(&capped.content, capped.truncation.as_ref(), style)
    }

    #[test]
    fn digit_groups() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(12_345_678), "12,345,678");
    }

    #[test]
    fn the_content_fits_and_keeps_harness_refs_head_and_tail() {
        let text = lines(500);
        for unit in [Unit::Bytes, Unit::Chars] {
            for strategy in [Strategy::HeadTail, Strategy::HeadOnly] {
                for limit in [0, 10, 150, 400, 2000, 100_000] {
                    let config = CapConfig::new(limit, unit).with_strategy(strategy);
                    let reference = cap::cap(&text, &config);
                    for style in [NoteStyle::AfterTail, NoteStyle::Grouped, NoteStyle::Inline] {
                        let out = renoted(&text, &config, style);
                        let why = format!("{limit} {unit} {strategy:?} {style:?}");
                        assert!(cap::measure(&out, unit) <= limit, "{why}");
                        assert!(
                            cap::measure(&out, unit) <= cap::measure(&reference.content, unit),
                            "{why}"
                        );
                        assert_eq!(renoted(&out, &config, style), out, "idempotent: {why}");
                        let Some(t) = reference.truncation else {
                            assert_eq!(out, text);
                            continue;
                        };
                        let head = head_units(&text, t.head_size, unit);
                        assert!(out.starts_with(head), "{why}");
                        if strategy == Strategy::HeadTail && style != NoteStyle::AfterTail {
                            assert!(out.ends_with(tail_units(&text, t.tail_size, unit)));
                        }
                    }
                }
            }
        }
        let after = renoted(
            &text,
            &CapConfig::new(2000, Unit::Chars),
            NoteStyle::AfterTail,
        );
        let (kept, note) = after.rsplit_once('\n').unwrap();
        assert!(kept.ends_with("000500 é line") && note.starts_with("[truncated: "));
    }

    #[test]
    fn the_grouped_numbers_are_true() {
        let text = lines(500);
        let out = renoted(
            &text,
            &CapConfig::new(1000, Unit::Chars),
            NoteStyle::Grouped,
        );
        let (head, rest) = out.split_once("\n... ").unwrap();
        let (note, tail) = rest.split_once(" ...\n").unwrap();
        assert!(text.starts_with(head) && text.ends_with(tail));
        let omitted = &text[head.len()..text.len() - tail.len()];
        let expect = format!(
            "{} lines, {} chars omitted from the middle",
            grouped(omitted.matches('\n').count() as u64),
            grouped(omitted.chars().count() as u64)
        );
        assert_eq!(note, expect);
    }
}
