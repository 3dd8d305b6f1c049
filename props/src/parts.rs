//! The `parts_turn` target: a turn of calls whose handlers answer with multi-part content (text,
//! images of supported and unsupported media types, embedded resources, resource links, audio),
//! or through an MCP
//! server's `CallToolResult` ([`harness_ref::from_mcp_result`]), inline or isolated, in a turn
//! that one of the inline handlers may cancel, or that is cancelled before it starts
//! ([`harness_ref::Harness::handle_cancellable_batch`]).
//!
//! The properties (harness-ref's `content` and `cancel` modules, SPEC "multi-part results" and
//! "cancellation"), checked against a model of the turn the property keeps itself:
//!
//! - exactly one result per call, in call order, each with its call's id;
//! - without a cancellation, a multi-part answer is delivered as parts in the handler's order:
//!   images and resources unchanged (never cut, never turned into text), each text part
//!   unchanged when it fits the cap and within the cap otherwise, the content the text parts
//!   joined, a truncation exactly when a text part was cut, and a `tool_result` block whose
//!   `content` is one block per part of the matching type; a resource link reaches the model as
//!   a text block that keeps its URI and name; an image of a media type the Messages API does
//!   not take, or audio, refuses the whole answer as `invalid_tool_output`, naming its media
//!   type;
//! - an MCP result the harness maps (`isError` absent or false) answers exactly as its parts
//!   given directly; `isError: true` is `tool_refused` carrying the server's text; any JSON
//!   given to `from_mcp_result` is either parts answered as such or a refusal, never a panic;
//! - a call that finished before the turn was cancelled keeps its result; the inline call that
//!   cancels the turn and every inline call after it are answered `cancelled`, and those after
//!   it never run; an isolated call of a cancelled turn is answered either its own result or
//!   `cancelled`; nothing runs in a turn cancelled before it starts.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use arbitrary::{Arbitrary, Unstructured};
use harness_ref::cap::{escape_note_copies, measure};
use harness_ref::{
    from_mcp_result, CallContext, CancelToken, CapConfig, ErrorCode, Execution, HandlerThreads,
    Harness, HarnessConfig, Link, Part, Registry, ResourceBody, SchemaCache, Tool, ToolOutput,
    ToolResult, Unit,
};
use serde_json::{json, Value};

use crate::bytes::{rust_byte_string, Reader, Writer};

/// The most calls one turn makes.
pub const MAX_CALLS: usize = 6;

/// The most parts one answer has.
pub const MAX_PARTS: usize = 5;

/// The media types an image part can have: the four the Messages API takes, then others.
pub const MEDIA_TYPES: [&str; 7] = [
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/bmp",
    "image/svg+xml",
    "text/plain",
];

/// The media types an audio part can have.
pub const AUDIO_TYPES: [&str; 3] = ["audio/wav", "audio/mpeg", "audio/ogg"];

/// One part of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartChoice {
    /// Text.
    Text(String),
    /// An image: an index into [`MEDIA_TYPES`] (mod its length) and its data.
    Image(u8, String),
    /// An embedded resource: its URI, MIME type, and text or (when `blob`) base64 body.
    Resource {
        /// Where it lives.
        uri: String,
        /// Its MIME type, if given.
        mime_type: Option<String>,
        /// A blob rather than text.
        blob: bool,
        /// The text or the base64.
        body: String,
    },
    /// A resource link (MCP's `resource_link`): a link, not the resource's contents.
    Link {
        /// Where the resource lives.
        uri: String,
        /// Its name.
        name: String,
        /// A title, if given.
        title: Option<String>,
        /// Its size in bytes, if given.
        size: Option<u16>,
    },
    /// Audio: an index into [`AUDIO_TYPES`] (mod its length) and its data.
    Audio(u8, String),
}

impl PartChoice {
    fn link(&self) -> Option<Link> {
        match self {
            PartChoice::Link {
                uri,
                name,
                title,
                size,
            } => Some(Link {
                uri: uri.clone(),
                name: name.clone(),
                title: title.clone(),
                size: size.map(u64::from),
                ..Link::default()
            }),
            _ => None,
        }
    }

    fn audio_type(m: u8) -> &'static str {
        AUDIO_TYPES[usize::from(m) % AUDIO_TYPES.len()]
    }
}

impl PartChoice {
    /// The harness-ref part.
    pub fn part(&self) -> Part {
        match self {
            PartChoice::Text(t) => Part::Text(t.clone()),
            PartChoice::Image(m, data) => Part::Image {
                media_type: MEDIA_TYPES[usize::from(*m) % MEDIA_TYPES.len()].to_string(),
                data: data.clone(),
            },
            PartChoice::Resource {
                uri,
                mime_type,
                blob,
                body,
            } => Part::Resource {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                body: if *blob {
                    ResourceBody::Blob(body.clone())
                } else {
                    ResourceBody::Text(body.clone())
                },
            },
            PartChoice::Link { .. } => Part::ResourceLink(self.link().expect("a link")),
            PartChoice::Audio(m, data) => Part::Audio {
                media_type: PartChoice::audio_type(*m).to_string(),
                data: data.clone(),
            },
        }
    }

    /// The part as an MCP content block.
    pub fn mcp_block(&self) -> Value {
        match self {
            PartChoice::Text(t) => json!({"type": "text", "text": t}),
            PartChoice::Image(m, data) => json!({
                "type": "image",
                "mimeType": MEDIA_TYPES[usize::from(*m) % MEDIA_TYPES.len()],
                "data": data
            }),
            PartChoice::Resource {
                uri,
                mime_type,
                blob,
                body,
            } => {
                let mut r = json!({"uri": uri});
                r[if *blob { "blob" } else { "text" }] = json!(body);
                if let Some(m) = mime_type {
                    r["mimeType"] = json!(m);
                }
                json!({"type": "resource", "resource": r})
            }
            PartChoice::Link {
                uri,
                name,
                title,
                size,
            } => {
                let mut b = json!({"type": "resource_link", "uri": uri, "name": name});
                if let Some(t) = title {
                    b["title"] = json!(t);
                }
                if let Some(n) = size {
                    b["size"] = json!(n);
                }
                b
            }
            PartChoice::Audio(m, data) => json!({
                "type": "audio",
                "mimeType": PartChoice::audio_type(*m),
                "data": data
            }),
        }
    }
}

/// How a handler answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// `ToolOutput::Parts` of these parts.
    Parts(Vec<PartChoice>),
    /// An MCP `CallToolResult` with these parts as its content blocks, `isError` as given.
    Mcp {
        /// The parts, as MCP blocks.
        parts: Vec<PartChoice>,
        /// `isError: true`.
        is_error: bool,
    },
    /// Any text, parsed as JSON when it is (else a JSON string), given to `from_mcp_result`.
    RawMcp(String),
}

/// One call of the turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartsCall {
    /// Runs on a handler thread rather than the harness's own.
    pub isolated: bool,
    /// The handler cancels the turn before answering (inline calls only; ignored when
    /// isolated, whose timing against the turn is not the input's to choose).
    pub cancels: bool,
    /// What it answers.
    pub answer: Answer,
}

/// A turn of calls.
#[derive(Clone, PartialEq, Eq)]
pub struct PartsTurn {
    /// The cap's limit (0–4095).
    pub cap_limit: u16,
    /// Count the cap in chars rather than bytes.
    pub cap_chars: bool,
    /// The turn is cancelled before it starts.
    pub cancelled_before: bool,
    /// The calls (at most [`MAX_CALLS`]).
    pub calls: Vec<PartsCall>,
}

fn read_parts(r: &mut Reader<'_>) -> Vec<PartChoice> {
    let n = r.choose(MAX_PARTS + 1);
    (0..n)
        .map(|_| match r.choose(5) {
            0 => PartChoice::Text(r.short_text()),
            1 => PartChoice::Image(r.byte(), r.short_text()),
            3 => {
                let uri = r.short_text();
                let name = r.short_text();
                let title = r.flag().then(|| r.short_text());
                let size = r.flag().then(|| r.u16());
                PartChoice::Link {
                    uri,
                    name,
                    title,
                    size,
                }
            }
            4 => PartChoice::Audio(r.byte(), r.short_text()),
            _ => {
                let blob = r.flag();
                let uri = r.short_text();
                let mime_type = r.flag().then(|| r.short_text());
                PartChoice::Resource {
                    uri,
                    mime_type,
                    blob,
                    body: r.short_text(),
                }
            }
        })
        .collect()
}

fn write_parts(w: &mut Writer, parts: &[PartChoice]) {
    w.choose(parts.len());
    for p in parts {
        match p {
            PartChoice::Text(t) => {
                w.choose(0).short_string(t);
            }
            PartChoice::Image(m, data) => {
                w.choose(1).byte(*m).short_string(data);
            }
            PartChoice::Resource {
                uri,
                mime_type,
                blob,
                body,
            } => {
                w.choose(2).flag(*blob).short_string(uri);
                w.flag(mime_type.is_some());
                if let Some(m) = mime_type {
                    w.short_string(m);
                }
                w.short_string(body);
            }
            PartChoice::Link {
                uri,
                name,
                title,
                size,
            } => {
                w.choose(3).short_string(uri).short_string(name);
                w.flag(title.is_some());
                if let Some(t) = title {
                    w.short_string(t);
                }
                w.flag(size.is_some());
                if let Some(n) = size {
                    w.u16(*n);
                }
            }
            PartChoice::Audio(m, data) => {
                w.choose(4).byte(*m).short_string(data);
            }
        }
    }
}

impl PartsTurn {
    /// Decodes with the byte grammar of [`crate::bytes`].
    pub fn read(r: &mut Reader<'_>) -> PartsTurn {
        let cap_limit = r.u16() % 4096;
        let cap_chars = r.flag();
        let cancelled_before = r.byte() == 0xff;
        let n = r.choose(MAX_CALLS) + 1;
        let calls = (0..n)
            .map(|_| {
                let flags = r.byte();
                let answer = match r.choose(3) {
                    0 => Answer::Parts(read_parts(r)),
                    1 => {
                        let is_error = r.flag();
                        Answer::Mcp {
                            parts: read_parts(r),
                            is_error,
                        }
                    }
                    _ => Answer::RawMcp(r.short_text()),
                };
                PartsCall {
                    isolated: flags & 1 == 1,
                    cancels: flags & 2 == 2,
                    answer,
                }
            })
            .collect();
        PartsTurn {
            cap_limit,
            cap_chars,
            cancelled_before,
            calls,
        }
    }

    /// The bytes [`PartsTurn::read`] decodes to this turn (for seeds).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u16(self.cap_limit % 4096).flag(self.cap_chars);
        w.byte(if self.cancelled_before { 0xff } else { 0 });
        w.choose(self.calls.len().clamp(1, MAX_CALLS) - 1);
        for c in self.calls.iter().take(MAX_CALLS) {
            w.byte(u8::from(c.isolated) | (u8::from(c.cancels) << 1));
            match &c.answer {
                Answer::Parts(parts) => {
                    w.choose(0);
                    write_parts(&mut w, parts);
                }
                Answer::Mcp { parts, is_error } => {
                    w.choose(1).flag(*is_error);
                    write_parts(&mut w, parts);
                }
                Answer::RawMcp(text) => {
                    w.choose(2).short_string(text);
                }
            }
        }
        w.finish()
    }

    fn unit(&self) -> Unit {
        if self.cap_chars {
            Unit::Chars
        } else {
            Unit::Bytes
        }
    }
}

impl Answer {
    /// What the handler returns.
    fn outcome(&self) -> Result<ToolOutput, harness_ref::ToolError> {
        match self {
            Answer::Parts(parts) => Ok(ToolOutput::Parts(
                parts.iter().map(PartChoice::part).collect(),
            )),
            Answer::Mcp { .. } | Answer::RawMcp(_) => from_mcp_result(&self.mcp_json()),
        }
    }

    fn mcp_json(&self) -> Value {
        match self {
            Answer::Parts(_) => Value::Null,
            Answer::Mcp { parts, is_error } => {
                let mut v =
                    json!({"content": parts.iter().map(PartChoice::mcp_block).collect::<Vec<_>>()});
                if *is_error {
                    v["isError"] = json!(true);
                }
                v
            }
            Answer::RawMcp(text) => {
                serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
            }
        }
    }
}

impl<'a> Arbitrary<'a> for PartsTurn {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(PartsTurn::read(&mut Reader::new(crate::all_bytes(u))))
    }
}

impl fmt::Debug for PartsTurn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "// parts_turn reproduction (bytes for `decode`):")?;
        writeln!(f, "// {}", rust_byte_string(&self.to_bytes()))?;
        writeln!(
            f,
            "// cap {} {:?}, cancelled before it starts: {}",
            self.cap_limit,
            self.unit(),
            self.cancelled_before
        )?;
        for (i, c) in self.calls.iter().enumerate() {
            writeln!(
                f,
                "// call {i}: {}{} {:?}",
                if c.isolated { "isolated" } else { "inline" },
                if c.cancels { ", cancels the turn" } else { "" },
                c.answer
            )?;
        }
        Ok(())
    }
}

/// What the handlers of one turn do, and which ran; shared with isolated handlers' threads.
/// Each turn has its own: an isolated handler of a cancelled turn may still be running when
/// the next turn starts, and must not be counted there.
struct Plan {
    calls: Vec<PartsCall>,
    token: CancelToken,
    ran: Vec<bool>,
}

fn lock(plan: &Mutex<Plan>) -> std::sync::MutexGuard<'_, Plan> {
    plan.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Handler threads shared by every turn of the process, as an embedder shares them.
fn threads() -> HandlerThreads {
    static THREADS: OnceLock<HandlerThreads> = OnceLock::new();
    THREADS.get_or_init(HandlerThreads::new).clone()
}

/// The two tools' schemas, compiled once per process.
fn schemas() -> SchemaCache {
    static SCHEMAS: OnceLock<SchemaCache> = OnceLock::new();
    SCHEMAS.get_or_init(SchemaCache::new).clone()
}

fn harness(plan: &Arc<Mutex<Plan>>, config: HarnessConfig) -> Harness {
    let mut registry = Registry::with_schema_cache(schemas());
    for (name, execution) in [
        ("inline", Execution::Inline),
        ("isolated", Execution::Isolated),
    ] {
        let plan = Arc::clone(plan);
        let handler = move |args: Value, _ctx: &CallContext<'_>| {
            let i = args["i"].as_u64().map_or(0, |i| i as usize);
            let (answer, cancels, token) = {
                let mut p = lock(&plan);
                if let Some(ran) = p.ran.get_mut(i) {
                    *ran = true;
                }
                let call = p.calls[i].clone();
                (call.answer, call.cancels, p.token.clone())
            };
            if cancels && execution == Execution::Inline {
                token.cancel();
            }
            answer.outcome()
        };
        let schema =
            json!({"type": "object", "properties": {"i": {"type": "integer"}}, "required": ["i"]});
        registry
            .register(Tool::new(name, "", schema, handler).execution(execution))
            .expect("the fixed tools register");
    }
    Harness::new(registry, config).with_handler_threads(threads())
}

/// Checks the turn; panics with the reproduction when a property fails.
pub fn check(input: &PartsTurn) {
    let cap = CapConfig::new(usize::from(input.cap_limit), input.unit());
    let config = HarnessConfig {
        cap,
        ..HarnessConfig::default()
    };
    let token = CancelToken::new();
    let plan = Arc::new(Mutex::new(Plan {
        calls: input.calls.clone(),
        token: token.clone(),
        ran: vec![false; input.calls.len()],
    }));
    let harness = harness(&plan, config);
    if input.cancelled_before {
        token.cancel();
    }
    let calls: Vec<Value> = input
        .calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let tool = if c.isolated { "isolated" } else { "inline" };
            json!({"type": "tool_use", "id": format!("c{i}"), "name": tool, "input": {"i": i}})
        })
        .collect();
    let results = harness.handle_cancellable_batch(calls, &token);
    let ran = lock(&plan).ran.clone();
    let ctx = |i: usize| format!("call {i} of\n{input:?}\nresults: {results:#?}");

    assert_eq!(
        results.len(),
        input.calls.len(),
        "one result per call{}",
        ctx(0)
    );
    // The inline call that cancels the turn: the first inline one marked so (none when the
    // turn was cancelled before it started, where nothing runs).
    let cancelling = if input.cancelled_before {
        None
    } else {
        input.calls.iter().position(|c| c.cancels && !c.isolated)
    };
    for (i, (call, result)) in input.calls.iter().zip(&results).enumerate() {
        let id = format!("c{i}");
        assert_eq!(result.tool_use_id(), Some(id.as_str()), "the id{}", ctx(i));
        let is_cancelled = result.code() == Some(ErrorCode::Cancelled);
        if input.cancelled_before {
            assert!(is_cancelled, "a call of a cancelled turn{}", ctx(i));
            assert!(
                !ran[i],
                "a call of a turn cancelled before it started ran{}",
                ctx(i)
            );
            continue;
        }
        match cancelling {
            Some(k) if !call.isolated && i >= k => {
                assert!(
                    is_cancelled,
                    "an inline call at or after the cancelling one{}",
                    ctx(i)
                );
                assert_eq!(
                    ran[i],
                    i == k,
                    "only the cancelling inline call ran{}",
                    ctx(i)
                );
                continue;
            }
            Some(_) if call.isolated && is_cancelled => continue,
            _ => {}
        }
        assert!(
            !is_cancelled,
            "a call that finished before any cancellation{}",
            ctx(i)
        );
        assert!(ran[i], "an answered call's handler ran{}", ctx(i));
        check_answer(&call.answer, result, &cap, &|| ctx(i));
    }
}

/// A result against what its handler answered, without a cancellation.
fn check_answer(answer: &Answer, result: &ToolResult, cap: &CapConfig, ctx: &dyn Fn() -> String) {
    let parts = match (answer, answer.outcome()) {
        (Answer::Mcp { parts, .. }, Ok(ToolOutput::Parts(mapped))) => {
            // The MCP blocks map to exactly the parts given directly.
            let direct: Vec<Part> = parts.iter().map(PartChoice::part).collect();
            assert_eq!(mapped, direct, "MCP blocks mapped to other parts{}", ctx());
            mapped
        }
        (_, Ok(ToolOutput::Parts(parts))) => parts,
        (_, Ok(other)) => panic!("from_mcp_result answered {other:?}, not parts{}", ctx()),
        (_, Err(e)) => {
            assert_eq!(
                result.code(),
                Some(ErrorCode::ToolRefused),
                "an MCP error result{}",
                ctx()
            );
            if let Answer::Mcp { parts, is_error } = answer {
                assert!(*is_error, "well-formed MCP blocks refused{}", ctx());
                let text: String = parts
                    .iter()
                    .filter_map(|p| match p {
                        PartChoice::Text(t) => Some(t.as_str()),
                        _ => None,
                    })
                    .collect();
                assert!(
                    !e.message().is_empty(),
                    "a refusal without a message{}",
                    ctx()
                );
                if !text.is_empty() {
                    assert_eq!(e.message(), text, "the server's text{}", ctx());
                }
            }
            assert!(
                measure(result.content(), cap.unit) <= cap.limit,
                "a refusal beyond the cap{}",
                ctx()
            );
            return;
        }
    };
    let media = parts.iter().find_map(|p| match p {
        Part::Image { media_type, .. } if !MEDIA_TYPES[..4].contains(&media_type.as_str()) => {
            Some(media_type.clone())
        }
        Part::Audio { media_type, .. } => Some(media_type.clone()),
        _ => None,
    });
    if let Some(media) = media {
        assert_eq!(
            result.code(),
            Some(ErrorCode::InvalidToolOutput),
            "an unsupported image type or audio{}",
            ctx()
        );
        assert!(
            result.parts().is_empty(),
            "parts of a refused answer{}",
            ctx()
        );
        if result.truncation().is_none() {
            let quoted = format!("{media:?}");
            assert!(
                result.content().contains(&quoted),
                "the refusal names the media type {quoted}{}",
                ctx()
            );
        }
        return;
    }
    assert!(
        !result.is_error(),
        "a deliverable multi-part answer{}",
        ctx()
    );
    // A text part that is blank once capped (white space alone, or nothing) is not delivered:
    // the provider refuses a blank text block (SPEC.md REPLAY-1). Its neighbours are.
    // A part cut to nothing (a cap of 0) is such a part, and its cut is still reported.
    let blank = |t: &str| t.chars().all(char::is_whitespace);
    let dropped = |p: &Part| match p {
        Part::Text(t) => blank(&harness_ref::cap::cap_string(t.clone(), cap).0),
        _ => false,
    };
    let mut cut = parts
        .iter()
        .any(|p| dropped(p) && matches!(p, Part::Text(t) if measure(t, cap.unit) > cap.limit));
    let parts: Vec<Part> = parts.into_iter().filter(|p| !dropped(p)).collect();
    let got = result.parts();
    assert!(
        !got.iter().any(|p| matches!(p, Part::Text(t) if blank(t))),
        "a blank text part delivered{}",
        ctx()
    );
    assert_eq!(
        got.len(),
        parts.len(),
        "one part per part, in order{}",
        ctx()
    );
    for (sent, delivered) in parts.iter().zip(got) {
        match (sent, delivered) {
            (Part::Text(s), Part::Text(d)) => {
                if measure(s, cap.unit) <= cap.limit {
                    // Unchanged but for copies of the harness's note openings, which are
                    // escaped at the same length (SPEC.md FORGE-1).
                    assert_eq!(
                        escape_note_copies(s),
                        d.as_str(),
                        "a text part that fits was changed{}",
                        ctx()
                    );
                } else {
                    cut = true;
                    assert!(
                        measure(d, cap.unit) <= cap.limit,
                        "a text part beyond the cap{}",
                        ctx()
                    );
                }
            }
            (s, d) => assert_eq!(s, d, "an image, resource or link changed{}", ctx()),
        }
    }
    assert_eq!(
        result.truncation().is_some(),
        cut,
        "a truncation exactly when a text part was cut{}",
        ctx()
    );
    assert_eq!(
        result.content(),
        harness_ref::content::text_of(got),
        "the content is the text parts joined{}",
        ctx()
    );
    let block = result.to_block();
    let blocks = block["content"].as_array();
    if got.is_empty() {
        return;
    }
    let blocks = blocks.unwrap_or_else(|| panic!("a multi-part block's content{}", ctx()));
    let kinds: Vec<&str> = blocks.iter().filter_map(|b| b["type"].as_str()).collect();
    let want: Vec<&str> = got
        .iter()
        .map(|p| match p {
            Part::Text(_) | Part::ResourceLink(_) => "text",
            Part::Image { .. } => "image",
            _ => "document",
        })
        .collect();
    assert_eq!(kinds, want, "one block per part, of its kind{}", ctx());
    for (part, block) in got.iter().zip(blocks) {
        if let Part::ResourceLink(link) = part {
            let text = block["text"].as_str().unwrap_or_default();
            assert!(
                text.contains(&link.uri) && text.contains(&format!("{:?}", link.name)),
                "a resource link's block lost its URI or name: {text:?}{}",
                ctx()
            );
        }
    }
}
