//! `protocol_messages`: one line of the adapter protocol, fed to every decoder.
//!
//! The runner reads whatever an adapter prints, and an adapter written in Rust reads whatever
//! the runner sends, so the decoders are the suite's attack surface: they must never panic,
//! must refuse bad lines with an error, and whatever they accept must mean the same thing
//! when it is sent again (decode → encode → decode is a fixed point). An accepted `run`
//! command is pushed further, through size resolution and output generation, because that is
//! what an adapter does with it next.

use std::fmt;

use arbitrary::{Arbitrary, Unstructured};
use harness_conformance_protocol::{
    decode_command, decode_hello, decode_reply, materialize, measure, resolve_case, Behavior,
    Command, DecodeError, Gen, Output, Size, Unit, WireCase,
};

use crate::bytes::rust_byte_string;

/// One line as the other side of the protocol might send it: any bytes at all.
#[derive(Clone, PartialEq, Eq)]
pub struct ProtocolLine {
    /// The line, without its newline.
    pub line: Vec<u8>,
}

impl<'a> Arbitrary<'a> for ProtocolLine {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(ProtocolLine {
            line: crate::all_bytes(u).to_vec(),
        })
    }
}

impl fmt::Debug for ProtocolLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "// protocol_messages reproduction; run it as a test in props/tests:"
        )?;
        writeln!(
            f,
            "harness_ref_props::protocol::check(&harness_ref_props::protocol::ProtocolLine {{ line: b\"{}\".to_vec() }});",
            rust_byte_string(&self.line)
        )
    }
}

/// Cap limits an accepted `run` command is resolved against.
const CAP_LIMITS: [u64; 4] = [0, 1, 2000, 65_536];

/// Generated outputs larger than this (in bytes, before expansion) are resolved but not
/// expanded, so one input cannot stall the fuzzer on a 256 MiB allocation.
const EXPAND_BUDGET: u64 = 1 << 20;

/// The property: no decoder panics, bad lines are refused with a readable error, and every
/// accepted message survives a round trip unchanged.
pub fn check(input: &ProtocolLine) {
    let line = input.line.as_slice();
    let utf8 = std::str::from_utf8(line);

    let command = decode_command(line);
    let reply = decode_reply(line);
    let hello = decode_hello(line);

    for err in [
        command.as_ref().err(),
        reply.as_ref().err(),
        hello.as_ref().err(),
    ]
    .into_iter()
    .flatten()
    {
        check_error(err, line);
    }
    if let Err(e) = &utf8 {
        let expected = DecodeError::NotUtf8 {
            valid_up_to: e.valid_up_to(),
        };
        assert_eq!(
            command.as_ref().err(),
            Some(&expected),
            "command from non-UTF-8"
        );
        assert_eq!(
            reply.as_ref().err(),
            Some(&expected),
            "reply from non-UTF-8"
        );
        assert_eq!(
            hello.as_ref().err(),
            Some(&expected),
            "hello from non-UTF-8"
        );
    }

    if let Ok(command) = command {
        let again = decode_command(encode(&command).as_bytes())
            .unwrap_or_else(|e| panic!("a decoded command does not decode again: {e}"));
        assert_eq!(again, command, "command round trip");
        if let Command::Run { case, .. } = &command {
            check_case(case);
        }
    }
    if let Ok(mut reply) = reply {
        let again = decode_reply(encode(&reply).as_bytes())
            .unwrap_or_else(|e| panic!("a decoded reply does not decode again: {e}"));
        assert_eq!(again.lone_surrogates, 0, "the repair left a lone surrogate");
        reply.lone_surrogates = 0;
        assert_eq!(again, reply, "reply round trip");
        // Interpreting a reply never panics, whatever combination it holds.
        let _ = reply.outcome();
    }
    if let Ok(hello) = hello {
        let again = decode_hello(encode(&hello).as_bytes())
            .unwrap_or_else(|e| panic!("a decoded hello does not decode again: {e}"));
        assert_eq!(again, hello, "hello round trip");
    }
}

fn encode<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("a decoded message serialises")
}

fn check_error(err: &DecodeError, line: &[u8]) {
    let text = err.to_string();
    assert!(!text.is_empty(), "an empty error message for {line:?}");
    assert!(
        text.len() < 4096 + line.len(),
        "the error message is out of proportion to the line"
    );
}

/// What an adapter does with a `run` command: resolve sizes, expand outputs.
fn check_case(case: &WireCase) {
    for call in &case.calls {
        let structured = call.tool_use_block().is_some();
        assert_eq!(
            structured,
            call.form() == harness_conformance_protocol::CallForm::Structured,
            "tool_use_block is present exactly for structured calls"
        );
    }
    for limit in CAP_LIMITS {
        let mut resolved = case.clone();
        if resolve_case(&mut resolved, limit).is_err() {
            continue;
        }
        for tool in &resolved.tools {
            let Some(gen) = generated(&tool.behavior) else {
                continue;
            };
            assert!(all_exact(gen), "resolve_case left a relative size");
            if expansion_cost(gen) > EXPAND_BUDGET {
                continue;
            }
            for unit in [Unit::Bytes, Unit::Chars] {
                if let Ok(text) = materialize(gen, unit) {
                    let size = measure(&text, unit);
                    let bound = upper_bound(gen, unit);
                    assert!(
                        size <= bound,
                        "{gen:?} in {unit:?} expanded to {size}, over its bound {bound}"
                    );
                }
            }
        }
    }
}

fn generated(behavior: &Behavior) -> Option<&Gen> {
    match behavior {
        Behavior::Return {
            output: Output::Generate(gen),
        } => Some(gen),
        Behavior::Return { .. } | Behavior::Raise { .. } => None,
        Behavior::Sleep { then, .. } | Behavior::MutateArgs { then, .. } => generated(then),
    }
}

fn all_exact(gen: &Gen) -> bool {
    match gen {
        Gen::Text { .. } => true,
        Gen::Repeat { size, .. } => matches!(size, Size::Exact(_)),
        Gen::Lines { lines } => matches!(lines.size, Size::Exact(_)),
        Gen::Concat { concat } => concat.iter().all(all_exact),
        // No size: resolved by the runner from the hello into a text.
        Gen::NoteCopy { .. } | Gen::WrapperCopy { .. } => true,
    }
}

fn exact(size: &Size) -> u64 {
    match size {
        Size::Exact(n) => *n,
        Size::Relative { .. } => u64::MAX,
    }
}

/// A bound on the work expanding `gen` takes: its parts' sizes (×4 for multi-byte units) and
/// one unit per part for the measuring between parts.
fn expansion_cost(gen: &Gen) -> u64 {
    match gen {
        Gen::Text { text } => text.len() as u64 + 1,
        Gen::Repeat { size, .. } => exact(size).saturating_mul(4).saturating_add(1),
        Gen::Lines { lines } => exact(&lines.size)
            .saturating_add(lines.last.len() as u64)
            .saturating_mul(4),
        Gen::Concat { concat } => concat
            .iter()
            .map(expansion_cost)
            .fold(1, u64::saturating_add)
            .saturating_mul(concat.len() as u64 + 1),
        Gen::NoteCopy { .. } | Gen::WrapperCopy { .. } => 1,
    }
}

/// The most a description may expand to: the text itself, or its size (a `lines` block's last
/// line is kept even when it alone is over the size).
fn upper_bound(gen: &Gen, unit: Unit) -> u64 {
    match gen {
        Gen::Text { text } => measure(text, unit),
        Gen::Repeat { size, .. } => exact(size),
        Gen::Lines { lines } => exact(&lines.size).max(measure(&lines.last, unit)),
        Gen::Concat { concat } => concat
            .iter()
            .map(|g| upper_bound(g, unit))
            .fold(0, u64::saturating_add),
        Gen::NoteCopy { .. } | Gen::WrapperCopy { .. } => 0,
    }
}
