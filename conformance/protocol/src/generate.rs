//! Expanding generated outputs, and resolving sizes given relative to the cap.
//!
//! A case describes a 10 MB output in a line of JSON, and describes it relative to the cap so
//! that a harness with a fixed cap is tested as well as one whose cap the case can set. The
//! runner resolves the sizes (it knows the cap from the handshake), sends the resolved case,
//! and expands the same description locally to know exactly what the handler returned.

use std::fmt;
use std::fmt::Write as _;

use crate::case::{
    Behavior, Gen, Lines, NoteCopy, Output, Size, SleepMs, StreamPart, Unit, WireCase, WrapperPart,
};
use crate::message::{NoteDeclaration, WrapperDeclaration};

/// The largest text a description may expand to (in the cap's unit), so that a typo in a case
/// cannot ask an adapter for a terabyte.
pub const MAX_GENERATED_SIZE: u64 = 256 * 1024 * 1024;

/// The largest text a description may expand to in bytes, whatever the cap's unit: a size in
/// chars of a 4-byte character is four times as many bytes, and a `concat` adds its parts up.
/// Checked on the description, before anything is allocated ([`expanded_bytes`]), so a small
/// case file cannot make the runner or an adapter allocate more than this for one output.
pub const MAX_GENERATED_BYTES: u64 = 256 * 1024 * 1024;

/// Why a description could not be expanded or resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GenError {
    /// A relative size reached an adapter, or was expanded before being resolved.
    Unresolved,
    /// `repeat` of an empty string.
    EmptyRepeatUnit,
    /// A `lines` width under 7.
    LineTooNarrow(u64),
    /// A relative size that resolves below zero.
    Negative(i64),
    /// The size is over [`MAX_GENERATED_SIZE`].
    TooLarge(u64),
    /// A relative size that is not a finite, non-negative multiple.
    BadMultiple(String),
    /// A sleep relative to the deadline, for a harness that declares no deadline.
    NoDeadline,
    /// The output would expand to more than [`MAX_GENERATED_BYTES`] bytes (the amount, or
    /// `u64::MAX` when it does not even fit in 64 bits).
    TooManyBytes(u64),
    /// A `synthetic_image` without pixels (a width or height of 0).
    EmptyImage,
    /// A `synthetic_image` whose `bytes` is below the least its pixels take (or between that
    /// and the least a padding chunk takes).
    ImageBytes {
        /// The size the case asked for.
        asked: u64,
        /// The image's size without padding.
        least: u64,
    },
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Unresolved => {
                write!(f, "a size relative to the cap was not resolved to a number")
            }
            GenError::EmptyRepeatUnit => write!(f, "`repeat` needs a non-empty unit"),
            GenError::LineTooNarrow(w) => write!(f, "`lines.width` is {w}; it must be at least 7"),
            GenError::Negative(n) => {
                write!(f, "a size relative to the cap resolves to {n}, below zero")
            }
            GenError::TooLarge(n) => write!(
                f,
                "generated size {n} is over the limit of {MAX_GENERATED_SIZE}"
            ),
            GenError::BadMultiple(m) => {
                write!(f, "multiple {m} is not a finite, non-negative number")
            }
            GenError::NoDeadline => write!(
                f,
                "a sleep relative to the deadline needs a harness that declares a deadline"
            ),
            GenError::TooManyBytes(n) if *n == u64::MAX => write!(
                f,
                "the generated output would be larger than 2^64 bytes, over the limit of {MAX_GENERATED_BYTES} bytes"
            ),
            GenError::TooManyBytes(n) => write!(
                f,
                "the generated output would be {n} bytes, over the limit of {MAX_GENERATED_BYTES} bytes"
            ),
            GenError::EmptyImage => write!(f, "a synthetic image needs a width and a height of at least 1"),
            GenError::ImageBytes { asked, least } => write!(
                f,
                "a synthetic image of {asked} bytes cannot be built: its pixels take {least} bytes, and padding at least 20 more"
            ),
        }
    }
}

impl std::error::Error for GenError {}

/// The size of `text` in `unit`.
pub fn measure(text: &str, unit: Unit) -> u64 {
    match unit {
        Unit::Bytes => text.len() as u64,
        Unit::Chars => text.chars().count() as u64,
        Unit::Lines => {
            let newlines = text.bytes().filter(|&b| b == b'\n').count() as u64;
            newlines + u64::from(!text.is_empty() && !text.ends_with('\n'))
        }
        // No estimator here: chars, the unit a token cap's outputs are generated in when none
        // is known ([`Unit::generation`]). A token cap is measured through its declared
        // estimator ([`crate::TokenEstimator::count`]).
        Unit::Tokens => text.chars().count() as u64,
    }
}

/// Expands a generated output whose sizes are all resolved. Its size in bytes is checked
/// against [`MAX_GENERATED_BYTES`] first, and the text is allocated once at that size.
pub fn materialize(gen: &Gen, unit: Unit) -> Result<String, GenError> {
    // A lines-capped case sizes its outputs in chars.
    let unit = unit.generation();
    let bytes = expanded_bytes(gen, unit)?;
    let mut out = String::with_capacity(bytes as usize);
    expand(gen, unit, &mut out)?;
    Ok(out)
}

/// How many bytes `gen` expands to in `unit`, computed from the description alone (nothing is
/// allocated); an error when a size is unresolved or invalid, or the total is over
/// [`MAX_GENERATED_BYTES`] (found as soon as the running total passes it).
pub fn expanded_bytes(gen: &Gen, unit: Unit) -> Result<u64, GenError> {
    // A lines-capped case sizes its outputs in chars.
    let unit = unit.generation();
    let over = |n: Option<u64>| match n {
        Some(n) if n <= MAX_GENERATED_BYTES => Ok(n),
        Some(n) => Err(GenError::TooManyBytes(n)),
        None => Err(GenError::TooManyBytes(u64::MAX)),
    };
    match gen {
        Gen::Text { text } => over(Some(text.len() as u64)),
        Gen::Repeat { repeat, size } => {
            let size = exact(size)?;
            let each = measure(repeat, unit);
            if each == 0 {
                return Err(GenError::EmptyRepeatUnit);
            }
            over((size / each).checked_mul(repeat.len() as u64))
        }
        Gen::Lines { lines } => {
            let size = exact(&lines.size)?;
            if lines.width < 7 {
                return Err(GenError::LineTooNarrow(lines.width));
            }
            if lines.width > MAX_GENERATED_SIZE {
                return Err(GenError::TooLarge(lines.width));
            }
            let per_line = lines.width + 1;
            let body = size.saturating_sub(measure(&lines.last, unit)) / per_line;
            over(
                body.checked_mul(per_line)
                    .and_then(|b| b.checked_add(lines.last.len() as u64)),
            )
        }
        // Resolved into a `text` by the runner ([`resolve_note_copies`]) before anything expands.
        Gen::NoteCopy { .. } | Gen::WrapperCopy { .. } => Err(GenError::Unresolved),
        Gen::Concat { concat } => {
            let mut total: u64 = 0;
            for part in concat {
                total = over(total.checked_add(expanded_bytes(part, unit)?))?;
            }
            Ok(total)
        }
    }
}

/// Checks that every generated output of a resolved case expands to at most
/// [`MAX_GENERATED_BYTES`] in `unit`, before the case is sent or anything is expanded.
pub fn check_expansion(case: &WireCase, unit: Unit) -> Result<(), GenError> {
    // A lines-capped case sizes its outputs in chars.
    let unit = unit.generation();
    for tool in &case.tools {
        let mut behavior = &tool.behavior;
        loop {
            match behavior {
                Behavior::Sleep { then, .. } | Behavior::MutateArgs { then, .. } => behavior = then,
                Behavior::Return {
                    output: Output::Generate(gen),
                } => {
                    expanded_bytes(gen, unit)?;
                    break;
                }
                Behavior::Return {
                    output: Output::Stream(parts),
                } => {
                    let mut total: u64 = 0;
                    for part in parts {
                        if let StreamPart::Generate(gen) = part {
                            total = total
                                .checked_add(expanded_bytes(gen, unit)?)
                                .filter(|&t| t <= MAX_GENERATED_BYTES)
                                .ok_or(GenError::TooLarge(total))?;
                        }
                    }
                    break;
                }
                Behavior::Return { .. } | Behavior::Raise { .. } => break,
            }
        }
    }
    Ok(())
}

fn exact(size: &Size) -> Result<u64, GenError> {
    match *size {
        Size::Exact(n) if n > MAX_GENERATED_SIZE => Err(GenError::TooLarge(n)),
        Size::Exact(n) => Ok(n),
        Size::Relative { .. } => Err(GenError::Unresolved),
    }
}

fn expand(gen: &Gen, unit: Unit, out: &mut String) -> Result<(), GenError> {
    match gen {
        Gen::Text { text } => out.push_str(text),
        Gen::Repeat { repeat, size } => {
            let size = exact(size)?;
            let each = measure(repeat, unit);
            if each == 0 {
                return Err(GenError::EmptyRepeatUnit);
            }
            let count = (size / each) as usize;
            // Doubling copies: a one-byte unit repeated millions of times is a few memcpys.
            let (start, total) = (out.len(), repeat.len() * count);
            if count > 0 {
                out.push_str(repeat);
            }
            while out.len() - start < total {
                let have = out.len() - start;
                out.extend_from_within(start..start + have.min(total - have));
            }
        }
        Gen::Lines { lines } => expand_lines(lines, unit, out)?,
        Gen::NoteCopy { .. } | Gen::WrapperCopy { .. } => return Err(GenError::Unresolved),
        Gen::Concat { concat } => {
            for part in concat {
                expand(part, unit, out)?;
            }
        }
    }
    // No size check here: `materialize` bounded the whole expansion in bytes beforehand, and a
    // text is never smaller in bytes than in either unit.
    Ok(())
}

fn expand_lines(lines: &Lines, unit: Unit, out: &mut String) -> Result<(), GenError> {
    let size = exact(&lines.size)?;
    if lines.width < 7 {
        return Err(GenError::LineTooNarrow(lines.width));
    }
    if lines.width > MAX_GENERATED_SIZE {
        return Err(GenError::TooLarge(lines.width));
    }
    let last = measure(&lines.last, unit);
    // Body lines are ASCII, so a line plus its newline is `width + 1` in either unit.
    let per_line = lines.width + 1;
    let body = size.saturating_sub(last) / per_line;
    // Modulo a million, so the prefix is always 7 chars whatever the line count and the size
    // formula above stays exact; the padding is the same for every line.
    let padding = "x".repeat((lines.width - 7) as usize);
    for i in 1..=body {
        // Writing to a String cannot fail.
        let _ = write!(out, "{:06} ", i % 1_000_000);
        out.push_str(&padding);
        out.push('\n');
    }
    out.push_str(&lines.last);
    Ok(())
}

/// Resolves every relative size in a case against the harness's cap limit. A case with a sleep
/// relative to the deadline needs [`resolve_case_with`].
pub fn resolve_case(case: &mut WireCase, cap_limit: u64) -> Result<(), GenError> {
    resolve_case_with(case, cap_limit, None)
}

/// Resolves every relative size against `cap_limit` and every relative sleep against
/// `deadline_ms`, the deadline the harness will apply (`None`: it has none).
pub fn resolve_case_with(
    case: &mut WireCase,
    cap_limit: u64,
    deadline_ms: Option<u64>,
) -> Result<(), GenError> {
    for tool in &mut case.tools {
        resolve_behavior(&mut tool.behavior, cap_limit, deadline_ms)?;
    }
    // The room left in the context (feature `context-cap`), when still relative. The runner
    // sends it resolved against the cap in the cap's own unit before this runs.
    if let Some(remaining) = case.config.cap.as_mut().and_then(|c| c.remaining.as_mut()) {
        resolve_size(remaining.as_mut(), cap_limit)?;
    }
    Ok(())
}

fn resolve_behavior(
    behavior: &mut Behavior,
    cap_limit: u64,
    deadline_ms: Option<u64>,
) -> Result<(), GenError> {
    match behavior {
        Behavior::Return {
            output: Output::Generate(gen),
        } => resolve_gen(gen, cap_limit),
        Behavior::Return {
            output: Output::Stream(parts),
        } => {
            for part in parts {
                match part {
                    StreamPart::Text(_) => {}
                    StreamPart::Generate(gen) => resolve_gen(gen, cap_limit)?,
                    StreamPart::SleepMs(sleep_ms) => resolve_sleep(sleep_ms, deadline_ms)?,
                }
            }
            // The stream's waits together are bounded like one sleep.
            let total = behavior.scripted_sleep_ms();
            if total > MAX_SLEEP_MS {
                return Err(GenError::TooLarge(total));
            }
            Ok(())
        }
        Behavior::Return {
            output: Output::ContentBlocks(blocks),
        } => build_images(blocks),
        Behavior::Return {
            output: Output::McpResult(result),
        } => build_images(&mut result.content),
        Behavior::Return { .. } | Behavior::Raise { .. } => Ok(()),
        Behavior::Sleep { sleep_ms, then } => {
            resolve_sleep(sleep_ms, deadline_ms)?;
            resolve_behavior(then, cap_limit, deadline_ms)
        }
        Behavior::MutateArgs { then, .. } => resolve_behavior(then, cap_limit, deadline_ms),
    }
}

fn resolve_sleep(sleep_ms: &mut SleepMs, deadline_ms: Option<u64>) -> Result<(), GenError> {
    match *sleep_ms {
        SleepMs::Relative { deadline, plus } => {
            let base = deadline_ms.ok_or(GenError::NoDeadline)?;
            *sleep_ms = SleepMs::Exact(scale(base, deadline, plus, MAX_SLEEP_MS)?);
        }
        // An exact sleep is bounded like a relative one: a case file cannot make the runner
        // wait longer than this for one handler.
        SleepMs::Exact(ms) if ms > MAX_SLEEP_MS => return Err(GenError::TooLarge(ms)),
        SleepMs::Exact(_) => {}
    }
    Ok(())
}

/// The longest sleep a handler may be scripted to make (ten minutes), given exactly or relative
/// to the deadline: a case cannot make a runner wait for hours, whether by its own numbers or
/// because a harness declares an absurd default deadline.
pub const MAX_SLEEP_MS: u64 = 600_000;

/// `floor(base × multiple) + plus`, checked: finite, non-negative, at most `max`.
fn scale(base: u64, multiple: f64, plus: i64, max: u64) -> Result<u64, GenError> {
    if !multiple.is_finite() || multiple < 0.0 {
        return Err(GenError::BadMultiple(multiple.to_string()));
    }
    let scaled = (base as f64 * multiple).floor();
    if scaled > max as f64 {
        return Err(GenError::TooLarge(scaled as u64));
    }
    let n = (scaled as i64).saturating_add(plus);
    if n < 0 {
        return Err(GenError::Negative(n));
    }
    let n = n as u64;
    if n > max {
        return Err(GenError::TooLarge(n));
    }
    Ok(n)
}

/// Replaces every `synthetic_image` block by the image it describes (SPEC.md BLOCK-6).
fn build_images(blocks: &mut [crate::ContentBlock]) -> Result<(), GenError> {
    for block in blocks {
        if let crate::ContentBlock::SyntheticImage(spec) = block {
            *block = spec.block()?;
        }
    }
    Ok(())
}

fn resolve_gen(gen: &mut Gen, cap_limit: u64) -> Result<(), GenError> {
    match gen {
        Gen::Text { .. } | Gen::NoteCopy { .. } | Gen::WrapperCopy { .. } => Ok(()),
        Gen::Repeat { size, .. } => resolve_size(size, cap_limit),
        Gen::Lines { lines } => resolve_size(&mut lines.size, cap_limit),
        Gen::Concat { concat } => concat
            .iter_mut()
            .try_for_each(|part| resolve_gen(part, cap_limit)),
    }
}

fn resolve_size(size: &mut Size, cap_limit: u64) -> Result<(), GenError> {
    if let Size::Relative { cap, plus } = *size {
        *size = Size::Exact(scale(cap_limit, cap, plus, MAX_GENERATED_SIZE)?);
    }
    Ok(())
}

/// Replaces every forged note copy of a case ([`Gen::NoteCopy`]) by the text it stands for:
/// the harness's declared note form ([`NoteDeclaration::form`]) with its placeholders filled
/// ([`render_note`]), or, for a harness whose note is outside the content and has no form, a
/// generic note (`[... 7 chars omitted ...]`). `unit` is the case's cap unit.
pub fn resolve_note_copies(
    case: &mut WireCase,
    note: Option<&NoteDeclaration>,
    unit: Unit,
) -> Result<(), GenError> {
    fn gen(g: &mut Gen, form: &str, unit: Unit) {
        match g {
            Gen::NoteCopy { note_copy } => {
                *g = Gen::Text {
                    text: render_note(form, note_copy, unit),
                }
            }
            Gen::Concat { concat } => concat.iter_mut().for_each(|p| gen(p, form, unit)),
            Gen::Text { .. } | Gen::Repeat { .. } | Gen::Lines { .. } | Gen::WrapperCopy { .. } => {
            }
        }
    }
    let form = note
        .and_then(|n| n.form.as_deref())
        .unwrap_or(GENERIC_NOTE_FORM);
    for_each_generated_output(case, |g| gen(g, form, unit));
    Ok(())
}

/// Calls `f` on the generated output (`{"return": {"generate": …}}`) each tool of the case
/// ends with, through its `sleep_ms` and `mutate_args` steps: where forged copies of the
/// harness's own text (a note, a wrapper marker) can stand.
fn for_each_generated_output(case: &mut WireCase, mut f: impl FnMut(&mut Gen)) {
    for tool in &mut case.tools {
        let mut behavior = &mut tool.behavior;
        loop {
            match behavior {
                Behavior::Sleep { then, .. } | Behavior::MutateArgs { then, .. } => behavior = then,
                Behavior::Return {
                    output: Output::Generate(g),
                } => {
                    f(g);
                    break;
                }
                Behavior::Return { .. } | Behavior::Raise { .. } => break,
            }
        }
    }
}

/// Replaces every forged wrapper marker of a case ([`Gen::WrapperCopy`]) by the declared
/// marker with the nonce [`FORGED_NONCE`]. A case with such a copy needs `wrapper`, so
/// `wrapper` is the harness's declaration (absent: the copy is left for the case's
/// expansion to refuse as unresolved).
pub fn resolve_wrapper_copies(
    case: &mut WireCase,
    wrapper: Option<&WrapperDeclaration>,
) -> Result<(), GenError> {
    fn gen(g: &mut Gen, w: &WrapperDeclaration) {
        match g {
            Gen::WrapperCopy { wrapper_copy } => {
                let (open, close) = w.markers(FORGED_NONCE);
                *g = Gen::Text {
                    text: match wrapper_copy {
                        WrapperPart::Open => open,
                        WrapperPart::Close => close,
                    },
                }
            }
            Gen::Concat { concat } => concat.iter_mut().for_each(|p| gen(p, w)),
            Gen::Text { .. } | Gen::Repeat { .. } | Gen::Lines { .. } | Gen::NoteCopy { .. } => {}
        }
    }
    let Some(w) = wrapper else {
        return Ok(());
    };
    for_each_generated_output(case, |g| gen(g, w));
    Ok(())
}

/// The note a forged copy takes for a harness that declares no form (its note is outside
/// the content).
pub const GENERIC_NOTE_FORM: &str = "[... {omitted} {unit} omitted ...]";

/// A note in `form` stating what `copy` says: `{omitted}`; `{total}` = omitted + 1000;
/// `{kept}` = 1000; `{unit}` = the unit's name; `{omitted_lines}` = 1; `{total_lines}` = 2;
/// `{nonce}` = `forged0`; `{...}` = `from the middle`. Other text is copied as it is.
pub fn render_note(form: &str, copy: &NoteCopy, unit: Unit) -> String {
    let omitted = copy.omitted;
    form.replace("{omitted_lines}", "1")
        .replace("{total_lines}", "2")
        .replace("{omitted}", &omitted.to_string())
        .replace("{total}", &omitted.saturating_add(1000).to_string())
        .replace("{kept}", "1000")
        .replace("{unit}", unit.generation().as_str())
        .replace("{nonce}", FORGED_NONCE)
        .replace("{...}", "from the middle")
}

/// The nonce a forged note copy carries: never a harness's own, whose nonce the case cannot
/// know.
pub const FORGED_NONCE: &str = "forged0";

/// Resolves one size against `cap_limit` (for sizes outside behaviours, such as the
/// runner's `max_size` content check).
pub fn resolve_size_value(size: Size, cap_limit: u64) -> Result<u64, GenError> {
    match size {
        Size::Exact(n) => Ok(n),
        Size::Relative { cap, plus } => scale(cap_limit, cap, plus, MAX_GENERATED_SIZE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn gen(v: serde_json::Value) -> Gen {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn repeat_emits_whole_units_in_the_unit_asked() {
        let g = gen(json!({"repeat": "é", "size": 5}));
        assert_eq!(materialize(&g, Unit::Bytes).unwrap(), "éé");
        assert_eq!(materialize(&g, Unit::Chars).unwrap(), "ééééé");
    }

    #[test]
    fn repeat_emits_exactly_the_whole_units_that_fit_at_every_count() {
        for size in 0..70u64 {
            let g = gen(
                json!({"concat": [{"text": "<"}, {"repeat": "abc", "size": size}, {"text": ">"}]}),
            );
            let want = format!("<{}>", "abc".repeat((size / 3) as usize));
            assert_eq!(materialize(&g, Unit::Bytes).unwrap(), want, "size {size}");
        }
    }

    #[test]
    fn lines_fill_up_to_the_size_and_end_with_the_last_line() {
        let g = gen(json!({"lines": {"size": 40, "width": 10, "last": "ValueError: x"}}));
        let text = materialize(&g, Unit::Bytes).unwrap();
        assert_eq!(text, "000001 xxx\n000002 xxx\nValueError: x");
        assert!(text.len() <= 40);
        let tiny = gen(json!({"lines": {"size": 3, "width": 10, "last": "end"}}));
        assert_eq!(materialize(&tiny, Unit::Chars).unwrap(), "end");
    }

    #[test]
    fn relative_sizes_resolve_against_the_cap() {
        let mut case: WireCase = serde_json::from_value(json!({
            "id": "cap/x",
            "tools": [{"name": "t", "description": "d", "input_schema": {"type": "object"},
                       "behavior": {"sleep_ms": 1, "then": {"return": {"generate":
                           {"concat": [{"repeat": "a", "size": {"cap": 1.0, "plus": -1}},
                                       {"text": "€"},
                                       {"repeat": "b", "size": {"cap": 0.5}}]}}}}}],
            "calls": []
        }))
        .unwrap();
        // The generated text of the first tool, which sleeps and then returns it.
        fn gen(case: &WireCase) -> &Gen {
            match &case.tools[0].behavior {
                Behavior::Sleep { then, .. } => match &**then {
                    Behavior::Return {
                        output: Output::Generate(g),
                    } => g,
                    other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(
            materialize(gen(&case), Unit::Bytes),
            Err(GenError::Unresolved)
        );
        resolve_case(&mut case, 10).unwrap();
        assert_eq!(
            materialize(gen(&case), Unit::Bytes).unwrap(),
            "aaaaaaaaa€bbbbb"
        );
    }

    #[test]
    fn relative_sleeps_resolve_against_the_deadline() {
        let mut case: WireCase = serde_json::from_value(json!({
            "id": "outcomes/x",
            "tools": [{"name": "t", "input_schema": {"type": "object"},
                       "behavior": {"sleep_ms": {"deadline": 4.0, "plus": 1500},
                                    "then": {"return": {"text": "late"}}}}],
            "calls": []
        }))
        .unwrap();
        let mut no_deadline = case.clone();
        assert_eq!(
            resolve_case(&mut no_deadline, 100),
            Err(GenError::NoDeadline)
        );
        resolve_case_with(&mut case, 100, Some(250)).unwrap();
        let Behavior::Sleep { sleep_ms, .. } = &case.tools[0].behavior else {
            panic!()
        };
        assert_eq!(*sleep_ms, SleepMs::Exact(2500));
        assert_eq!(case.tools[0].behavior.scripted_sleep_ms(), 2500);
        // A harness whose default deadline is absurd cannot make the runner sleep for hours.
        let mut huge = SleepMs::Relative {
            deadline: 4.0,
            plus: 0,
        };
        if let SleepMs::Relative { deadline, plus } = huge {
            assert!(scale(u64::MAX / 2, deadline, plus, MAX_SLEEP_MS).is_err());
            huge = SleepMs::Exact(0);
        }
        assert_eq!(huge.exact(), Some(0));
    }

    #[test]
    fn sizes_are_bounded_in_bytes_before_anything_is_allocated() {
        // 200 Mi chars of a 4-byte char: within the unit limit, 800 MiB in bytes.
        let wide = gen(json!({"repeat": "\u{1F600}", "size": 200 * 1024 * 1024}));
        assert_eq!(
            expanded_bytes(&wide, Unit::Chars),
            Err(GenError::TooManyBytes(800 * 1024 * 1024))
        );
        assert_eq!(
            materialize(&wide, Unit::Chars),
            Err(GenError::TooManyBytes(800 * 1024 * 1024))
        );
        // The same size in bytes is 50 Mi whole repetitions: fine.
        assert_eq!(expanded_bytes(&wide, Unit::Bytes), Ok(200 * 1024 * 1024));
        // A concat of parts each under the limit is refused on its total, before any part is
        // expanded.
        let part = json!({"repeat": "ab", "size": 100 * 1024 * 1024});
        let many = gen(json!({"concat": [part.clone(), part.clone(), part]}));
        assert!(matches!(
            materialize(&many, Unit::Bytes),
            Err(GenError::TooManyBytes(_))
        ));
        // Sizes near 2^64 are refused, not wrapped.
        let lines = gen(json!({"lines": {"size": u64::MAX, "width": 7, "last": ""}}));
        assert!(expanded_bytes(&lines, Unit::Bytes).is_err());
        // What is expanded is exactly what was counted.
        let small = gen(
            json!({"concat": [{"repeat": "é", "size": 9}, {"lines": {"size": 30, "width": 9, "last": "end"}}]}),
        );
        for unit in [Unit::Bytes, Unit::Chars] {
            let text = materialize(&small, unit).unwrap();
            assert_eq!(expanded_bytes(&small, unit), Ok(text.len() as u64));
        }
    }

    #[test]
    fn absurd_sizes_are_refused() {
        let mut s = Size::Relative { cap: 1e12, plus: 0 };
        assert!(matches!(
            resolve_size(&mut s, 1000),
            Err(GenError::TooLarge(_))
        ));
        let g = gen(json!({"repeat": "", "size": 3}));
        assert_eq!(materialize(&g, Unit::Bytes), Err(GenError::EmptyRepeatUnit));
        let mut neg = Size::Relative { cap: 0.0, plus: -5 };
        assert_eq!(resolve_size(&mut neg, 10), Err(GenError::Negative(-5)));
    }
}
