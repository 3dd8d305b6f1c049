//! `cap_output`: any output × limit × unit × strategy × head share → the cap's invariants.
//!
//! The cap is where real harnesses panic ("byte index N is not a char boundary") or lie (a
//! note that counts bytes as chars). This property recomputes every number the cap reports
//! from the documented semantics (`harness_ref::cap` module docs) with code of its own, and
//! checks the in-memory, owned, chunked and reader forms against each other.

use std::fmt;
use std::io::{self, Read};

use arbitrary::{Arbitrary, Unstructured};
use harness_ref::cap::{cap, cap_reader, cap_string, CapConfig, Strategy, StreamCapper, Unit};

use crate::bytes::{rust_byte_string, Reader, Writer};

/// One capping problem.
#[derive(Clone, PartialEq, Eq)]
pub struct CapOutput {
    /// The limit, in `unit`s.
    pub limit: usize,
    /// Bytes or chars.
    pub unit: Unit,
    /// Head+tail or head only.
    pub strategy: Strategy,
    /// The head's share in thousandths (values over 1000 are clamped by the cap).
    pub head_permille: u16,
    /// The output is `output` repeated this many times (1 to 8), so small inputs make large
    /// outputs.
    pub repeat: usize,
    /// Chunk sizes in bytes for the streaming forms, used in turn (each at least 1).
    pub chunk_sizes: Vec<usize>,
    /// The handler's output bytes; invalid UTF-8 is replaced before the in-memory cap, and
    /// must be refused by the reader form.
    pub output: Vec<u8>,
}

impl CapOutput {
    /// Decodes an input from fuzz bytes (the [`crate::bytes`] grammar).
    pub fn read(r: &mut Reader<'_>) -> CapOutput {
        let limit = usize::from(r.u16() % 8193);
        let unit = if r.flag() { Unit::Chars } else { Unit::Bytes };
        let strategy = if r.flag() {
            Strategy::HeadOnly
        } else {
            Strategy::HeadTail
        };
        let head_permille = r.u16() % 1101;
        let repeat = r.choose(8) + 1;
        let chunk_sizes = (0..=r.choose(4))
            .map(|_| usize::from(r.byte()) + 1)
            .collect();
        CapOutput {
            limit,
            unit,
            strategy,
            head_permille,
            repeat,
            chunk_sizes,
            output: r.rest().to_vec(),
        }
    }

    /// The bytes [`CapOutput::read`] decodes back into `self` (limit ≤ 8192, permille ≤ 1100,
    /// 1 to 5 chunk sizes of 1 to 256).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u16(u16::try_from(self.limit).expect("limit fits"))
            .flag(self.unit == Unit::Chars)
            .flag(self.strategy == Strategy::HeadOnly)
            .u16(self.head_permille)
            .choose(self.repeat - 1)
            .choose(self.chunk_sizes.len() - 1);
        for size in &self.chunk_sizes {
            w.choose(size - 1);
        }
        w.rest(&self.output).finish()
    }

    /// The cap configuration.
    pub fn config(&self) -> CapConfig {
        CapConfig {
            limit: self.limit,
            unit: self.unit,
            strategy: self.strategy,
            head_permille: self.head_permille,
        }
    }

    /// The output bytes, repeated.
    pub fn raw(&self) -> Vec<u8> {
        self.output.repeat(self.repeat)
    }
}

impl<'a> Arbitrary<'a> for CapOutput {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(CapOutput::read(&mut Reader::new(crate::all_bytes(u))))
    }
}

impl fmt::Debug for CapOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "// cap_output reproduction; run it as a test in props/tests:"
        )?;
        writeln!(f, "use harness_ref::cap::{{Strategy, Unit}};")?;
        writeln!(
            f,
            "harness_ref_props::cap::check(&harness_ref_props::cap::CapOutput {{"
        )?;
        writeln!(f, "    limit: {},", self.limit)?;
        writeln!(f, "    unit: Unit::{:?},", self.unit)?;
        writeln!(f, "    strategy: Strategy::{:?},", self.strategy)?;
        writeln!(f, "    head_permille: {},", self.head_permille)?;
        writeln!(f, "    repeat: {},", self.repeat)?;
        writeln!(f, "    chunk_sizes: vec!{:?},", self.chunk_sizes)?;
        writeln!(
            f,
            "    output: b\"{}\".to_vec(),",
            rust_byte_string(&self.output)
        )?;
        writeln!(f, "}});")
    }
}

fn measure(text: &str, unit: Unit) -> usize {
    match unit {
        Unit::Bytes => text.len(),
        Unit::Chars => text.chars().count(),
        // This model covers bytes and chars; lines and tokens are tested in harness-ref's own
        // cap tests.
        Unit::Lines | Unit::Tokens(_) => harness_ref::cap::measure(text, unit),
    }
}

fn newlines(text: &str) -> u64 {
    text.bytes().filter(|b| *b == b'\n').count() as u64
}

/// The longest prefix of at most `units` units ending on a character boundary.
fn head_of(text: &str, units: usize, unit: Unit) -> &str {
    let mut end = 0;
    let mut used = 0;
    for (i, c) in text.char_indices() {
        let cost = if unit == Unit::Bytes { c.len_utf8() } else { 1 };
        if used + cost > units {
            break;
        }
        used += cost;
        end = i + c.len_utf8();
    }
    &text[..end]
}

/// The longest suffix of at most `units` units starting on a character boundary.
fn tail_of(text: &str, units: usize, unit: Unit) -> &str {
    let mut start = text.len();
    let mut used = 0;
    for (i, c) in text.char_indices().rev() {
        let cost = if unit == Unit::Bytes { c.len_utf8() } else { 1 };
        if used + cost > units {
            break;
        }
        used += cost;
        start = i;
    }
    &text[start..]
}

fn digits(n: u64) -> usize {
    n.to_string().len()
}

/// The numbers a note states: `[truncated: A of B <unit> omitted ... (C of D lines)...`.
fn note_numbers(note: &str) -> Option<(u64, u64, String, u64, u64)> {
    let rest = note.strip_prefix("[truncated: ")?;
    let mut words = rest.split(' ');
    let a = words.next()?.parse().ok()?;
    (words.next()? == "of").then_some(())?;
    let b = words.next()?.parse().ok()?;
    let unit = words.next()?.to_string();
    let open = rest.find('(')?;
    let mut inner = rest[open + 1..].split(' ');
    let c = inner.next()?.parse().ok()?;
    (inner.next()? == "of").then_some(())?;
    let d = inner.next()?.parse().ok()?;
    (inner.next()?.starts_with("lines)")).then_some(())?;
    Some((a, b, unit, c, d))
}

/// A reader that hands out `bytes` in the given chunk sizes (the reads a pipe would give).
struct ChunkedReader<'a> {
    bytes: &'a [u8],
    sizes: &'a [usize],
    next: usize,
}

impl Read for ChunkedReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = self.sizes[self.next % self.sizes.len()];
        self.next += 1;
        let n = want.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// Splits `text` into chunks of about the given byte sizes, each ending on a char boundary.
fn chunks<'t>(text: &'t str, sizes: &[usize]) -> Vec<&'t str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while start < text.len() {
        let mut end = (start + sizes[i % sizes.len()]).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
        i += 1;
    }
    out
}

/// The property. Panics with a description when an invariant fails.
/// Both properties, [`check_in_memory`] then [`check_streaming`]: what the stable mirrors and
/// replays run.
pub fn check(input: &CapOutput) {
    check_in_memory(input);
    check_streaming(input);
}

/// The `cap_output` property: the in-memory forms (`cap`, `cap_string`) against the
/// documented semantics, recomputed independently; capping is idempotent.
pub fn check_in_memory(input: &CapOutput) {
    let config = input.config();
    let raw = input.raw();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let unit = input.unit;
    let limit = input.limit;
    let size = measure(&text, unit);
    let lines = newlines(&text) + u64::from(!text.is_empty() && !text.ends_with('\n'));

    let capped = cap(&text, &config);
    let content: &str = &capped.content;

    assert!(
        measure(content, unit) <= limit,
        "content is {} {unit:?}, over the limit {limit}",
        measure(content, unit)
    );
    assert!(
        !content.contains('\u{FFFD}') || text.contains('\u{FFFD}'),
        "the cap invented U+FFFD"
    );

    if size <= limit {
        assert_eq!(
            content, text,
            "an output within the limit must be unchanged"
        );
        assert!(
            capped.truncation.is_none(),
            "nothing was cut but a truncation is reported"
        );
    } else {
        let t = capped
            .truncation
            .expect("an output over the limit must report a truncation");
        assert_eq!(
            (t.unit, t.strategy, t.limit),
            (unit, input.strategy, limit),
            "truncation config"
        );
        assert_eq!(t.original_size, size as u64, "original size");
        assert_eq!(t.original_lines, lines, "original lines");
        let note = t.note();
        let separators = if input.strategy == Strategy::HeadTail {
            2
        } else {
            1
        };
        // The reserve is the note written with its largest numbers (all omitted).
        let reserve = separators + note.len() - digits(t.omitted_size) - digits(t.omitted_lines)
            + digits(size as u64)
            + digits(lines);
        if limit < reserve {
            assert_eq!(content, &note[..limit.min(note.len())], "note-only content");
            assert_eq!(
                (t.head_size, t.tail_size),
                (0, 0),
                "nothing kept when the note does not fit"
            );
            assert_eq!(t.omitted_size, size as u64, "everything omitted");
            assert_eq!(t.omitted_lines, newlines(&text), "every newline omitted");
        } else {
            let budget = limit - reserve;
            let (head_units, tail_units) = match input.strategy {
                // The generator draws head-only or head+tail only (see `Arbitrary` above).
                Strategy::HeadOnly | Strategy::Spill => (budget, 0),
                Strategy::HeadTail | Strategy::Reject => {
                    let permille = usize::from(input.head_permille.min(1000));
                    let head = budget * permille / 1000;
                    (head, budget - head)
                }
            };
            let head = head_of(&text, head_units, unit);
            let tail = tail_of(&text, tail_units, unit);
            assert!(
                head.len() + tail.len() <= text.len(),
                "head and tail overlap"
            );
            let omitted = &text[head.len()..text.len() - tail.len()];
            assert_eq!(t.head_size, measure(head, unit) as u64, "head size");
            assert_eq!(t.tail_size, measure(tail, unit) as u64, "tail size");
            assert_eq!(
                t.omitted_size,
                measure(omitted, unit) as u64,
                "omitted size"
            );
            assert_eq!(t.omitted_lines, newlines(omitted), "omitted lines");
            let mut expected = format!("{head}\n{note}");
            if input.strategy == Strategy::HeadTail {
                expected.push('\n');
                expected.push_str(tail);
            }
            assert_eq!(content, expected, "content is head, note, tail");
            let stated = note_numbers(&note).unwrap_or_else(|| panic!("unreadable note {note:?}"));
            assert_eq!(
                stated,
                (
                    measure(omitted, unit) as u64,
                    size as u64,
                    unit.as_str().to_string(),
                    newlines(omitted),
                    lines
                ),
                "the note's numbers"
            );
            if input.strategy == Strategy::HeadTail {
                let body = text.strip_suffix('\n').unwrap_or(&text);
                let last = &text[body.rfind('\n').map_or(0, |i| i + 1)..];
                if measure(last, unit) <= tail_units {
                    assert!(
                        content.ends_with(last),
                        "the last line {last:?} fits the tail budget but was cut"
                    );
                }
            }
        }
    }

    // Idempotent.
    let again = cap(content, &config);
    assert_eq!(
        again.content, content,
        "capping a capped content changed it"
    );
    assert!(
        again.truncation.is_none(),
        "capping a capped content reported a truncation"
    );

    // The owned form.
    let (owned, owned_t) = cap_string(text.clone(), &config);
    assert_eq!(owned, content, "cap_string differs from cap");
    assert_eq!(owned_t, capped.truncation, "cap_string truncation differs");
}

/// The `cap_streaming` property: the streaming forms (`StreamCapper`, in the input's chunk
/// sizes, within an O(limit) memory bound, and `cap_reader`, in chunked reads) give exactly
/// what `cap` gives, and the reader refuses invalid UTF-8. `cap` itself is held to the
/// documented semantics by [`check_in_memory`], so agreeing with it is enough here; the two
/// properties run as two targets so each runs at its own speed.
pub fn check_streaming(input: &CapOutput) {
    let config = input.config();
    let raw = input.raw();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let limit = input.limit;
    let capped = cap(&text, &config);
    let content: &str = &capped.content;

    // Streaming, in chunks: the same result, in O(limit) memory. (`cap_chunks` is this loop;
    // pushing by hand also gives the peak memory.)
    let pieces = chunks(&text, &input.chunk_sizes);
    let mut capper = StreamCapper::new(config);
    let mut peak = 0;
    for piece in &pieces {
        capper.push(piece);
        peak = peak.max(capper.buffered_bytes());
    }
    let biggest = pieces.iter().map(|p| p.len()).max().unwrap_or(0);
    let bound = 8 * 4 * limit + 8 * (4 * (2 * limit).max(4096) + biggest) + 64;
    assert!(
        peak <= bound,
        "the streaming capper held {peak} bytes for a limit of {limit} (bound {bound})"
    );
    let streamed = capper.finish();
    assert_eq!(
        streamed.content, content,
        "streaming differs from in-memory"
    );
    assert_eq!(
        streamed.truncation, capped.truncation,
        "streaming truncation differs"
    );

    // The reader form refuses invalid UTF-8 and otherwise agrees.
    let reader = ChunkedReader {
        bytes: &raw,
        sizes: &input.chunk_sizes,
        next: 0,
    };
    match (std::str::from_utf8(&raw), cap_reader(reader, &config)) {
        (Ok(_), Ok(read)) => {
            assert_eq!(read.content, content, "cap_reader differs from cap");
            assert_eq!(
                read.truncation, capped.truncation,
                "cap_reader truncation differs"
            );
        }
        (Ok(_), Err(e)) => panic!("cap_reader refused valid UTF-8: {e}"),
        (Err(_), Ok(_)) => panic!("cap_reader accepted invalid UTF-8"),
        (Err(_), Err(e)) => assert_eq!(
            e.kind(),
            io::ErrorKind::InvalidData,
            "cap_reader error kind"
        ),
    }
}
