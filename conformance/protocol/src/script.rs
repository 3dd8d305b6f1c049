//! The scripted handlers: what a case's `behavior` does when its tool runs, for any Rust
//! harness (DESIGN.md, "Behaviours").
//!
//! A behaviour is compiled once per case (generated outputs are expanded then, so a bad size
//! is an adapter error before anything runs, not a handler failure in the middle of a batch)
//! and performed on every call. Performing knows no harness: it yields an [`Outcome`] — text,
//! JSON, a non-finite float, or a raised error of a kind — that the adapter (or a Rust harness
//! gating itself in-process) maps onto its own handler's return type. The reference adapter
//! uses it for harness-ref.
//!
//! Sleeping (`sleep_ms`) is the only effect: [`Script::perform`] blocks the calling thread;
//! [`Script::perform_with`] hands each sleep to the caller (an async harness awaits its own
//! timer there). A stream's waits are not performed here: [`Outcome::Stream`] hands them to
//! the harness's reader, which waits as it reads.

use std::sync::Arc;
use std::time::Duration;

use crate::{
    materialize, Behavior, ContentBlock, McpResult, NonFinite, NonJson, Output, RaiseKind,
    StreamPart, Unit,
};
use serde_json::Value;

/// A behaviour ready to run.
#[derive(Debug, Clone)]
pub enum Script {
    /// Return an output.
    Return(Ret),
    /// Fail with an error of a given kind.
    Raise(RaiseKind, String),
    /// Sleep, then continue.
    Sleep(Duration, Box<Script>),
    /// Set values inside the handler's own arguments, then continue.
    Mutate(Vec<(String, Value)>, Box<Script>),
}

/// What a script returns.
#[derive(Debug, Clone)]
pub enum Ret {
    /// Text, shown as is.
    Text(Arc<str>),
    /// A structured value.
    Json(Value),
    /// A float JSON cannot represent.
    NonFinite(NonFinite),
    /// The arguments as the handler holds them when it returns.
    EchoArgs,
    /// A structured value with non-finite floats at pointers inside it.
    NonFiniteIn(Value, Vec<(String, NonFinite)>),
    /// A structured value with values JSON has no form for at pointers inside it.
    NonJsonIn(Value, Vec<(String, NonJson)>),
    /// Content blocks, in order.
    Blocks(Arc<[ContentBlock]>),
    /// A raw MCP `CallToolResult`.
    McpResult(Arc<McpResult>),
    /// Text written in parts over time.
    Stream(Arc<[Piece]>),
}

/// One step of a streamed output, compiled: a part to write or a wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Write this text.
    Text(Arc<str>),
    /// Wait so long before the next step.
    Sleep(Duration),
}

/// What performing a script produced.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Text output.
    Text(Arc<str>),
    /// JSON output.
    Json(Value),
    /// A non-finite float output.
    NonFinite(f64),
    /// A structured output with non-finite floats at pointers inside it.
    NonFiniteIn(Value, Vec<(String, f64)>),
    /// A structured value with values JSON has no form for at pointers inside it, for the
    /// harness to build in its own terms (a cycle refers back to the whole value).
    NonJsonIn(Value, Vec<(String, NonJson)>),
    /// Content blocks, in order, for the harness to return in its own multi-part form.
    Blocks(Arc<[ContentBlock]>),
    /// A raw MCP `CallToolResult`, for the MCP server the harness consumes to answer with.
    McpResult(Arc<McpResult>),
    /// Text to write in parts, waiting between them where a [`Piece::Sleep`] says, through the
    /// harness's streaming mechanism (the waits happen as the harness reads the stream).
    Stream(Arc<[Piece]>),
    /// An error the handler raised.
    Raised(RaiseKind, String),
}

impl Script {
    /// Compiles a behaviour, expanding generated outputs in the cap's `unit`.
    pub fn compile(behavior: &Behavior, unit: Unit) -> Result<Script, String> {
        Ok(match behavior {
            Behavior::Return { output } => Script::Return(match output {
                Output::Text(text) => Ret::Text(text.as_str().into()),
                Output::Json(value) => Ret::Json(value.clone()),
                Output::Generate(gen) => Ret::Text(
                    materialize(gen, unit)
                        .map_err(|e| format!("cannot generate the output: {e}"))?
                        .into(),
                ),
                Output::NonFinite(which) => Ret::NonFinite(*which),
                Output::NonFiniteIn(n) => Ret::NonFiniteIn(
                    n.value.clone(),
                    n.at.iter().map(|(p, f)| (p.clone(), *f)).collect(),
                ),
                Output::NonJson(n) => {
                    if n.at.is_empty() {
                        return Err("`non_json.at` must name at least one place".to_owned());
                    }
                    for (pointer, kind) in &n.at {
                        if !pointer.is_empty() && !pointer.starts_with('/') {
                            return Err(format!(
                                "`non_json` key {pointer:?} is not a JSON pointer"
                            ));
                        }
                        if *kind == NonJson::Cycle
                            && (pointer.is_empty() || !(n.value.is_object() || n.value.is_array()))
                        {
                            return Err(
                                "a `cycle` goes inside an object or array value, never at its root"
                                    .to_owned(),
                            );
                        }
                    }
                    Ret::NonJsonIn(
                        n.value.clone(),
                        n.at.iter().map(|(p, k)| (p.clone(), *k)).collect(),
                    )
                }
                Output::ContentBlocks(blocks) => {
                    blocks.iter().try_for_each(ContentBlock::check)?;
                    Ret::Blocks(blocks.as_slice().into())
                }
                Output::McpResult(result) => {
                    result.content.iter().try_for_each(ContentBlock::check)?;
                    Ret::McpResult(Arc::new(result.clone()))
                }
                Output::Stream(parts) => Ret::Stream(
                    parts
                        .iter()
                        .map(|part| {
                            Ok(match part {
                                StreamPart::Text(text) => Piece::Text(text.as_str().into()),
                                StreamPart::Generate(gen) => Piece::Text(
                                    materialize(gen, unit)
                                        .map_err(|e| format!("cannot generate the output: {e}"))?
                                        .into(),
                                ),
                                StreamPart::SleepMs(ms) => Piece::Sleep(Duration::from_millis(
                                    ms.exact().ok_or_else(|| {
                                        "a wait relative to the deadline reached the adapter unresolved"
                                            .to_owned()
                                    })?,
                                )),
                            })
                        })
                        .collect::<Result<Vec<_>, String>>()?
                        .into(),
                ),
                Output::EchoArgs(true) => Ret::EchoArgs,
                Output::EchoArgs(false) => {
                    return Err("`echo_args` must be true".to_owned());
                }
            }),
            Behavior::Raise { raise } => Script::Raise(raise.kind, raise.message.clone()),
            Behavior::Sleep { sleep_ms, then } => Script::Sleep(
                Duration::from_millis(sleep_ms.exact().ok_or_else(|| {
                    "a sleep relative to the deadline reached the adapter unresolved".to_owned()
                })?),
                Box::new(Script::compile(then, unit)?),
            ),
            Behavior::MutateArgs { mutate_args, then } => {
                for pointer in mutate_args.set.keys() {
                    if !pointer.is_empty() && !pointer.starts_with('/') {
                        return Err(format!(
                            "`mutate_args` key {pointer:?} is not a JSON pointer"
                        ));
                    }
                }
                Script::Mutate(
                    mutate_args
                        .set
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                    Box::new(Script::compile(then, unit)?),
                )
            }
        })
    }

    /// Runs the script against the handler's own copy of its arguments, sleeping on this
    /// thread where the behaviour sleeps.
    pub fn perform(&self, args: &mut Value) -> Outcome {
        self.perform_with(args, &mut std::thread::sleep)
    }

    /// Like [`Script::perform`], with `sleep` called for each scripted sleep instead of
    /// blocking the thread.
    pub fn perform_with(&self, args: &mut Value, sleep: &mut dyn FnMut(Duration)) -> Outcome {
        match self {
            Script::Return(ret) => match ret {
                Ret::Text(text) => Outcome::Text(Arc::clone(text)),
                Ret::Json(value) => Outcome::Json(value.clone()),
                Ret::NonFinite(which) => Outcome::NonFinite(which.value()),
                Ret::NonFiniteIn(value, at) => Outcome::NonFiniteIn(
                    value.clone(),
                    at.iter().map(|(p, f)| (p.clone(), f.value())).collect(),
                ),
                Ret::NonJsonIn(value, at) => Outcome::NonJsonIn(value.clone(), at.clone()),
                Ret::Blocks(blocks) => Outcome::Blocks(Arc::clone(blocks)),
                Ret::McpResult(result) => Outcome::McpResult(Arc::clone(result)),
                Ret::Stream(pieces) => Outcome::Stream(Arc::clone(pieces)),
                Ret::EchoArgs => Outcome::Json(args.clone()),
            },
            Script::Raise(kind, message) => Outcome::Raised(*kind, message.clone()),
            Script::Sleep(duration, then) => {
                sleep(*duration);
                then.perform_with(args, sleep)
            }
            Script::Mutate(sets, then) => {
                for (pointer, value) in sets {
                    if let Err(e) = set_pointer(args, pointer, value.clone()) {
                        // A handler whose own mutation fails has a bug: an unexpected error.
                        return Outcome::Raised(RaiseKind::Internal, e);
                    }
                }
                then.perform_with(args, sleep)
            }
        }
    }
}

impl Script {
    /// The mutations this script makes before it returns, in order (the
    /// `shallow-copies-arguments` variant replays the nested ones on the transcript's copy).
    pub fn mutations(&self) -> Vec<(String, Value)> {
        match self {
            Script::Return(_) | Script::Raise(..) => Vec::new(),
            Script::Sleep(_, then) => then.mutations(),
            Script::Mutate(sets, then) => {
                let mut all = sets.clone();
                all.extend(then.mutations());
                all
            }
        }
    }
}

/// Adds or replaces the value at an RFC 6901 `pointer`; the parent must exist.
pub fn set_pointer(target: &mut Value, pointer: &str, value: Value) -> Result<(), String> {
    if pointer.is_empty() {
        *target = value;
        return Ok(());
    }
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return Err(format!("{pointer:?} is not a JSON pointer"));
    };
    let key = last.replace("~1", "/").replace("~0", "~");
    match target.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.insert(key, value);
            Ok(())
        }
        Some(Value::Array(items)) => {
            if key == "-" {
                items.push(value);
                return Ok(());
            }
            match key.parse::<usize>() {
                Ok(i) if i < items.len() => {
                    items[i] = value;
                    Ok(())
                }
                Ok(i) if i == items.len() => {
                    items.push(value);
                    Ok(())
                }
                _ => Err(format!("no array index {key:?} at {parent:?}")),
            }
        }
        Some(_) => Err(format!("{parent:?} is neither an object nor an array")),
        None => Err(format!("no value at {parent:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn script(v: Value) -> Script {
        Script::compile(&serde_json::from_value(v).unwrap(), Unit::Chars).unwrap()
    }

    #[test]
    fn mutations_apply_to_the_handlers_copy_and_echo_shows_them() {
        let s = script(
            json!({"mutate_args": {"set": {"/a": 2, "/b~1c": [1], "/b~1c/-": 3}},
                              "then": {"return": {"echo_args": true}}}),
        );
        let mut args = json!({"a": 1});
        let Outcome::Json(out) = s.perform(&mut args) else {
            panic!()
        };
        assert_eq!(out, json!({"a": 2, "b/c": [1, 3]}));
        assert_eq!(args, out);
    }

    #[test]
    fn a_mutation_without_a_parent_is_an_internal_error() {
        let s = script(
            json!({"mutate_args": {"set": {"/x/y": 1}}, "then": {"return": {"text": "ok"}}}),
        );
        assert!(matches!(
            s.perform(&mut json!({})),
            Outcome::Raised(RaiseKind::Internal, _)
        ));
    }

    #[test]
    fn non_json_places_are_checked_at_compile_time() {
        let s = script(
            json!({"return": {"non_json": {"value": {"a": 1}, "at": {"/self": "cycle", "/a": "bytes"}}}}),
        );
        let Outcome::NonJsonIn(value, at) = s.perform(&mut json!({})) else {
            panic!()
        };
        assert_eq!(value, json!({"a": 1}));
        assert_eq!(
            at,
            vec![
                ("/a".to_owned(), NonJson::Bytes),
                ("/self".to_owned(), NonJson::Cycle)
            ]
        );
        for bad in [
            json!({"return": {"non_json": {"value": 1, "at": {"/x": "cycle"}}}}),
            json!({"return": {"non_json": {"value": {}, "at": {"": "cycle"}}}}),
            json!({"return": {"non_json": {"value": {}, "at": {}}}}),
            json!({"return": {"non_json": {"value": {}, "at": {"x": "set"}}}}),
        ] {
            let b: Behavior = serde_json::from_value(bad.clone()).unwrap();
            assert!(Script::compile(&b, Unit::Chars).is_err(), "{bad}");
        }
    }

    #[test]
    fn generated_outputs_expand_at_compile_time() {
        let s = script(json!({"return": {"generate": {"repeat": "ab", "size": 5}}}));
        let Outcome::Text(text) = s.perform(&mut json!({})) else {
            panic!()
        };
        assert_eq!(&*text, "abab");
        let unresolved: Behavior = serde_json::from_value(
            json!({"return": {"generate": {"repeat": "a", "size": {"cap": 1.0, "plus": 0}}}}),
        )
        .unwrap();
        assert!(Script::compile(&unresolved, Unit::Bytes).is_err());
    }
}
