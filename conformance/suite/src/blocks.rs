//! Content-block checks: an image or a resource reaches the model as such, or is refused
//! visibly (SPEC.md "content blocks", "MCP client").
//!
//! A result that carries blocks is reported with `blocks` beside `content` (the text blocks
//! joined); a result reported without `blocks` is text only. The three checks here compare the
//! blocks a handler returned (behaviour `content_blocks`, or the `content` of a raw MCP
//! result) with what the harness delivered:
//!
//! - `blocks.delivered`: on a success, every non-text block reaches the model as a block of its
//!   kind (a text resource may also arrive as text holding its text; a resource link as text
//!   holding its URI, or as the resource it names): none is dropped, replaced by a placeholder
//!   or flattened into text; an error result passes when its message names a kind it refused
//!   (`image`; `resource`, `document`, `file`, `blob`; `audio`; `link`), so a harness that
//!   cannot show images and says so is correct;
//! - `blocks.intact`: every non-text block that reached the model is one the handler returned,
//!   byte for byte — none cut (by a cap counting its payload as text) or altered on the way (a
//!   resource link may leave out the optional fields it carried, never change one). A
//!   missing block is `blocks.delivered`'s failure, an altered one this check's, so a harness
//!   that drops images and one that cuts them fail different checks;
//! - `blocks.no_payload_text`: no content text, success or error, holds a run of a base64
//!   payload (the image flattened into text, whole or cut, or a data URI);
//! - `blocks.order`: on a success that delivered every non-text block, the blocks and the
//!   text between them come in the handler's order (adjacent text blocks may be merged or split:
//!   block layout is the harness's choice). A visible refusal passes it (nothing delivered is
//!   out of order); it is not run where `blocks.delivered` failed (a block went missing, or an
//!   error did not say what it refused), which holds that failure.
//!
//! Pure: the findings are returned for [`crate::checks`] to record.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use harness_conformance_protocol::{
    measure, ContentBlock, ImageLimit, ObservedResult, Output, Unit,
};
use serde::{Deserialize, Serialize};

use crate::blame::CheckKind;
use crate::quote::quote;

/// The `blocks` expectation of one result.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlocksExpect {
    /// Every non-text block reaches the model as that block, or the result is an error that
    /// names the kind it refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delivered: bool,
    /// Blocks and the text between them keep the handler's order.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub order: bool,
    /// No base64 payload appears in the content text.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_payload_text: bool,
    /// Every non-text block that arrives is one the handler returned, unchanged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub intact: bool,
    /// No image over the provider's limit (`config.image_limit`) reaches the model: it is
    /// refused by an error that says why, or reduced within the limit with a note.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub within_limits: bool,
}

impl BlocksExpect {
    /// The check kinds this expectation asks for.
    pub fn kinds(&self) -> Vec<CheckKind> {
        [
            (self.delivered, CheckKind::BlocksDelivered),
            (self.intact, CheckKind::BlocksIntact),
            (self.no_payload_text, CheckKind::BlocksNoPayloadText),
            (self.order, CheckKind::BlocksOrder),
            (self.within_limits, CheckKind::BlocksWithinLimits),
        ]
        .into_iter()
        .filter_map(|(on, kind)| on.then_some(kind))
        .collect()
    }
}

/// What one check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// It held.
    Pass,
    /// It failed, with the message.
    Fail(String),
    /// It had nothing to judge, because what it reads is what `blocks.delivered` found missing
    /// (a presupposition, SPEC.md "Evidence"); the reason says so.
    NotRun(String),
}

/// The blocks a tool's final output returns, if it returns blocks.
pub fn expected_blocks(output: &Output) -> Option<&[ContentBlock]> {
    match output {
        Output::ContentBlocks(blocks) => Some(blocks),
        Output::McpResult(result) => Some(&result.content),
        _ => None,
    }
}

/// The blocks the harness delivered: the reported `blocks`, or the content as one text block.
fn delivered(res: &ObservedResult) -> Vec<ContentBlock> {
    match &res.blocks {
        Some(blocks) => blocks.clone(),
        None => vec![ContentBlock::Text {
            text: res.content.clone(),
        }],
    }
}

/// The size the cap limits, in `unit`: the content, or — for a result reported with blocks —
/// its largest text block. A harness may cap each text block or all text together (SPEC.md
/// "content blocks"); an image or a binary resource is not text and is never counted.
pub fn capped_size(res: &ObservedResult, unit: Unit) -> u64 {
    match &res.blocks {
        Some(blocks) => blocks
            .iter()
            .filter_map(ContentBlock::text)
            .map(|t| measure(t, unit))
            .max()
            .unwrap_or(0),
        None => measure(&res.content, unit),
    }
}

/// Evaluates `exp` on one result; `label` names the result in messages, `limit` is the case's
/// `config.image_limit`.
pub fn check(
    label: &str,
    exp: &BlocksExpect,
    want: &[ContentBlock],
    res: &ObservedResult,
    limit: Option<&ImageLimit>,
) -> Vec<(CheckKind, Finding)> {
    let got = delivered(res);
    let mut out = Vec::new();
    if exp.delivered {
        out.push((
            CheckKind::BlocksDelivered,
            check_delivered(label, want, &got, res),
        ));
    }
    if exp.intact {
        out.push((
            CheckKind::BlocksIntact,
            check_intact(label, want, &got, res),
        ));
    }
    if exp.no_payload_text {
        out.push((
            CheckKind::BlocksNoPayloadText,
            check_no_payload(label, want, res),
        ));
    }
    if exp.order {
        out.push((CheckKind::BlocksOrder, check_order(label, want, &got, res)));
    }
    if exp.within_limits {
        let limit = limit.copied().unwrap_or_default();
        out.push((
            CheckKind::BlocksWithinLimits,
            check_within_limits(label, want, &got, res, &limit),
        ));
    }
    out
}

/// Words a refusal of an oversized image uses for why (SPEC.md BLOCK-6): any one will do,
/// beside a word for the image itself. A harness that shows no images at all says so
/// (`image content is not supported`): that is a reason too, and the image never reaches the
/// provider.
const LIMIT_WORDS: [&str; 15] = [
    "limit",
    "too large",
    "too big",
    "exceed",
    "maximum",
    "max ",
    "dimension",
    "size",
    "pixel",
    "bytes",
    "larger",
    "over ",
    "support",
    "accept",
    "allowed",
];

/// Words a note on a reduced image uses for what was done to it.
const REDUCED_WORDS: [&str; 13] = [
    "resiz",
    "reduc",
    "downscal",
    "downsampl",
    "scaled",
    "shrunk",
    "shrink",
    "compress",
    "smaller",
    "limit",
    "exceed",
    "too large",
    "re-encod",
];

/// `blocks.within_limits`: no image over the provider's limit reaches the model. An error
/// passes when it names the image and says why (a limit, a size, a dimension); a success
/// passes when it delivers as many images as the handler returned, each within the limit, and
/// — where one is not the handler's own (it was reduced) — the text says so. An image whose
/// dimensions cannot be read from its header, one over the limit, one dropped, or one reduced
/// without a word fails.
fn check_within_limits(
    label: &str,
    want: &[ContentBlock],
    got: &[ContentBlock],
    res: &ObservedResult,
    limit: &ImageLimit,
) -> Finding {
    let lower = res.content.to_lowercase();
    if res.is_error {
        let names_image = kind_words(&ContentBlock::Image {
            data: String::new(),
            mime_type: String::new(),
        })
        .iter()
        .any(|w| lower.contains(w));
        return if names_image && LIMIT_WORDS.iter().any(|w| lower.contains(w)) {
            Finding::Pass
        } else {
            Finding::Fail(format!(
                "{label}: the handler returned an image over the provider's limit; an error result must name the image and say why it was refused (a limit, a size or a dimension; or that images are not supported), the harness returned an error with content {}",
                quote(&res.content)
            ))
        };
    }
    let images = |blocks: &[ContentBlock]| {
        blocks
            .iter()
            .filter(|b| matches!(b, ContentBlock::Image { .. }))
            .cloned()
            .collect::<Vec<_>>()
    };
    let (wanted, arrived) = (images(want), images(got));
    if arrived.len() < wanted.len() {
        return Finding::Fail(format!(
            "{label}: the handler returned {} image(s), {} reached the model in a success: an image over the provider's limit must be refused by an error that says so, or reduced to fit it, never dropped",
            wanted.len(),
            arrived.len()
        ));
    }
    for image in &arrived {
        let ContentBlock::Image { data, .. } = image else {
            continue;
        };
        match harness_conformance_protocol::image::facts(data) {
            Err(e) => {
                return Finding::Fail(format!(
                    "{label}: an image reached the model whose size cannot be told ({e}): {}",
                    describe_one(image)
                ))
            }
            Ok(f) => {
                if let Some(over) = limit.breaches(&f) {
                    return Finding::Fail(format!(
                        "{label}: an image over the provider's limit reached the model ({over}): the provider refuses the request, and every later one that replays it"
                    ));
                }
            }
        }
    }
    if arrived.iter().any(|a| !wanted.contains(a)) {
        // The note is text the handler did not write.
        let mut note = lower;
        for text in want.iter().filter_map(ContentBlock::text) {
            note = note.replacen(&text.to_lowercase(), "", 1);
        }
        if !REDUCED_WORDS.iter().any(|w| note.contains(w)) {
            return Finding::Fail(format!(
                "{label}: an image reached the model reduced, and nothing in the result says so (the model would read a smaller picture as the tool's own); content {}",
                quote(&res.content)
            ));
        }
    }
    Finding::Pass
}

/// Words an error message may use for a refused kind.
fn kind_words(block: &ContentBlock) -> &'static [&'static str] {
    match block {
        ContentBlock::Image { .. } => &["image", "picture", "png", "jpeg", "jpg"],
        ContentBlock::Resource { .. } => &["resource", "document", "file", "blob", "embedded"],
        ContentBlock::Audio { .. } => &["audio", "sound", "wav", "mp3", "mpeg"],
        ContentBlock::ResourceLink(_) => &["link", "resource"],
        ContentBlock::Text { .. } | ContentBlock::SyntheticImage(_) => &[],
    }
}

/// Whether `got` delivers the handler's block `want` faithfully: it is equal, or — a resource
/// link — it is the same link (same URI and name) that left out optional fields without
/// changing any, or the resource it names embedded (same URI; the harness read the link for
/// the model). Layout and optional metadata are the harness's choice; the URI is what the
/// model needs to use the link.
fn faithful(want: &ContentBlock, got: &ContentBlock) -> bool {
    if want == got {
        return true;
    }
    match (want, got) {
        (ContentBlock::ResourceLink(w), ContentBlock::ResourceLink(g)) => {
            fn kept<T: PartialEq>(w: &Option<T>, g: &Option<T>) -> bool {
                g.is_none() || g == w
            }
            w.uri == g.uri
                && w.name == g.name
                && kept(&w.title, &g.title)
                && kept(&w.description, &g.description)
                && kept(&w.mime_type, &g.mime_type)
                && kept(&w.size, &g.size)
        }
        (ContentBlock::ResourceLink(w), ContentBlock::Resource { resource }) => {
            w.uri == resource.uri
        }
        _ => false,
    }
}

/// Whether some block of `got` delivers `want` faithfully.
fn delivers(got: &[ContentBlock], want: &ContentBlock) -> bool {
    got.iter().any(|g| faithful(want, g))
}

/// Whether `block` reached the model: a faithful block, or as text — a text resource's text,
/// a resource link's URI.
fn arrived(block: &ContentBlock, got: &[ContentBlock], text: &str) -> bool {
    delivers(got, block)
        || match block {
            ContentBlock::Resource { resource } => resource
                .text
                .as_deref()
                .is_some_and(|t| !t.is_empty() && text.contains(t)),
            ContentBlock::ResourceLink(link) => !link.uri.is_empty() && text.contains(&link.uri),
            _ => false,
        }
}

/// Whether `res` is an error that says which kind of block it cannot deliver (or the handler
/// returned no non-text block at all): the refusal SPEC.md accepts as correct.
fn refused_visibly(want: &[ContentBlock], res: &ObservedResult) -> bool {
    let lower = res.content.to_lowercase();
    let mut non_text = want.iter().filter(|b| b.text().is_none()).peekable();
    res.is_error
        && (non_text.peek().is_none()
            || non_text.any(|b| kind_words(b).iter().any(|w| lower.contains(w))))
}

fn check_delivered(
    label: &str,
    want: &[ContentBlock],
    got: &[ContentBlock],
    res: &ObservedResult,
) -> Finding {
    let non_text: Vec<&ContentBlock> = want.iter().filter(|b| b.text().is_none()).collect();
    if res.is_error {
        return if refused_visibly(want, res) {
            Finding::Pass
        } else {
            Finding::Fail(format!(
                "{label}: the handler returned {}; an error result must say which kind it cannot deliver (e.g. \"image content is not supported\"), the harness returned an error with content {}",
                describe(want),
                quote(&res.content)
            ))
        };
    }
    let text = harness_conformance_protocol::text_of(got);
    // Each wanted block is matched with the block that arrived for it: an equal one, else one
    // of its kind that arrived altered (that is `blocks.intact`'s failure, not a missing block).
    let mut used = vec![false; got.len()];
    let mut take = |b: &ContentBlock| {
        let at = (0..got.len())
            .find(|&k| !used[k] && faithful(b, &got[k]))
            .or_else(|| {
                (0..got.len()).find(|&k| {
                    !used[k] && same_kind(&got[k], b) && !want.iter().any(|w| faithful(w, &got[k]))
                })
            });
        if let Some(k) = at {
            used[k] = true;
        }
        at.is_some()
    };
    match non_text
        .iter()
        .find(|b| !(take(b) || arrived(b, got, &text)))
    {
        None => Finding::Pass,
        Some(missing) => Finding::Fail(format!(
            "{label}: expected the {} block to reach the model as a block of its kind, or an error result saying it is not supported; the harness returned a success with {} and content {}",
            describe_one(missing),
            describe(got),
            quote(&res.content)
        )),
    }
}

/// Whether two blocks are of the same kind (an image, a resource).
fn same_kind(a: &ContentBlock, b: &ContentBlock) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

fn check_intact(
    label: &str,
    want: &[ContentBlock],
    got: &[ContentBlock],
    res: &ObservedResult,
) -> Finding {
    if res.is_error {
        // Nothing was delivered to be altered; whether the refusal is visible is
        // `blocks.delivered`'s question.
        return Finding::Pass;
    }
    match got
        .iter()
        .filter(|b| b.text().is_none())
        .find(|b| !want.iter().any(|w| faithful(w, b)))
    {
        None => Finding::Pass,
        Some(altered) => Finding::Fail(format!(
            "{label}: the {} block that reached the model is none of the blocks the handler returned ({}): it was cut or altered on the way; a non-text block must arrive byte for byte",
            describe_one(altered),
            describe(want)
        )),
    }
}

/// The shortest run of a payload the check looks for: long enough that no ordinary text holds
/// it by chance, short enough that a payload cut anywhere still shows one.
const RUN: usize = 16;

fn check_no_payload(label: &str, want: &[ContentBlock], res: &ObservedResult) -> Finding {
    for block in want {
        let Some(payload) = block.payload() else {
            continue;
        };
        if let Some(run) = payload_run_in(payload, &res.content) {
            return Finding::Fail(format!(
                "{label}: the {} block's base64 data reached the model as text (the content holds {run:?}); binary content must be a block of its kind, or refused: {}",
                describe_one(block),
                quote(&res.content)
            ));
        }
    }
    Finding::Pass
}

/// The first of `payload`'s runs (its [`RUN`]-byte pieces at multiples of [`RUN`], or the whole
/// of a shorter payload) that `text` holds, if any. Linear in the two lengths: the runs go in a
/// hash set and every window of the text is looked up once (searching the text once per run
/// took 18 s for a 1 MiB image and a large text, issue 28 N3).
fn payload_run_in<'p>(payload: &'p str, text: &str) -> Option<&'p str> {
    if payload.is_empty() {
        return None;
    }
    if payload.len() <= RUN {
        return text.contains(payload).then_some(payload);
    }
    // Each run's first offset in the payload, so the run reported is the one a search run by
    // run would find first. A run is 16 bytes: keyed as one u128, with a multiplicative hash
    // (SipHash of every window of a large text costs more than the rest of the judging).
    let key = |w: &[u8]| u128::from_le_bytes(w.try_into().expect("RUN bytes"));
    let mut first: HashMap<u128, usize, BuildHasherDefault<RunHasher>> = HashMap::default();
    for i in (0..=payload.len() - RUN).step_by(RUN) {
        if payload.is_char_boundary(i) && payload.is_char_boundary(i + RUN) {
            first
                .entry(key(&payload.as_bytes()[i..i + RUN]))
                .or_insert(i);
        }
    }
    let at = text
        .as_bytes()
        .windows(RUN)
        .filter_map(|w| first.get(&key(w)).copied())
        .min()?;
    payload.get(at..at + RUN)
}

/// A hasher for 16-byte runs read as one `u128`: the two halves folded with a multiply. The
/// keys are text the harness returned, and a collision costs one more comparison.
#[derive(Default)]
struct RunHasher(u64);

impl Hasher for RunHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn write_u128(&mut self, n: u128) {
        let folded = (n as u64) ^ ((n >> 64) as u64).rotate_left(29);
        self.0 = folded.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (folded >> 32);
    }
}

/// One step of a result's layout: a run of text, or the non-text block at this index of the
/// handler's blocks.
#[derive(Debug, PartialEq)]
enum Step {
    Text(String),
    Block(usize),
}

fn layout(blocks: &[ContentBlock], want: &[ContentBlock]) -> Option<Vec<Step>> {
    let mut steps: Vec<Step> = Vec::new();
    let mut used = vec![false; want.len()];
    for b in blocks {
        match b {
            ContentBlock::Text { text } => match steps.last_mut() {
                Some(Step::Text(run)) => run.push_str(text),
                _ => steps.push(Step::Text(text.clone())),
            },
            other => {
                let at = (0..want.len()).find(|&i| !used[i] && faithful(&want[i], other))?;
                used[at] = true;
                steps.push(Step::Block(at));
            }
        }
    }
    Some(steps)
}

fn check_order(
    label: &str,
    want: &[ContentBlock],
    got: &[ContentBlock],
    res: &ObservedResult,
) -> Finding {
    if res.is_error {
        // A visible refusal delivers no block, so none is out of order: the promise holds
        // (SPEC.md BLOCK-3). An error that does not say what it refused is BLOCK-1's failure.
        return if refused_visibly(want, res) {
            Finding::Pass
        } else {
            Finding::NotRun("the result is an error that does not say which block it refused (blocks.delivered judges it)".into())
        };
    }
    let text = harness_conformance_protocol::text_of(got);
    if want
        .iter()
        .any(|b| b.text().is_none() && !arrived(b, got, &text))
    {
        return Finding::NotRun("a block did not arrive (blocks.delivered)".into());
    }
    let (Some(expected), Some(actual)) = (layout(want, want), layout(got, want)) else {
        return Finding::NotRun("a block did not arrive (blocks.delivered)".into());
    };
    // Text resources delivered as text have no place of their own: compare the blocks that
    // arrived as blocks, and the text runs around them.
    let kept: Vec<&Step> = expected
        .iter()
        .filter(|s| match s {
            Step::Block(i) => actual.contains(&Step::Block(*i)),
            Step::Text(_) => true,
        })
        .collect();
    let blocks_in = |steps: &[&Step]| -> Vec<usize> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Block(i) => Some(*i),
                Step::Text(_) => None,
            })
            .collect()
    };
    let actual_refs: Vec<&Step> = actual.iter().collect();
    let same_blocks = blocks_in(&kept) == blocks_in(&actual_refs);
    let same_text = same_blocks && texts_in_place(&kept, &actual_refs);
    if same_text {
        Finding::Pass
    } else {
        Finding::Fail(format!(
            "{label}: the handler returned {}; the harness delivered {} (blocks and the text between them must keep the handler's order)",
            describe(want),
            describe(got)
        ))
    }
}

/// Every text run of `want` lies in the text run of `got` between the same blocks.
fn texts_in_place(want: &[&Step], got: &[&Step]) -> bool {
    let segments = |steps: &[&Step]| -> Vec<String> {
        let mut out = vec![String::new()];
        for s in steps {
            match s {
                Step::Text(t) => out.last_mut().expect("never empty").push_str(t),
                Step::Block(_) => out.push(String::new()),
            }
        }
        out
    };
    let (w, g) = (segments(want), segments(got));
    w.len() == g.len() && w.iter().zip(&g).all(|(w, g)| g.contains(w.as_str()))
}

fn describe_one(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text { text } => format!("text {}", quote(text)),
        ContentBlock::Image { data, mime_type } => {
            format!("image ({}, {} base64 chars)", quote(mime_type), data.len())
        }
        ContentBlock::Resource { resource } => format!(
            "resource {} ({})",
            quote(&resource.uri),
            if resource.text.is_some() {
                "text"
            } else {
                "blob"
            }
        ),
        ContentBlock::Audio { data, mime_type } => {
            format!("audio ({}, {} base64 chars)", quote(mime_type), data.len())
        }
        ContentBlock::ResourceLink(link) => format!(
            "resource link {} (name {})",
            quote(&link.uri),
            quote(&link.name)
        ),
        ContentBlock::SyntheticImage(spec) => {
            format!("synthetic image ({} × {} pixels)", spec.width, spec.height)
        }
    }
}

fn describe(blocks: &[ContentBlock]) -> String {
    if blocks.is_empty() {
        return "no blocks".to_owned();
    }
    let shown: Vec<String> = blocks.iter().take(8).map(describe_one).collect();
    let more = blocks.len().saturating_sub(8);
    let tail = if more > 0 {
        format!(", and {more} more")
    } else {
        String::new()
    };
    format!("blocks [{}{tail}]", shown.join(", "))
}

#[cfg(test)]
mod tests {
    /// Issue 28, N3: the payload search finds what a search run by run finds (the first run in
    /// payload order), anywhere in the text, and nothing when the text holds no whole run.
    #[test]
    fn payload_runs_are_found_in_one_pass_over_the_text() {
        let payload: String = (0..4096u32)
            .map(|i| char::from(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"[(i * 7 % 32) as usize]))
            .collect();
        assert_eq!(super::payload_run_in(&payload, "nothing here"), None);
        let text = format!("x{}y{}", &payload[1000..1040], &payload[32..48]);
        assert_eq!(
            super::payload_run_in(&payload, &text),
            Some(&payload[32..48])
        );
        assert_eq!(
            super::payload_run_in("short", "a short text"),
            Some("short")
        );
        // A payload of a million chars and a text of four: one pass each, not a million scans.
        let big = "QUJD".repeat(256 * 1024);
        let text = "z".repeat(4 << 20);
        assert_eq!(super::payload_run_in(&big, &text), None);
    }

    use super::*;
    use serde_json::{json, Value};

    fn blocks(v: Value) -> Vec<ContentBlock> {
        serde_json::from_value(v).unwrap()
    }

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

    fn want() -> Vec<ContentBlock> {
        blocks(json!([
            {"type": "text", "text": "before"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "text", "text": "after"}
        ]))
    }

    fn result(is_error: bool, got: Option<Vec<ContentBlock>>, content: &str) -> ObservedResult {
        ObservedResult {
            tool_use_id: json!("t"),
            is_error,
            content: content.to_owned(),
            blocks: got,
            ..ObservedResult::default()
        }
    }

    fn all() -> BlocksExpect {
        BlocksExpect {
            delivered: true,
            order: true,
            no_payload_text: true,
            intact: true,
            within_limits: false,
        }
    }

    fn verdicts(res: &ObservedResult) -> Vec<(CheckKind, bool)> {
        check("result 0", &all(), &want(), res, None)
            .into_iter()
            .map(|(k, f)| (k, matches!(f, Finding::Pass)))
            .collect()
    }

    #[test]
    fn blocks_kept_in_order_pass_and_merged_text_is_fine() {
        let res = result(false, Some(want()), "beforeafter");
        assert!(verdicts(&res).iter().all(|(_, ok)| *ok));
        let split = blocks(json!([
            {"type": "text", "text": "bef"}, {"type": "text", "text": "ore"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "text", "text": "after"}
        ]));
        assert!(verdicts(&result(false, Some(split), "beforeafter"))
            .iter()
            .all(|(_, ok)| *ok));
    }

    #[test]
    fn a_placeholder_a_flattened_image_and_a_reordering_fail() {
        let placeholder = result(false, None, "before[image]after");
        assert_eq!(
            verdicts(&placeholder)[0],
            (CheckKind::BlocksDelivered, false)
        );
        let flattened = result(
            false,
            None,
            &format!("before data:image/png;base64,{PNG} after"),
        );
        let v = verdicts(&flattened);
        assert_eq!(v[0], (CheckKind::BlocksDelivered, false));
        assert_eq!(v[2], (CheckKind::BlocksNoPayloadText, false));
        let cut = result(false, None, &format!("before {}… after", &PNG[..40]));
        assert_eq!(verdicts(&cut)[2], (CheckKind::BlocksNoPayloadText, false));
        let mut reordered = want();
        reordered.swap(0, 1);
        let v = verdicts(&result(false, Some(reordered), "beforeafter"));
        assert_eq!(v[3], (CheckKind::BlocksOrder, false));
    }

    #[test]
    fn a_missing_block_fails_delivered_and_an_altered_one_fails_intact() {
        // Cut by a cap that counted its payload: the image arrived, but not as it was sent.
        let altered = blocks(json!([
            {"type": "text", "text": "before"},
            {"type": "image", "data": &PNG[..40], "mimeType": "image/png"},
            {"type": "text", "text": "after"}
        ]));
        let v = verdicts(&result(false, Some(altered), "beforeafter"));
        assert_eq!(v[0], (CheckKind::BlocksDelivered, true));
        assert_eq!(v[1], (CheckKind::BlocksIntact, false));
        // Dropped: nothing arrived to be altered.
        let dropped = blocks(json!([{"type": "text", "text": "beforeafter"}]));
        let v = verdicts(&result(false, Some(dropped), "beforeafter"));
        assert_eq!(v[0], (CheckKind::BlocksDelivered, false));
        assert_eq!(v[1], (CheckKind::BlocksIntact, true));
    }

    #[test]
    fn an_error_passes_only_when_it_names_the_kind() {
        let named = result(
            true,
            None,
            "image content is not supported by this tool runner",
        );
        let v = check("r", &all(), &want(), &named, None);
        assert_eq!(v[0].1, Finding::Pass);
        // A visible refusal delivers no block out of order (BLOCK-3 holds, not untestable).
        assert_eq!(v[3], (CheckKind::BlocksOrder, Finding::Pass));
        let vague = result(true, None, "something went wrong");
        let v = check("r", &all(), &want(), &vague, None);
        assert!(matches!(v[0].1, Finding::Fail(_)));
        // Whether an unexplained error hid blocks is `blocks.delivered`'s failure alone.
        assert!(matches!(v[3].1, Finding::NotRun(_)));
    }

    #[test]
    fn a_text_resource_may_arrive_as_its_text() {
        let want = blocks(json!([
            {"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "the notes"}}
        ]));
        let as_text = result(false, None, "the notes");
        let v = check("r", &all(), &want, &as_text, None);
        assert!(v.iter().all(|(_, f)| *f == Finding::Pass), "{v:?}");
    }

    #[test]
    fn an_oversized_image_is_refused_saying_why_or_reduced_with_a_note() {
        use harness_conformance_protocol::SyntheticImage;
        let image = |w, h| {
            SyntheticImage {
                width: w,
                height: h,
                bytes: None,
            }
            .block()
            .unwrap()
        };
        let text = ContentBlock::Text {
            text: "the page:".into(),
        };
        let want = vec![text.clone(), image(3000, 8)];
        let limit = ImageLimit {
            max_width: Some(2000),
            ..ImageLimit::default()
        };
        let exp = BlocksExpect {
            within_limits: true,
            ..BlocksExpect::default()
        };
        let judge = |res: &ObservedResult| match &check("r", &exp, &want, res, Some(&limit))[..] {
            [(CheckKind::BlocksWithinLimits, f)] => f.clone(),
            other => panic!("{other:?}"),
        };
        // Sent on as it is; dropped; reduced without a word: all fail.
        assert!(
            matches!(judge(&result(false, Some(want.clone()), "the page:")), Finding::Fail(m) if m.contains("3000 pixels wide > 2000"))
        );
        assert!(
            matches!(judge(&result(false, Some(vec![text.clone()]), "the page:")), Finding::Fail(m) if m.contains("never dropped"))
        );
        let reduced = vec![text.clone(), image(2000, 5)];
        assert!(
            matches!(judge(&result(false, Some(reduced.clone()), "the page:")), Finding::Fail(m) if m.contains("reduced"))
        );
        // Reduced with a note, or refused saying why: both pass.
        let mut noted = reduced;
        noted.push(ContentBlock::Text {
            text: " (scaled down to fit)".into(),
        });
        assert_eq!(
            judge(&result(
                false,
                Some(noted),
                "the page: (scaled down to fit)"
            )),
            Finding::Pass
        );
        assert_eq!(
            judge(&result(
                true,
                None,
                "the image is 3000 pixels wide; the limit is 2000"
            )),
            Finding::Pass
        );
        assert!(matches!(
            judge(&result(true, None, "internal error")),
            Finding::Fail(_)
        ));
    }
}
