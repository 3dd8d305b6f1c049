//! The output cap: the content a model sees never exceeds a limit, and says what was cut.
//!
//! This module is public and usable on its own (the fuzzers drive it directly). It is pure:
//! no I/O except reading the caller's own reader in [`cap_reader`].
//!
//! # Semantics
//!
//! * The limit counts UTF-8 bytes ([`Unit::Bytes`]) or Unicode scalar values ([`Unit::Chars`],
//!   Rust's `char`). The final content, **note included**, never exceeds it.
//! * A text whose size is at most the limit is returned unchanged ([`Capped::truncation`] is
//!   `None`). Hence capping is idempotent: a capped content is within the limit, so capping it
//!   again changes nothing.
//! * Otherwise the content is `head + "\n" + note + "\n" + tail` ([`Strategy::HeadTail`], the
//!   default) or `head + "\n" + note` ([`Strategy::HeadOnly`]). `head` is a prefix and `tail` a
//!   suffix of the original; a cut never splits a code point (in bytes mode the head is rounded
//!   down and the tail's start rounded up to a character boundary).
//! * Budget: `reserve` is the length of the separators plus the note written with the
//!   *largest* numbers it could hold (omitted = the whole size, lines = all lines), so the
//!   real note always fits. `budget = limit - reserve`; head-only keeps `budget` units of head;
//!   head+tail gives the head `budget * head_permille / 1000` (rounded down) and the tail the
//!   rest. So the last line of the original (a stack trace's final `ValueError: ...`) survives
//!   whenever its length (plus its trailing newline, if any) is at most the tail budget.
//! * The note is ASCII (one byte = one char) and reads, for head+tail,
//!   `[truncated: 3000 of 5000 chars omitted from the middle (41 of 63 lines); to see them,
//!   call again asking for a narrower range]` (head-only says `at the end`). "Lines omitted"
//!   is the number of `\n` inside the omitted span; "lines" of the original is the number of
//!   `\n` plus one if the text is non-empty and does not end with `\n`.
//! * **Limit smaller than the reserve** (the note cannot fit beside any text): the content is
//!   the note alone, cut to the limit (a limit of 0 gives empty content). No original text is
//!   kept; [`Truncation`] still reports the exact numbers. The model learns that something was
//!   cut as far as the limit allows.
//!
//! # Other units and strategies
//!
//! * [`Unit::Lines`] counts lines: a line ends at `\n`, and a non-empty last line without one
//!   counts too. A cut keeps whole lines: `head + note + "\n" + tail` (the head ends with its
//!   `\n`, so no separator line is added); the note is one line, so the budget is `limit - 1`
//!   lines. A lines cap bounds lines, not bytes: one huge line stays huge.
//! * [`Strategy::Reject`] is not a cut: the harness turns an output over the limit
//!   ([`over_limit`]) into an error result. [`cap`] under `Reject` cuts head+tail, which is what
//!   the harness does to its own error messages.
//! * [`Strategy::Spill`] keeps the full output aside as an artifact and shows a head-only
//!   preview whose note gives the total size and the artifact's id ([`Truncation::artifact`],
//!   [`artifact_id`]): `[output too large: 5000 chars in total (63 lines), the first 1800 shown;
//!   the full output is kept as artifact out-…; read it in narrower ranges]`.
//!
//! # Streaming
//!
//! [`StreamCapper`] (and [`cap_chunks`], [`cap_reader`]) accept the output in chunks and hold
//! O(limit) memory: the first `limit` units and a window over the last `limit` to `2 × limit`
//! units, plus counters. At the end, the same assembly function as [`cap`] runs over those
//! buffers, so both forms produce byte-identical results.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Read};

/// What a cap counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Unit {
    /// UTF-8 bytes.
    #[default]
    Bytes,
    /// Unicode scalar values (Rust `char`; Python's code points minus surrogates).
    Chars,
    /// Lines ([`count_lines`]).
    Lines,
    /// Estimated tokens ([`TokenEstimate`]): `ceil(size / divisor)` of the size in bytes or
    /// chars. A limit of `n` tokens is exactly a limit of `n × divisor` in that unit, which is
    /// how the cut is made; the note states its amounts in tokens.
    Tokens(TokenEstimate),
}

/// What a token estimate counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Counted {
    /// UTF-8 bytes (openai/codex: 4 bytes a token).
    #[default]
    Bytes,
    /// Unicode scalar values.
    Chars,
}

/// How tokens are estimated: `ceil(size / divisor)` of the size counted in `of`. A formula, not
/// a model's tokenizer, so anyone can apply it exactly (SPEC.md TOKCAP-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenEstimate {
    /// What is counted.
    pub of: Counted,
    /// How many counted units make a token (0 is read as 1).
    pub divisor: u32,
}

impl TokenEstimate {
    /// Bytes divided by 4, rounded up: the estimate openai/codex uses.
    pub const BYTES_OVER_4: TokenEstimate = TokenEstimate {
        of: Counted::Bytes,
        divisor: 4,
    };

    /// The unit counted.
    pub fn counted(self) -> Unit {
        match self.of {
            Counted::Bytes => Unit::Bytes,
            Counted::Chars => Unit::Chars,
        }
    }

    fn divisor(self) -> usize {
        self.divisor.max(1) as usize
    }

    /// Tokens in `n` counted units.
    pub fn tokens(self, n: u64) -> u64 {
        n.div_ceil(self.divisor() as u64)
    }

    /// Counted units `tokens` tokens allow (saturating).
    pub fn counted_limit(self, tokens: usize) -> usize {
        tokens.saturating_mul(self.divisor())
    }
}

impl Unit {
    /// `"bytes"`, `"chars"`, `"lines"` or `"tokens"`: the word used in notes and on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Bytes => "bytes",
            Unit::Chars => "chars",
            Unit::Lines => "lines",
            Unit::Tokens(_) => "tokens",
        }
    }

    /// The unit text is counted and cut in: a token estimate's unit, else the unit itself.
    pub fn counting(self) -> Unit {
        match self {
            Unit::Tokens(e) => e.counted(),
            u => u,
        }
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which part of an oversized output is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Strategy {
    /// Keep the beginning and the end, cut the middle (the default: a stack trace's last line
    /// is usually the one that matters).
    #[default]
    HeadTail,
    /// Keep the beginning only.
    HeadOnly,
    /// Refuse an output over the limit with an error result (the harness's job; see the
    /// module documentation).
    Reject,
    /// Keep the full output as an artifact and show a head-only preview naming it.
    Spill,
}

impl Strategy {
    /// `"head_tail"` or `"head_only"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::HeadTail => "head_tail",
            Strategy::HeadOnly => "head_only",
            Strategy::Reject => "reject",
            Strategy::Spill => "spill",
        }
    }
}

/// How to cap: the limit, its unit, the strategy and (for head+tail) the head's share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CapConfig {
    /// The largest content size, note included, in `unit`s.
    pub limit: usize,
    /// What `limit` counts.
    pub unit: Unit,
    /// Which part is kept.
    pub strategy: Strategy,
    /// For head+tail: the head's share of the text budget, in thousandths (clamped to 1000).
    /// 500 (the default) splits evenly; the tail gets the rounding remainder.
    pub head_permille: u16,
}

impl Default for CapConfig {
    /// 16 KiB, bytes, head+tail, even split.
    fn default() -> Self {
        CapConfig {
            limit: 16 * 1024,
            unit: Unit::Bytes,
            strategy: Strategy::HeadTail,
            head_permille: 500,
        }
    }
}

impl CapConfig {
    /// A head+tail cap with an even split.
    pub fn new(limit: usize, unit: Unit) -> Self {
        CapConfig {
            limit,
            unit,
            ..CapConfig::default()
        }
    }

    /// The same cap within the room left in the model's context window, `remaining` in the
    /// cap's unit: the smaller of the two limits, so a result never takes more of the context
    /// than is left (google-gemini/gemini-cli PR #8379; SPEC.md TOKCAP-3).
    pub fn within_context(mut self, remaining: usize) -> Self {
        self.limit = self.limit.min(remaining);
        self
    }

    /// The same cap with another strategy.
    pub fn with_strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// The same cap with the head's share given as a fraction in `[0, 1]` (clamped; NaN → 0.5).
    pub fn with_head_share(mut self, share: f64) -> Self {
        let share = if share.is_nan() {
            0.5
        } else {
            share.clamp(0.0, 1.0)
        };
        self.head_permille = (share * 1000.0).round() as u16;
        self
    }

    /// The limit in the unit text is counted in ([`Unit::counting`]): `limit` tokens are
    /// `limit × divisor` counted units; other units are counted as they are.
    pub fn counted_limit(&self) -> usize {
        match self.unit {
            Unit::Tokens(e) => e.counted_limit(self.limit),
            _ => self.limit,
        }
    }

    /// The units left for original text once the note is reserved, for a text of
    /// `size` units and `lines` lines (`None` when the note alone does not fit). For a token
    /// cap, `size` and the budget are in its counted unit.
    pub fn text_budget(&self, size: u64, lines: u64) -> Option<(usize, usize)> {
        let reserve = self.reserve(size, lines);
        let budget = self.counted_limit().checked_sub(reserve)?;
        Some(self.split(budget))
    }

    fn split(&self, budget: usize) -> (usize, usize) {
        match self.strategy {
            Strategy::HeadOnly | Strategy::Spill => (budget, 0),
            Strategy::HeadTail | Strategy::Reject => {
                let permille = usize::from(self.head_permille.min(1000));
                // budget * permille / 1000 without overflow for any usize budget.
                let head = (budget / 1000) * permille + (budget % 1000) * permille / 1000;
                (head, budget - head)
            }
        }
    }

    fn separators(&self) -> usize {
        match (self.unit, self.strategy) {
            // The head ends with its own `\n`; the note's line ends the note.
            (Unit::Lines, _) => 0,
            (_, Strategy::HeadTail | Strategy::Reject) => 2,
            (_, Strategy::HeadOnly | Strategy::Spill) => 1,
        }
    }

    /// The same cap as error messages get it: `reject` and `spill` apply to a handler's
    /// output; a message the harness composed is cut head+tail.
    pub fn for_messages(self) -> CapConfig {
        match self.strategy {
            Strategy::Reject | Strategy::Spill => self.with_strategy(Strategy::HeadTail),
            _ => self,
        }
    }

    /// Separators plus the note written with its largest possible numbers (for a token cap,
    /// counted units: never fewer than the tokens the note will state).
    fn reserve(&self, size: u64, lines: u64) -> usize {
        let worst = Truncation {
            unit: self.unit,
            strategy: self.strategy,
            limit: self.limit,
            original_size: size,
            original_lines: lines,
            // A spill's note shows the head's size: the largest it could be.
            head_size: size,
            tail_size: 0,
            omitted_size: size,
            omitted_lines: lines,
            artifact: (self.strategy == Strategy::Spill).then_some(u64::MAX),
        };
        match self.unit {
            // The note is one line.
            Unit::Lines => 1,
            _ => self.separators() + worst.note().len(),
        }
    }
}

/// What a cut removed, in the cap's unit. Present only when something was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Truncation {
    /// The unit of every size here.
    pub unit: Unit,
    /// The strategy used.
    pub strategy: Strategy,
    /// The limit that applied.
    pub limit: usize,
    /// The original output's size.
    pub original_size: u64,
    /// The original output's lines (`\n` count, plus one for a non-empty unterminated last line).
    pub original_lines: u64,
    /// Units of the original kept at the start.
    pub head_size: u64,
    /// Units of the original kept at the end.
    pub tail_size: u64,
    /// Units of the original omitted (`original_size - head_size - tail_size`).
    pub omitted_size: u64,
    /// `\n` characters inside the omitted span.
    pub omitted_lines: u64,
    /// Under [`Strategy::Spill`]: the artifact holding the full output ([`artifact_id`]).
    pub artifact: Option<u64>,
}

impl Truncation {
    /// Units of the original that the content keeps (head plus tail; the note not counted).
    pub fn kept_size(&self) -> u64 {
        self.head_size + self.tail_size
    }

    /// The note exactly as it appears in the content (without separators).
    pub fn note(&self) -> String {
        if let Some(id) = self.artifact {
            return format!(
                "[output too large: {} {} in total ({} lines), the first {} shown; the full output is kept as artifact {}; read it in narrower ranges]",
                self.original_size,
                self.unit,
                self.original_lines,
                self.head_size,
                artifact_id(id)
            );
        }
        let place = match self.strategy {
            Strategy::HeadTail | Strategy::Reject => "from the middle",
            Strategy::HeadOnly | Strategy::Spill => "at the end",
        };
        format!(
            "[truncated: {} of {} {} omitted {} ({} of {} lines); to see them, call again asking for a narrower range]",
            self.omitted_size, self.original_size, self.unit, place, self.omitted_lines, self.original_lines
        )
    }
}

/// How a copy of harness-ref's note in an output is kept from reading as harness-ref's own
/// (SPEC.md FORGE-1): before capping, every opening of a note in the output text is rewritten
/// to an opening of the same length that no note of harness-ref has. The length is kept so
/// that sizes, and so every number a note states, are the same as the output's; `[tool text`
/// says whose words follow. A harness shows text it did not write; a model told that its
/// harness's notes start `[truncated: ` can then tell a handler's copy from the real note
/// (claude-code #75758: a fake `<system-reminder>` in command output).
pub const NOTE_ESCAPES: [(&str, &str); 2] = [
    ("[truncated: ", "[tool text: "),
    ("[output too large: ", "[tool text, large: "),
];

/// `text` with every note opening rewritten ([`NOTE_ESCAPES`]); borrowed when it has none.
/// Escaping twice changes nothing more (no replacement holds an opening).
pub fn escape_note_copies(text: &str) -> Cow<'_, str> {
    escape_with(text, &NOTE_ESCAPES)
}

/// `text` with each `(from, to)` of `escapes` applied in order; borrowed when none occurs.
pub fn escape_with<'a>(text: &'a str, escapes: &[(&str, &str)]) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for (from, to) in escapes {
        if out.contains(from) {
            out = Cow::Owned(out.replace(from, to));
        }
    }
    out
}

/// The note openings and a wrapper's markers ([`crate::wrap::MARKER_ESCAPES`]) together.
pub const NOTE_AND_MARKER_ESCAPES: [(&str, &str); 4] = [
    NOTE_ESCAPES[0],
    NOTE_ESCAPES[1],
    crate::wrap::MARKER_ESCAPES[0],
    crate::wrap::MARKER_ESCAPES[1],
];

/// [`escape_note_copies`] over an output that arrives in chunks: an opening split between two
/// chunks is held back until the next one shows whether it is complete. Other escapes (a
/// wrapper's markers too) with [`NoteEscaper::with_escapes`].
#[derive(Debug)]
pub struct NoteEscaper {
    pending: String,
    escapes: &'static [(&'static str, &'static str)],
}

impl Default for NoteEscaper {
    fn default() -> Self {
        NoteEscaper::with_escapes(&NOTE_ESCAPES)
    }
}

impl NoteEscaper {
    /// An escaper that applies `escapes` ([`escape_with`]).
    pub fn with_escapes(escapes: &'static [(&'static str, &'static str)]) -> Self {
        NoteEscaper {
            pending: String::new(),
            escapes,
        }
    }

    /// The escaped text that can be released once `chunk` is added.
    pub fn push(&mut self, chunk: &str) -> String {
        self.pending.push_str(chunk);
        // The longest end of the pending text that could begin an opening: openings are ASCII
        // (note openings start with `[`, markers with `<`), so the cut is on a character
        // boundary.
        let held = self
            .escapes
            .iter()
            .filter_map(|(from, _)| {
                (1..from.len())
                    .rev()
                    .find(|&k| self.pending.as_bytes().ends_with(&from.as_bytes()[..k]))
            })
            .max()
            .unwrap_or(0);
        let cut = self.pending.len() - held;
        let out = escape_with(&self.pending[..cut], self.escapes).into_owned();
        self.pending.drain(..cut);
        out
    }

    /// The rest, escaped.
    pub fn finish(self) -> String {
        escape_with(&self.pending, self.escapes).into_owned()
    }
}

/// The result of capping: the content to show and, if something was cut, what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capped<'a> {
    /// The content, within the limit. Borrowed when nothing was cut.
    pub content: Cow<'a, str>,
    /// What was cut, or `None` when the text fit.
    pub truncation: Option<Truncation>,
}

impl Capped<'_> {
    /// The same result owning its content.
    pub fn into_owned(self) -> Capped<'static> {
        Capped {
            content: Cow::Owned(self.content.into_owned()),
            truncation: self.truncation,
        }
    }
}

/// The size of `text` in `unit` (tokens as the estimate counts them).
pub fn measure(text: &str, unit: Unit) -> usize {
    match unit {
        Unit::Bytes => text.len(),
        Unit::Chars => text.chars().count(),
        Unit::Lines => count_lines(text) as usize,
        Unit::Tokens(e) => e.tokens(measure(text, e.counted()) as u64) as usize,
    }
}

/// The size of `text` when it is over `config`'s limit (what [`Strategy::Reject`] refuses),
/// else `None`.
pub fn over_limit(text: &str, config: &CapConfig) -> Option<u64> {
    if text.len() <= config.counted_limit() {
        return None;
    }
    let size = measure(text, config.unit);
    (size > config.limit).then_some(size as u64)
}

/// The artifact hash of a spilled output: FNV-1a over its bytes, so the same output always
/// gets the same id (results are byte-identical across runs).
pub fn artifact_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The id a spilled output is kept under, as the note shows it (fixed width).
pub fn artifact_id(hash: u64) -> String {
    format!("out-{hash:016x}")
}

/// The number of lines: `\n` count, plus one when `text` is non-empty and does not end in `\n`.
pub fn count_lines(text: &str) -> u64 {
    let newlines = count_newlines(text.as_bytes());
    newlines + u64::from(!text.is_empty() && !text.ends_with('\n'))
}

fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// Caps `text` in memory. See the module documentation for the exact semantics.
// Inlined: most outputs are within the cap, and that check is all they need.
#[inline]
pub fn cap<'a>(text: &'a str, config: &CapConfig) -> Capped<'a> {
    // A text of at most `limit` bytes has at most `limit` chars: no counting needed.
    if text.len() <= config.counted_limit() {
        return Capped {
            content: Cow::Borrowed(text),
            truncation: None,
        };
    }
    cap_counted(text, config)
}

/// [`cap`] for a text of more than `limit` bytes: its size in `config`'s unit decides.
fn cap_counted<'a>(text: &'a str, config: &CapConfig) -> Capped<'a> {
    let (size, newlines) = match config.unit.counting() {
        Unit::Bytes => (text.len(), count_newlines(text.as_bytes())),
        Unit::Chars => count_chars_and_newlines(text),
        Unit::Lines => (count_lines(text) as usize, count_newlines(text.as_bytes())),
        // `counting` never answers tokens.
        Unit::Tokens(_) => (
            measure(text, config.unit.counting()),
            count_newlines(text.as_bytes()),
        ),
    };
    if size <= config.counted_limit() {
        return Capped {
            content: Cow::Borrowed(text),
            truncation: None,
        };
    }
    let lines = newlines + u64::from(!text.ends_with('\n'));
    let spilled = (config.strategy == Strategy::Spill).then(|| artifact_hash(text));
    let assembled = assemble(text, text, size as u64, newlines, lines, spilled, config);
    Capped {
        content: Cow::Owned(assembled.0),
        truncation: Some(assembled.1),
    }
}

/// Chars and newlines in one sweep: every byte is read once and counted twice, as a newline
/// when it is `\n` and as the start of a char when it is not a UTF-8 continuation byte
/// (`0b10xx_xxxx`). The inner loop works on fixed 32-byte blocks with byte-wide counters (safe
/// code the compiler turns into SIMD compares and subtracts), flushed to wide totals every 255
/// blocks before a byte counter could wrap, so chars mode reads memory as fast as the newline
/// count alone (`docs/benchmarks.md`).
fn count_chars_and_newlines(text: &str) -> (usize, u64) {
    const LANES: usize = 32;
    const ROUNDS: usize = 255;
    let bytes = text.as_bytes();
    let (mut continuations, mut newlines) = (0usize, 0u64);
    let mut groups = bytes.chunks_exact(LANES * ROUNDS);
    let count_blocks = |group: &[u8], continuations: &mut usize, newlines: &mut u64| {
        let mut cont = [0u8; LANES];
        let mut nl = [0u8; LANES];
        for block in group.chunks_exact(LANES) {
            for ((c, n), &b) in cont.iter_mut().zip(nl.iter_mut()).zip(block) {
                *c += u8::from((b as i8) < -64);
                *n += u8::from(b == b'\n');
            }
        }
        *continuations += cont.iter().map(|&c| usize::from(c)).sum::<usize>();
        *newlines += nl.iter().map(|&n| u64::from(n)).sum::<u64>();
    };
    for group in &mut groups {
        count_blocks(group, &mut continuations, &mut newlines);
    }
    let rest = groups.remainder();
    let whole = rest.len() - rest.len() % LANES;
    count_blocks(&rest[..whole], &mut continuations, &mut newlines);
    for &b in &rest[whole..] {
        continuations += usize::from((b as i8) < -64);
        newlines += u64::from(b == b'\n');
    }
    (bytes.len() - continuations, newlines)
}

/// Caps an owned string, reusing it when nothing is cut.
#[inline]
pub fn cap_string(text: String, config: &CapConfig) -> (String, Option<Truncation>) {
    let capped = cap(&text, config);
    match capped.content {
        Cow::Borrowed(_) => (text, None),
        Cow::Owned(content) => (content, capped.truncation),
    }
}

/// Builds the capped content from a prefix and a suffix of the original.
///
/// `head_src` must be a prefix of the original holding at least `min(limit, size)` units (or the
/// largest char-aligned prefix of at most `limit` bytes), and `tail_src` a suffix holding at
/// least as many units, starting on a character boundary; `cap` passes the whole text for both.
fn assemble(
    head_src: &str,
    tail_src: &str,
    size: u64,
    newlines: u64,
    lines: u64,
    artifact: Option<u64>,
    config: &CapConfig,
) -> (String, Truncation) {
    let mut t = Truncation {
        unit: config.unit,
        strategy: config.strategy,
        limit: config.limit,
        original_size: size,
        original_lines: lines,
        head_size: 0,
        tail_size: 0,
        omitted_size: size,
        omitted_lines: newlines,
        artifact,
    };
    let Some((head_units, tail_units)) = config.text_budget(size, lines) else {
        // The note alone does not fit: show as much of it as the limit allows (ASCII, so any
        // byte offset is a character boundary and bytes = chars).
        let t = in_tokens(t, config.unit);
        let mut note = t.note();
        note.truncate(config.counted_limit());
        return (note, t);
    };
    let unit = config.unit.counting();
    let head = prefix_units(head_src, head_units, unit);
    let tail = suffix_units(tail_src, tail_units, unit);
    t.head_size = measure_u64(head, unit);
    t.tail_size = measure_u64(tail, unit);
    t.omitted_size = size - t.head_size - t.tail_size;
    t.omitted_lines = newlines - count_newlines(head.as_bytes()) - count_newlines(tail.as_bytes());
    let t = in_tokens(t, config.unit);
    let note = t.note();
    let mut out = String::with_capacity(head.len() + tail.len() + note.len() + 2);
    out.push_str(head);
    if config.unit != Unit::Lines {
        out.push('\n');
    }
    out.push_str(&note);
    if matches!(config.strategy, Strategy::HeadTail | Strategy::Reject) {
        out.push('\n');
        out.push_str(tail);
    }
    (out, t)
}

fn measure_u64(text: &str, unit: Unit) -> u64 {
    measure(text, unit) as u64
}

/// A cut measured in counted units, stated in tokens under a token cap: each size is the
/// estimate of its own span (the omitted amount is the omitted text's estimate, so it can
/// differ by one from the total's estimate less the kept text's).
fn in_tokens(mut t: Truncation, unit: Unit) -> Truncation {
    if let Unit::Tokens(e) = unit {
        t.original_size = e.tokens(t.original_size);
        t.head_size = e.tokens(t.head_size);
        t.tail_size = e.tokens(t.tail_size);
        t.omitted_size = e.tokens(t.omitted_size);
    }
    t
}

/// The longest prefix of `text` of at most `units` units that ends on a character boundary
/// (whole lines, for [`Unit::Lines`]).
pub fn prefix_units(text: &str, units: usize, unit: Unit) -> &str {
    match unit {
        Unit::Bytes => {
            let mut end = units.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            &text[..end]
        }
        Unit::Chars => match text.char_indices().nth(units) {
            Some((end, _)) => &text[..end],
            None => text,
        },
        Unit::Lines => match memchr::memchr_iter(b'\n', text.as_bytes()).nth(units.wrapping_sub(1))
        {
            _ if units == 0 => &text[..0],
            Some(at) => &text[..=at],
            None => text,
        },
        Unit::Tokens(e) => prefix_units(text, e.counted_limit(units), e.counted()),
    }
}

/// The longest suffix of `text` of at most `units` units that starts on a character boundary
/// (whole lines, for [`Unit::Lines`]).
pub fn suffix_units(text: &str, units: usize, unit: Unit) -> &str {
    match unit {
        Unit::Bytes => {
            let mut start = text.len().saturating_sub(units);
            while !text.is_char_boundary(start) {
                start += 1;
            }
            &text[start..]
        }
        Unit::Chars => {
            if units == 0 {
                return &text[text.len()..];
            }
            match text.char_indices().rev().nth(units - 1) {
                Some((start, _)) => &text[start..],
                None => text,
            }
        }
        Unit::Lines => {
            if units == 0 {
                return &text[text.len()..];
            }
            // The `\n` that ends the line before the kept ones (a final `\n` ends the last
            // line, not a line of its own).
            let body = text.strip_suffix('\n').unwrap_or(text);
            match memchr::memrchr_iter(b'\n', body.as_bytes()).nth(units - 1) {
                Some(at) => &text[at + 1..],
                None => text,
            }
        }
        Unit::Tokens(e) => suffix_units(text, e.counted_limit(units), e.counted()),
    }
}

/// Caps output that arrives in chunks, holding O(limit) memory.
///
/// Feed chunks with [`push`](StreamCapper::push), then call [`finish`](StreamCapper::finish).
/// The result is identical to [`cap`] on the concatenation of the chunks.
#[derive(Debug, Clone)]
pub struct StreamCapper {
    config: CapConfig,
    /// The first `limit` units (fewer if the output is shorter).
    head: String,
    head_units: usize,
    head_done: bool,
    /// The last `limit`..`2 × limit` units seen, starting on a character boundary.
    tail: String,
    tail_units: usize,
    size: u64,
    newlines: u64,
    ends_with_newline: bool,
    /// Under [`Unit::Lines`] or [`Strategy::Spill`]: the whole output (a lines cut needs the
    /// line count first; a spill keeps everything anyway), capped at the end by [`cap`].
    whole: Option<String>,
}

impl StreamCapper {
    /// A capper for `config`.
    pub fn new(config: CapConfig) -> Self {
        StreamCapper {
            config,
            head: String::new(),
            head_units: 0,
            head_done: false,
            tail: String::new(),
            tail_units: 0,
            size: 0,
            newlines: 0,
            ends_with_newline: false,
            whole: (config.unit == Unit::Lines || config.strategy == Strategy::Spill)
                .then(String::new),
        }
    }

    /// Adds the next chunk of output.
    pub fn push(&mut self, chunk: &str) {
        if chunk.is_empty() {
            return;
        }
        if let Some(whole) = &mut self.whole {
            whole.push_str(chunk);
            return;
        }
        // A token cap is counted in its estimate's unit, against the limit in that unit.
        let unit = self.config.unit.counting();
        let limit = self.config.counted_limit();
        let (chunk_units, chunk_newlines) = match unit {
            Unit::Bytes => (chunk.len(), count_newlines(chunk.as_bytes())),
            Unit::Chars => count_chars_and_newlines(chunk),
            // Lines are buffered whole above; `counting` never answers tokens.
            Unit::Lines | Unit::Tokens(_) => (0, 0),
        };
        self.size += chunk_units as u64;
        self.newlines += chunk_newlines;
        self.ends_with_newline = chunk.ends_with('\n');

        if !self.head_done {
            let room = limit - self.head_units;
            let taken = prefix_units(chunk, room, unit);
            self.head.push_str(taken);
            self.head_units += measure(taken, unit);
            if taken.len() < chunk.len() {
                // The head stops here for good, even if a later chunk is small: it must stay
                // a prefix of the whole output.
                self.head_done = true;
            }
        }

        if chunk_units >= limit {
            // This chunk alone covers the window: keep at least its last `limit` units.
            self.tail.clear();
            let start = window_start(chunk, chunk_units, limit, unit);
            self.tail.push_str(&chunk[start..]);
            self.tail_units = measure(&self.tail, unit);
        } else {
            self.tail.push_str(chunk);
            self.tail_units += chunk_units;
            if self.tail_units > limit.saturating_mul(2).max(4096) {
                let start = window_start(&self.tail, self.tail_units, limit, unit);
                self.tail.drain(..start);
                self.tail_units = measure(&self.tail, unit);
            }
        }
    }

    /// The bytes currently held (head and tail buffers), for memory accounting.
    pub fn buffered_bytes(&self) -> usize {
        self.head.capacity()
            + self.tail.capacity()
            + self.whole.as_ref().map_or(0, String::capacity)
    }

    /// The output pushed so far, capped at `limit` (at most the capper's own limit; a larger
    /// one is lowered to it) without finishing: what a harness shows of a stream cut short,
    /// such as a handler's output at its deadline. A `reject` or `spill` capper's snapshot is
    /// cut head+tail, as [`CapConfig::for_messages`] cuts: nothing is kept aside for it.
    pub fn snapshot(&self, limit: usize) -> Capped<'static> {
        let config = CapConfig {
            limit: limit.min(self.config.limit),
            ..self.config.for_messages()
        };
        if let Some(whole) = &self.whole {
            return cap(whole, &config).into_owned();
        }
        if self.size <= config.counted_limit() as u64 {
            // The head holds every unit pushed while the output fits the capper's own limit.
            return Capped {
                content: Cow::Owned(self.head.clone()),
                truncation: None,
            };
        }
        // The head holds at least `limit` units and the window at least the last `limit`:
        // enough for any smaller cut.
        self.cut(&config)
    }

    /// The cut of an output over `config`'s limit from the head and the window (no whole
    /// output held), as [`cap`] makes it.
    fn cut(&self, config: &CapConfig) -> Capped<'static> {
        let lines = self.newlines + u64::from(!self.ends_with_newline);
        let (content, t) = assemble(
            &self.head,
            &self.tail,
            self.size,
            self.newlines,
            lines,
            None,
            config,
        );
        Capped {
            content: Cow::Owned(content),
            truncation: Some(t),
        }
    }

    /// Finishes and returns the capped content.
    pub fn finish(self) -> Capped<'static> {
        if let Some(whole) = &self.whole {
            return cap(whole, &self.config).into_owned();
        }
        if self.size <= self.config.counted_limit() as u64 {
            return Capped {
                content: Cow::Owned(self.head),
                truncation: None,
            };
        }
        self.cut(&self.config)
    }
}

/// A byte offset in `text` (of `units` units) that leaves at least `keep` units after it and
/// lies on a character boundary.
fn window_start(text: &str, units: usize, keep: usize, unit: Unit) -> usize {
    match unit {
        Unit::Bytes => {
            let mut start = text.len().saturating_sub(keep);
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            start
        }
        Unit::Chars => {
            let skip = units.saturating_sub(keep);
            text.char_indices().nth(skip).map_or(text.len(), |(i, _)| i)
        }
        // Lines are buffered whole (`StreamCapper::whole`); never windowed.
        Unit::Lines => 0,
        Unit::Tokens(e) => window_start(text, units, e.counted_limit(keep), e.counted()),
    }
}

/// Caps the concatenation of `chunks` in O(limit) memory.
pub fn cap_chunks<I, S>(chunks: I, config: &CapConfig) -> Capped<'static>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut capper = StreamCapper::new(*config);
    for chunk in chunks {
        capper.push(chunk.as_ref());
    }
    capper.finish()
}

/// Caps everything `reader` yields, decoding UTF-8 incrementally, in O(limit) memory.
///
/// Reads in blocks of 4 × the limit in bytes, at least 4 KiB and at most 64 KiB (a small cap
/// does not allocate and zero a large buffer on every call). Invalid UTF-8 is an [`io::ErrorKind::InvalidData`] error (the
/// harness reports such output as `invalid_tool_output` rather than inventing U+FFFD).
pub fn cap_reader<R: Read>(mut reader: R, config: &CapConfig) -> io::Result<Capped<'static>> {
    let mut capper = StreamCapper::new(*config);
    let mut buf = vec![0u8; config.limit.saturating_mul(4).clamp(4096, 64 * 1024)];
    // Bytes of a code point split across reads (at most 3).
    let mut carry = 0usize;
    // Bytes already handed to the capper, for error positions.
    let mut consumed = 0u64;
    loop {
        let n = match reader.read(&mut buf[carry..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let filled = carry + n;
        if n == 0 {
            if carry > 0 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "output ends inside a UTF-8 sequence",
                ));
            }
            return Ok(capper.finish());
        }
        let valid = match std::str::from_utf8(&buf[..filled]) {
            Ok(s) => s.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(e) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "output is not valid UTF-8 (at byte {})",
                        consumed + e.valid_up_to() as u64
                    ),
                ))
            }
        };
        // Checked just above: buf[..valid] is valid UTF-8.
        let text = std::str::from_utf8(&buf[..valid])
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        capper.push(text);
        consumed += valid as u64;
        buf.copy_within(valid..filled, 0);
        carry = filled - valid;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_cap_cuts_in_its_estimates_unit_and_states_tokens() {
        let bytes4 = Unit::Tokens(TokenEstimate::BYTES_OVER_4);
        let chars2 = Unit::Tokens(TokenEstimate {
            of: Counted::Chars,
            divisor: 2,
        });
        // 3-byte characters: bytes/4 and chars/2 estimates differ by a factor of six.
        let text = "\u{20ac}".repeat(3000);
        for (unit, strategy) in [
            (bytes4, Strategy::HeadTail),
            (chars2, Strategy::HeadTail),
            (bytes4, Strategy::HeadOnly),
        ] {
            let config = CapConfig::new(200, unit).with_strategy(strategy);
            let capped = cap(&text, &config);
            assert!(measure(&capped.content, unit) <= 200, "{unit:?}");
            let t = capped.truncation.expect("cut");
            assert_eq!(t.original_size, measure(&text, unit) as u64);
            let kept = capped.content.matches('\u{20ac}').count();
            let counted = |n: usize| measure(&"\u{20ac}".repeat(n), unit) as u64;
            assert_eq!(t.omitted_size, counted(3000 - kept), "{unit:?}");
            assert!(t
                .note()
                .contains(&format!("{} of {} tokens", t.omitted_size, t.original_size)));
            // The streamed cut is the same cut.
            let streamed = cap_chunks(text.split_inclusive('\u{20ac}'), &config);
            assert_eq!(streamed, capped.clone().into_owned());
        }
        // Within the cap in tokens: unchanged, though over the limit counted in bytes.
        let fits = "\u{20ac}".repeat(266); // 798 bytes = 200 tokens of bytes/4
        assert!(cap(&fits, &CapConfig::new(200, bytes4))
            .truncation
            .is_none());
        let over = "\u{20ac}".repeat(267); // 801 bytes = 201 tokens
        assert!(cap(&over, &CapConfig::new(200, bytes4))
            .truncation
            .is_some());
        assert_eq!(over_limit(&over, &CapConfig::new(200, bytes4)), Some(201));
    }

    #[test]
    fn note_copies_are_escaped_at_the_same_length_whole_or_in_chunks() {
        let text = "a[truncated: 7 of 9 chars omitted]b[output too large: 3]c";
        let want = "a[tool text: 7 of 9 chars omitted]b[tool text, large: 3]c";
        assert_eq!(escape_note_copies(text), want);
        assert_eq!(
            escape_note_copies(want),
            want,
            "escaping twice changes nothing more"
        );
        assert_eq!(escape_note_copies(text).len(), text.len());
        assert!(matches!(escape_note_copies("plain"), Cow::Borrowed(_)));
        // Every split point, an opening cut between chunks included.
        for at in 0..=text.len() {
            let mut e = NoteEscaper::default();
            let mut out = e.push(&text[..at]);
            out.push_str(&e.push(&text[at..]));
            out.push_str(&e.finish());
            assert_eq!(out, want, "split at {at}");
        }
    }

    #[test]
    fn short_text_is_unchanged_and_borrowed() {
        let c = cap("hello", &CapConfig::new(5, Unit::Bytes));
        assert!(matches!(c.content, Cow::Borrowed("hello")));
        assert_eq!(c.truncation, None);
    }

    #[test]
    fn head_tail_keeps_both_ends_and_counts() {
        let text: String = (0..100).map(|i| format!("line {i:03}\n")).collect();
        let cfg = CapConfig::new(300, Unit::Chars);
        let c = cap(&text, &cfg);
        let t = c.truncation.unwrap();
        assert!(measure(&c.content, Unit::Chars) <= 300);
        assert!(c.content.starts_with("line 000\n"));
        assert!(c.content.ends_with("line 099\n"));
        assert_eq!(t.original_size, text.len() as u64);
        assert_eq!(t.original_lines, 100);
        assert_eq!(t.omitted_size + t.kept_size(), t.original_size);
        assert!(c.content.contains(&format!(
            "[truncated: {} of {} chars",
            t.omitted_size, t.original_size
        )));
    }

    #[test]
    fn bytes_mode_never_splits_a_code_point() {
        let text = "é".repeat(1000);
        for limit in 150..160 {
            let c = cap(&text, &CapConfig::new(limit, Unit::Bytes));
            assert!(c.content.len() <= limit);
        }
    }

    #[test]
    fn limit_below_the_note_shows_the_note_cut() {
        let text = "x".repeat(100);
        let c = cap(&text, &CapConfig::new(10, Unit::Bytes));
        assert_eq!(c.content, "[truncated");
        let t = c.truncation.unwrap();
        assert_eq!((t.head_size, t.tail_size, t.omitted_size), (0, 0, 100));
        assert_eq!(cap(&text, &CapConfig::new(0, Unit::Bytes)).content, "");
    }

    #[test]
    fn one_sweep_counting_matches_a_naive_count() {
        // Every length around the 32-byte block and the 255-block group, each offset of
        // multi-byte characters across block edges.
        let pattern = "a東\n😀é\n";
        for len in (0..200).chain(8150..8200).chain([LANES_X_ROUNDS * 3 + 17]) {
            for skip in 0..4 {
                let text: String = pattern.chars().cycle().skip(skip).take(len).collect();
                let (chars, newlines) = count_chars_and_newlines(&text);
                assert_eq!(chars, text.chars().count(), "chars of {len} from {skip}");
                assert_eq!(newlines, text.matches('\n').count() as u64);
            }
        }
        let big = "a東\n😀é".repeat(40_000);
        assert_eq!(count_chars_and_newlines(&big).0, big.chars().count());
    }

    const LANES_X_ROUNDS: usize = 32 * 255;

    #[test]
    fn reader_matches_in_memory() {
        let text = "ab\ncdé\n".repeat(50_000);
        let cfg = CapConfig::new(1000, Unit::Chars);
        let a = cap(&text, &cfg);
        let b = cap_reader(text.as_bytes(), &cfg).unwrap();
        assert_eq!(a, b);
        assert!(cap_reader(&b"ab\xffcd"[..], &cfg).is_err());
        assert!(cap_reader(&b"ab\xc3"[..], &cfg).is_err());
    }

    #[test]
    fn lines_are_counted_honestly_and_cut_whole() {
        // (text, limit, expected content) under a head+tail lines cap with an even split.
        let cases: [(&str, usize, Option<&str>); 4] = [
            ("a\nb\nc\n", 3, None),
            ("a\nb\nc", 3, None),
            ("a\nb\nc\nd", 3, Some("a\n[truncated: 2 of 4 lines omitted from the middle (2 of 4 lines); to see them, call again asking for a narrower range]\nd")),
            ("1\n2\n3\n4\n5\n", 4, Some("1\n[truncated: 2 of 5 lines omitted from the middle (2 of 5 lines); to see them, call again asking for a narrower range]\n4\n5\n")),
        ];
        for (text, limit, want) in cases {
            let cfg = CapConfig::new(limit, Unit::Lines);
            let c = cap(text, &cfg);
            assert_eq!(c.content, want.unwrap_or(text), "{text:?}");
            assert!(count_lines(&c.content) <= limit as u64, "{text:?}");
            assert_eq!(cap_chunks(text.split_inclusive('\n'), &cfg), c.into_owned());
        }
        let head_only = CapConfig::new(2, Unit::Lines).with_strategy(Strategy::HeadOnly);
        let c = cap("a\nb\nc", &head_only);
        assert!(c
            .content
            .starts_with("a\n[truncated: 2 of 3 lines omitted at the end"));
        assert_eq!(count_lines(&c.content), 2);
    }

    #[test]
    fn spill_preview_fits_and_names_the_artifact() {
        let text = "0123456789".repeat(100);
        for unit in [Unit::Bytes, Unit::Chars, Unit::Lines] {
            let limit = if unit == Unit::Lines { 1 } else { 400 };
            let text = if unit == Unit::Lines {
                "x\n".repeat(5)
            } else {
                text.clone()
            };
            let cfg = CapConfig::new(limit, unit).with_strategy(Strategy::Spill);
            let c = cap(&text, &cfg);
            let t = c.truncation.expect("spilled");
            assert!(measure(&c.content, unit) <= limit, "{unit}: {}", c.content);
            assert!(c.content.contains(&artifact_id(artifact_hash(&text))));
            assert!(c
                .content
                .contains(&format!("{} {unit} in total", measure(&text, unit))));
            assert_eq!(t.artifact, Some(artifact_hash(&text)));
        }
    }

    #[test]
    fn a_snapshot_is_the_cap_of_what_was_pushed_so_far() {
        let text: String = (0..400).map(|i| format!("row {i:03} é\n")).collect();
        for unit in [Unit::Bytes, Unit::Chars, Unit::Lines] {
            for strategy in [Strategy::HeadTail, Strategy::HeadOnly, Strategy::Spill] {
                let limit = if unit == Unit::Lines { 40 } else { 1000 };
                let cfg = CapConfig::new(limit, unit).with_strategy(strategy);
                let mut capper = StreamCapper::new(cfg);
                let mut pushed = String::new();
                for chunk in text.split_inclusive('\n').take(300) {
                    capper.push(chunk);
                    pushed.push_str(chunk);
                }
                for smaller in [limit, limit / 2, limit / 3] {
                    let want = cap(
                        &pushed,
                        &CapConfig {
                            limit: smaller,
                            ..cfg.for_messages()
                        },
                    );
                    assert_eq!(
                        capper.snapshot(smaller),
                        want.into_owned(),
                        "{unit} {strategy:?} {smaller}"
                    );
                }
                // Within the limit, nothing is cut.
                let mut short = StreamCapper::new(cfg);
                short.push("row 1\n");
                assert_eq!(short.snapshot(limit).content, "row 1\n");
            }
        }
    }

    #[test]
    fn over_limit_is_what_reject_refuses() {
        let cfg = CapConfig::new(3, Unit::Lines).with_strategy(Strategy::Reject);
        assert_eq!(over_limit("a\nb\nc\n", &cfg), None);
        assert_eq!(over_limit("a\nb\nc\nd", &cfg), Some(4));
        assert_eq!(cfg.for_messages().strategy, Strategy::HeadTail);
    }
}
