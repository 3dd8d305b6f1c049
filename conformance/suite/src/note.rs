//! Reading a truncation note: does it tell the truth about the cut?
//!
//! A capped content C of an output O is some kept head of O, a note, and some kept tail of O
//! (DESIGN.md: C = H + N + T + M). The suite does not prescribe the note's wording, placement or
//! format; it checks the numbers. The note must state the omitted amount in the cap's unit
//! (CAP-6), and every number it labels with a unit or with lines must be a true quantity of the
//! cut — omitted, kept or total — so that a correct byte count cannot hide a wrong line count
//! or the reverse. HT-3 asks for the omitted line count.
//!
//! The note may also come first (N + H + T: `[output truncated …]` on its own line, within
//! [`LEADING_NOTE_MAX`] bytes, then the head), as some harnesses print it; its numbers are read
//! against the split of what follows it.
//!
//! Where the head ends and the tail starts is read off the content: the head is as long as C and
//! O agree before the number, the tail the longest suffix of O found in C on either side of it,
//! less at most [`NOTE_SLACK`] units for note text that equals output text at the seams.

use harness_conformance_protocol::{measure, TokenEstimator, Unit};

use crate::checks::EffectiveCap;

/// Slack, in cap units, for note text that equals output text at the seams (a note starting
/// with `\n` after a head that ends just before a `\n`).
pub const NOTE_SLACK: u64 = 8;

/// What a number in a note is labelled with, when a label follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    /// `bytes`, `byte`.
    Bytes,
    /// `chars`, `characters`, `char`, `character`.
    Chars,
    /// `lines`, `line`.
    Lines,
    /// `tokens`, `token`.
    Tokens,
}

impl Label {
    fn as_str(self) -> &'static str {
        match self {
            Label::Bytes => "bytes",
            Label::Chars => "chars",
            Label::Lines => "lines",
            Label::Tokens => "tokens",
        }
    }
}

/// One number of the note, with where the head and tail end for it.
#[derive(Debug, Clone, Copy)]
struct Reading {
    value: u64,
    label: Option<Label>,
    /// Bytes of O kept at the head.
    head: usize,
    /// Bytes of O kept at the tail.
    tail: usize,
}

/// The numbers of C that can belong to the note (not well inside the kept head or tail), each
/// with the split it implies.
fn readings(o: &str, c: &str) -> Vec<Reading> {
    let k = leading_note(o, c);
    let mut out = readings_after(o, &c[k..]);
    if k > 0 {
        // A note before the kept head: its numbers describe the split of what follows it.
        let split = fallback(o, c);
        out.extend(numbers(&c[..k]).into_iter().map(|(_, j, value)| Reading {
            value,
            label: label_after(&c[j..k]),
            ..split
        }));
    }
    out
}

/// The most a note placed before the kept head may take, in bytes: a line or two of text.
pub const LEADING_NOTE_MAX: usize = 512;

/// The output's start that must follow a note placed before the kept head (bytes, at most).
const LEADING_PROBE: usize = 32;

/// The byte length of a note the harness put before the kept head (`[output truncated: …]\n`
/// then the head), or 0. Such a note is accepted where the content does not start with the
/// output but the output's start follows a line break within [`LEADING_NOTE_MAX`] bytes.
pub(crate) fn leading_note(o: &str, c: &str) -> usize {
    let probe = head_probe(o);
    if probe.is_empty() || c.starts_with(probe) {
        return 0;
    }
    let mut window = c.len().min(LEADING_NOTE_MAX + 1);
    while !c.is_char_boundary(window) {
        window -= 1;
    }
    c[..window]
        .match_indices('\n')
        .map(|(at, _)| at + 1)
        .find(|&at| c[at..].starts_with(probe))
        .unwrap_or(0)
}

/// The output's start that marks where its kept head begins: its first line, at most
/// [`LEADING_PROBE`] bytes of it.
pub(crate) fn head_probe(o: &str) -> &str {
    let end = floor_boundary(o, o.len().min(LEADING_PROBE));
    o[..end].split('\n').next().unwrap_or("")
}

/// [`readings`] of content that starts with the kept head (or has no head at all).
fn readings_after(o: &str, c: &str) -> Vec<Reading> {
    let p = common_prefix(c, o);
    // Numbers inside the kept head or the kept tail are output text, not the note (a log's own
    // line numbers, which must not pass for a line count); skipping them also keeps this linear
    // on long outputs. A number that straddles a seam is read as the note's.
    let t_all = longest_suffix_in(o, &c[p..]);
    let tail_at = c[p..]
        .rfind(&o[o.len() - t_all..])
        .map_or(c.len(), |at| p + at);
    let mut out = Vec::new();
    for (i, j, value) in numbers(c) {
        let in_head = j <= p;
        let in_tail = i >= tail_at && j <= tail_at + t_all;
        if in_head || in_tail {
            continue;
        }
        let h0 = p.min(i);
        let before = longest_suffix_in(o, &c[h0..i]);
        let after = longest_suffix_in(o, &c[j..]);
        let t0 = floor_len(o, before.max(after).min(o.len() - h0));
        out.push(Reading {
            value,
            label: label_after(&c[j..]),
            head: h0,
            tail: t0,
        });
    }
    out
}

/// The label right after a number (spaces between are allowed), if any. A number in
/// "N of M lines" (or "N out of M lines") is labelled as M is: both count lines, so a wrong N
/// is as visible as a wrong M.
fn label_after(rest: &str) -> Option<Label> {
    let rest = rest.trim_start_matches([' ', '\u{a0}']);
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_lowercase();
    match word.as_str() {
        "bytes" | "byte" => Some(Label::Bytes),
        "chars" | "char" | "characters" | "character" => Some(Label::Chars),
        "lines" | "line" => Some(Label::Lines),
        "tokens" | "token" => Some(Label::Tokens),
        "of" | "out" => {
            let after = rest[word.len()..].trim_start_matches([' ', '\u{a0}']);
            let after = if word == "out" {
                after
                    .strip_prefix("of")?
                    .trim_start_matches([' ', '\u{a0}'])
            } else {
                after
            };
            let digits = after
                .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '_'))
                .unwrap_or(after.len());
            if digits == 0 || !after.starts_with(|c: char| c.is_ascii_digit()) {
                return None;
            }
            label_after(&after[digits..])
        }
        _ => None,
    }
}

/// The omitted amount in `unit` for a split.
fn omitted(o: &str, r: &Reading, unit: Unit) -> u64 {
    let kept = measure(&o[..r.head], unit) + measure(&o[o.len() - r.tail..], unit);
    measure(o, unit).saturating_sub(kept)
}

/// The byte index `n` chars before `at` in `s` (or 0).
fn chars_back(s: &str, at: usize, n: usize) -> usize {
    s[..at]
        .char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i)
}

/// The omitted line counts a split allows: the `\n`s in the omitted part, up to those within the
/// seams' slack, plus one (a harness may count the partial lines at both ends).
fn omitted_lines(o: &str, r: &Reading) -> std::ops::RangeInclusive<u64> {
    let lo_n = newlines(&o[r.head..o.len() - r.tail]) as u64;
    let lo = floor_boundary(o, r.head.saturating_sub(NOTE_SLACK as usize * 4));
    let hi = ceil_boundary(o, (o.len() - r.tail + NOTE_SLACK as usize * 4).min(o.len()));
    let hi_n = newlines(&o[lo..hi]) as u64;
    lo_n..=hi_n + 1
}

/// Whether `r`'s number is a true quantity of the cut in the unit its label names: the omitted,
/// kept (head, tail, both) or total amount. Read off the content, the head may have swallowed up
/// to [`NOTE_SLACK`] chars of note that equal output text, and so may the tail; each quantity is
/// therefore a window, open only on that side.
fn is_true(o: &str, r: &Reading, cap: &EffectiveCap) -> bool {
    let slack = NOTE_SLACK as usize;
    let head_lo = chars_back(o, r.head, slack);
    let tail_start = o.len() - r.tail;
    let tail_hi_start = {
        // The tail, shrunk by up to `slack` chars at its start.
        let mut i = tail_start;
        for _ in 0..slack {
            match o[i..].chars().next() {
                Some(ch) => i += ch.len_utf8(),
                None => break,
            }
        }
        i
    };
    match r.label {
        None => true,
        Some(Label::Lines) => {
            let lines = |s: &str| newlines(s) as u64;
            let within = |lo: u64, hi: u64| (lo..=hi + 1).contains(&r.value);
            omitted_lines(o, r).contains(&r.value)
                || within(lines(o), lines(o))
                || within(lines(&o[..head_lo]), lines(&o[..r.head]))
                || within(lines(&o[tail_hi_start..]), lines(&o[tail_start..]))
                || within(
                    lines(&o[..head_lo]) + lines(&o[tail_hi_start..]),
                    lines(&o[..r.head]) + lines(&o[tail_start..]),
                )
        }
        Some(Label::Tokens) => {
            // Tokens are true when they are the estimator's count of a true quantity in its
            // unit, give or take the rounding of a count made piece by piece.
            let Some(t) = cap.tokens else {
                // No estimator declared: the suite cannot count tokens, so it does not judge them.
                return true;
            };
            let e = t.estimator;
            let m = |s: &str| measure(s, e.counted());
            let total = m(o);
            let (head_min, head_max) = (m(&o[..head_lo]), m(&o[..r.head]));
            let (tail_min, tail_max) = (m(&o[tail_hi_start..]), m(&o[tail_start..]));
            let within = |lo: u64, hi: u64| token_window(lo, hi, e).contains(&r.value);
            within(
                total.saturating_sub(head_max + tail_max),
                total.saturating_sub(head_min + tail_min),
            ) || within(total, total)
                || within(head_min, head_max)
                || within(tail_min, tail_max)
                || within(head_min + tail_min, head_max + tail_max)
                || r.value == t.limit
        }
        Some(label) => {
            let unit = if label == Label::Bytes {
                Unit::Bytes
            } else {
                Unit::Chars
            };
            let m = |s: &str| measure(s, unit);
            let total = m(o);
            let (head_min, head_max) = (m(&o[..head_lo]), m(&o[..r.head]));
            let (tail_min, tail_max) = (m(&o[tail_hi_start..]), m(&o[tail_start..]));
            let within = |lo: u64, hi: u64| (lo..=hi).contains(&r.value);
            within(
                total.saturating_sub(head_max + tail_max),
                total.saturating_sub(head_min + tail_min),
            ) || r.value == total
                || within(head_min, head_max)
                || within(tail_min, tail_max)
                || within(head_min + tail_min, head_max + tail_max)
                || (unit == cap.unit && r.value == cap.limit)
        }
    }
}

/// The token counts a harness may state for `lo..=hi` units of its estimator's unit: the
/// estimate of the span itself (`ceil(n / d)`), or a difference of estimates (the total's less
/// the kept text's, or less the head's and the tail's each), which rounding puts as much as one
/// token below `floor(n / d)`.
pub(crate) fn token_window(lo: u64, hi: u64, e: TokenEstimator) -> std::ops::RangeInclusive<u64> {
    (lo / e.divisor.max(1)).saturating_sub(1)..=e.tokens(hi)
}

/// CAP-6: the note states the omitted amount in the cap's unit (for a token cap, in tokens as
/// its declared estimator counts them), and every labelled number in it is true. `Err` says
/// what the note got wrong.
pub fn check_counts(o: &str, c: &str, cap: &EffectiveCap) -> Result<(), String> {
    let readings = readings(o, c);
    let unit = cap.unit;
    let stated = readings.iter().find(|r| {
        let gone = omitted(o, r, unit);
        match cap.tokens {
            None => {
                (gone..=gone + NOTE_SLACK).contains(&r.value)
                    && r.label.is_none_or(|l| l.as_str() == unit.as_str())
            }
            Some(t) => {
                token_window(gone, gone + NOTE_SLACK, t.estimator).contains(&r.value)
                    && r.label.is_none_or(|l| l == Label::Tokens)
            }
        }
    });
    let Some(stated) = stated else {
        let base = readings
            .iter()
            .map(|r| omitted(o, r, unit))
            .min()
            .unwrap_or_else(|| {
                let r = fallback(o, c);
                omitted(o, &r, unit)
            });
        if let Some(t) = cap.tokens {
            let e = t.estimator;
            return Err(format!(
                "about {} tokens ({base} {} by the declared estimator {}) of {} omitted; no number in the note matches",
                e.tokens(base),
                unit.as_str(),
                e.describe(),
                e.count(o)
            ));
        }
        return Err(format!(
            "about {base} {} of {} omitted; no number in the note matches",
            unit.as_str(),
            measure(o, unit)
        ));
    };
    for r in &readings {
        if !is_true(o, r, cap) {
            let label = r.label.map_or("", Label::as_str);
            let truth = match r.label {
                Some(Label::Lines) => {
                    let range = omitted_lines(o, stated);
                    format!(
                        "{}–{} of {} lines were omitted",
                        range.start(),
                        range.end(),
                        newlines(o) + 1
                    )
                }
                Some(Label::Tokens) => match cap.tokens {
                    Some(t) => format!(
                        "about {} of {} tokens were omitted, by the declared estimator {}",
                        t.estimator
                            .tokens(omitted(o, stated, t.estimator.counted())),
                        t.estimator.count(o),
                        t.estimator.describe()
                    ),
                    None => String::new(),
                },
                _ => {
                    let u = if r.label == Some(Label::Bytes) {
                        Unit::Bytes
                    } else {
                        Unit::Chars
                    };
                    format!(
                        "about {} of {} {} were omitted",
                        omitted(o, stated, u),
                        measure(o, u),
                        u.as_str()
                    )
                }
            };
            return Err(format!(
                "the note says {} {label}, which is not a true count of the cut: {truth}",
                r.value
            ));
        }
    }
    Ok(())
}

/// HT-3: the note states how many lines were omitted.
pub fn check_lines(o: &str, c: &str) -> Result<(), String> {
    if !o.contains('\n') {
        return Ok(());
    }
    let readings = readings(o, c);
    if readings.iter().any(|r| {
        r.label != Some(Label::Bytes)
            && r.label != Some(Label::Chars)
            && r.label != Some(Label::Tokens)
            && omitted_lines(o, r).contains(&r.value)
    }) {
        return Ok(());
    }
    let r = readings.first().copied().unwrap_or_else(|| fallback(o, c));
    let range = omitted_lines(o, &r);
    Err(format!(
        "{}–{} of {} lines were omitted; no number in the note matches",
        range.start(),
        range.end(),
        newlines(o) + 1
    ))
}

/// How much of the output `c` keeps, in `unit`: its head (after a leading note, if any) plus the
/// longest tail of the output it holds. The note and anything else in `c` are not counted.
pub(crate) fn kept_size(o: &str, c: &str, unit: Unit) -> u64 {
    let r = fallback(o, c);
    measure(&o[..r.head], unit) + measure(&o[o.len() - r.tail..], unit)
}

/// The split when the note holds no number at all.
fn fallback(o: &str, c: &str) -> Reading {
    let c = &c[leading_note(o, c)..];
    let p = common_prefix(c, o);
    let t = longest_suffix_in(o, &c[p..]).min(o.len() - p);
    Reading {
        value: 0,
        label: None,
        head: p,
        tail: floor_len(o, t),
    }
}

/// Byte length of the longest common prefix of `a` and `b`, on a char boundary.
pub(crate) fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// Decimal numbers in `c` with their byte spans; digit groups may be joined by `,` or `_`.
fn numbers(c: &str) -> Vec<(usize, usize, u64)> {
    let b = c.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let mut value: u64 = 0;
        let mut overflow = false;
        loop {
            while i < b.len() && b[i].is_ascii_digit() {
                let d = u64::from(b[i] - b'0');
                match value.checked_mul(10).and_then(|v| v.checked_add(d)) {
                    Some(v) => value = v,
                    None => overflow = true,
                }
                i += 1;
            }
            let joined =
                i + 1 < b.len() && (b[i] == b',' || b[i] == b'_') && b[i + 1].is_ascii_digit();
            if joined {
                i += 1;
            } else {
                break;
            }
        }
        if !overflow {
            out.push((start, i, value));
        }
    }
    out
}

/// The byte length of the longest suffix of `o` that occurs in `hay` (on a char boundary).
fn longest_suffix_in(o: &str, hay: &str) -> usize {
    // Monotone: if a suffix occurs, every shorter suffix occurs inside that occurrence. The
    // suffix `o` and `hay` end with occurs (a kept tail is usually there), so when the next
    // longer one does not, that is the answer: two linear passes, not one search per step.
    let common = o.len() - ceil_boundary(o, o.len() - common_suffix(o, hay));
    if common == o.len() {
        return common;
    }
    let next = floor_boundary(o, o.len() - common - 1);
    let longer = &o[next..];
    if !occurs(hay, longer) {
        return common;
    }
    // Otherwise binary-search the smallest start (over char boundaries) whose suffix occurs;
    // `next`'s does. Only the last `hay.len()` bytes of `o` can occur in `hay`.
    let from = ceil_boundary(o, o.len() - o.len().min(hay.len()));
    let mut starts: Vec<usize> = o[from..next]
        .char_indices()
        .map(|(i, _)| from + i)
        .collect();
    starts.push(next);
    let (mut lo, mut hi) = (0usize, starts.len() - 1); // starts[hi] occurs
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let suffix = &o[starts[mid]..];
        if occurs(hay, suffix) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    o.len() - starts[hi]
}

/// How many `\n` `s` holds (`memchr` counts them a vector at a time; a `\n` is never part of
/// a longer UTF-8 sequence).
pub(crate) fn newlines(s: &str) -> usize {
    memchr::memchr_iter(b'\n', s.as_bytes()).count()
}

/// Whether `needle` occurs in `hay`. Where the needle is nearly as long as the hay (a kept tail
/// looked for in what follows the note), it can only start at a few places, and comparing
/// there costs less than building a searcher over the whole needle. A match of valid UTF-8 in
/// valid UTF-8 always starts on a char boundary, so comparing bytes finds what
/// `str::contains` finds.
fn occurs(hay: &str, needle: &str) -> bool {
    const FEW: usize = 64;
    let Some(slack) = hay.len().checked_sub(needle.len()) else {
        return false;
    };
    if slack > FEW {
        return hay.contains(needle);
    }
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    (0..=slack).any(|at| &hay[at..at + needle.len()] == needle)
}

/// Byte length of the longest common suffix of `a` and `b` (not adjusted to a char boundary).
fn common_suffix(a: &str, b: &str) -> usize {
    a.bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// `lo` adjusted so that `o.len() - lo` is a char boundary (shrinking the suffix).
fn floor_len(o: &str, lo: usize) -> usize {
    o.len() - ceil_boundary(o, o.len() - lo)
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_conformance_protocol::Strategy;

    fn cap(limit: u64, unit: Unit) -> EffectiveCap {
        EffectiveCap {
            limit,
            unit,
            strategy: Strategy::HeadTail,
            declared: true,
            tokens: None,
            remaining: None,
        }
    }

    fn lines(n: usize, last: &str) -> String {
        let mut s = String::new();
        for i in 1..=n {
            s.push_str(&format!("{i:06} xxxxxxxxx\n"));
        }
        s.push_str(last);
        s
    }

    #[test]
    fn occurs_finds_what_contains_finds() {
        let hay = "ab\u{e9}c\u{1f600}d".repeat(30);
        for from in (0..hay.len()).filter(|&i| hay.is_char_boundary(i)) {
            let short = &hay[from..floor_boundary(&hay, hay.len().min(from + 7))];
            for needle in [&hay[from..], short] {
                assert_eq!(occurs(&hay, needle), hay.contains(needle), "{needle:?}");
                let other = format!("{needle}x");
                assert_eq!(
                    occurs(&hay, &other),
                    hay.contains(other.as_str()),
                    "{other:?}"
                );
            }
        }
        assert_eq!(newlines("a\nb\n\u{e9}\n"), 3);
    }

    #[test]
    fn an_honest_note_counts_and_a_dishonest_one_does_not() {
        let o = lines(100, "ValueError: boom");
        let c = cap(400, Unit::Bytes);
        let head = &o[..200];
        let tail = &o[o.len() - 150..];
        let omitted = o.len() - 350;
        let honest = format!("{head}\n[… {omitted} bytes omitted …]\n{tail}");
        assert_eq!(check_counts(&o, &honest, &c), Ok(()));
        // The total size is not the omitted amount.
        let total = format!("{head}\n[… cut, {} bytes in all …]\n{tail}", o.len());
        assert!(check_counts(&o, &total, &c).is_err());
        // Off by a lot.
        let wrong = format!("{head}\n[… {} bytes omitted …]\n{tail}", omitted / 2);
        assert!(check_counts(&o, &wrong, &c).is_err());
        let grouped = format!(
            "{head}\n[… {},{:03} bytes omitted …]\n{tail}",
            omitted / 1000,
            omitted % 1000
        );
        assert_eq!(check_counts(&o, &grouped, &c), Ok(()));
        // Total and kept amounts stated beside the omitted one are true, so they pass.
        let more = format!(
            "{head}\n[… {omitted} of {} bytes omitted, 350 bytes shown …]\n{tail}",
            o.len()
        );
        assert_eq!(check_counts(&o, &more, &c), Ok(()));
    }

    #[test]
    fn a_note_may_come_before_the_head() {
        let o = lines(100, "end");
        let c = cap(400, Unit::Bytes);
        let head = &o[..34];
        let tail = &o[o.len() - 20..];
        let gone = o.len() - 54;
        let lines_gone = o[34..o.len() - 20].matches('\n').count();
        let first =
            format!("[output truncated: {gone} bytes, {lines_gone} lines omitted]\n{head}\n{tail}");
        assert_eq!(leading_note(&o, &first), first.find(head).unwrap());
        assert_eq!(check_counts(&o, &first, &c), Ok(()));
        assert_eq!(check_lines(&o, &first), Ok(()));
        // The numbers of a leading note are judged like any other note's.
        let lie = format!(
            "[output truncated: {} bytes omitted]\n{head}\n{tail}",
            gone / 2
        );
        assert!(check_counts(&o, &lie, &c).is_err());
        // Content that starts with the output has no leading note, and text before the head
        // longer than a note's bound (or not ending a line) is not one.
        assert_eq!(leading_note(&o, &o[..34]), 0);
        let long = format!("{}\n{head}", "x".repeat(LEADING_NOTE_MAX + 1));
        assert_eq!(leading_note(&o, &long), 0);
        assert_eq!(leading_note(&o, &format!("[cut] {head}")), 0);
    }

    #[test]
    fn a_wrong_line_count_is_not_hidden_by_a_right_unit_count() {
        let o = lines(100, "end");
        let c = cap(400, Unit::Chars);
        let head = &o[..34]; // two whole lines
        let tail = &o[o.len() - 20..];
        let gone = o.chars().count() - 54;
        let lines_gone = o[34..o.len() - 20].matches('\n').count();
        let right = format!("{head}[{gone} chars and {lines_gone} lines omitted]{tail}");
        assert_eq!(check_counts(&o, &right, &c), Ok(()));
        assert_eq!(check_lines(&o, &right), Ok(()));
        let wrong_lines = format!(
            "{head}[{gone} chars and {} lines omitted]{tail}",
            lines_gone * 3
        );
        let err = check_counts(&o, &wrong_lines, &c).unwrap_err();
        assert!(err.contains("lines"), "{err}");
        // The reverse: right lines, no unit count: CAP-6 fails, HT-3 passes.
        let only_lines = format!("{head}[{lines_gone} lines omitted]{tail}");
        assert!(check_counts(&o, &only_lines, &c).is_err());
        assert_eq!(check_lines(&o, &only_lines), Ok(()));
        let only_chars = format!("{head}[{gone} chars omitted]{tail}");
        assert!(check_lines(&o, &only_chars).is_err());
    }

    #[test]
    fn chars_are_counted_in_chars_and_a_byte_label_must_be_true_in_bytes() {
        let o = "é".repeat(100);
        let c = cap(50, Unit::Chars);
        let content = format!("{}[60 chars omitted]{}", "é".repeat(20), "é".repeat(20));
        assert_eq!(check_counts(&o, &content, &c), Ok(()));
        let bytes = format!("{}[120 bytes omitted]{}", "é".repeat(20), "é".repeat(20));
        assert!(check_counts(&o, &bytes, &c).is_err(), "no chars count");
        let both = format!(
            "{}[60 chars (120 bytes) omitted]{}",
            "é".repeat(20),
            "é".repeat(20)
        );
        assert_eq!(check_counts(&o, &both, &c), Ok(()));
        // Chars counted and labelled as bytes: the classic lie, caught.
        let lie = format!(
            "{}[80 chars (80 bytes) omitted]{}",
            "é".repeat(10),
            "é".repeat(10)
        );
        assert!(check_counts(&o, &lie, &c).is_err(), "80 bytes is false");
        let honest = format!(
            "{}[80 chars (160 bytes) omitted]{}",
            "é".repeat(10),
            "é".repeat(10)
        );
        assert_eq!(check_counts(&o, &honest, &c), Ok(()));
    }

    /// The longest suffix of `o` that occurs in `hay`, by trying every char boundary.
    fn longest_suffix_brute(o: &str, hay: &str) -> usize {
        (0..=o.len())
            .filter(|&i| o.is_char_boundary(i) && hay.contains(&o[i..]))
            .map(|i| o.len() - i)
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn longest_suffix_agrees_with_trying_every_start() {
        let words = ["a", "b", "é", "ab", "ba", "\n", "😀"];
        // Short strings over a small alphabet with multibyte chars, about 4,500 pairs of them.
        let mut texts = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| words.iter().map(move |w| format!("{t}{w}")))
                .collect();
            texts.extend(longer);
        }
        texts.sort();
        texts.dedup();
        for o in texts.iter().step_by(7) {
            for hay in texts.iter().step_by(5) {
                assert_eq!(
                    longest_suffix_in(o, hay),
                    longest_suffix_brute(o, hay),
                    "o {o:?} hay {hay:?}"
                );
            }
        }
    }

    #[test]
    fn numbers_with_group_separators() {
        let got: Vec<u64> = numbers("cut 1,234 of 5_000, then 7,")
            .into_iter()
            .map(|n| n.2)
            .collect();
        assert_eq!(got, vec![1234, 5000, 7]);
        assert_eq!(common_prefix("aé", "aè"), 1);
        assert_eq!(longest_suffix_in("abcdé", "xxcdéyy"), 4);
        assert_eq!(longest_suffix_in("abc", "zzz"), 0);
        assert_eq!(longest_suffix_in("abc", "xabcx"), 3);
        assert_eq!(longest_suffix_in("zbc", "xabcbc"), 2);
        assert_eq!(longest_suffix_in("é", "xé"), 2);
        assert_eq!(longest_suffix_in("aé", "é"), 2);
        assert_eq!(label_after(" Bytes omitted"), Some(Label::Bytes));
        assert_eq!(label_after("lines"), Some(Label::Lines));
        assert_eq!(label_after(" tokens"), Some(Label::Tokens));
        assert_eq!(label_after(" words"), None);
        assert_eq!(label_after("bytesx"), None);
    }
}
