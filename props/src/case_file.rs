//! `case_file`: any bytes as a conformance case file → the runner's loader.
//!
//! The case loader lives in the suite crate (`harness-conformance-suite`); this crate stays
//! independent of it (the suite's generator crate builds on this one), so the property is
//! written against an [`CaseFileApi`] of plain function pointers: the fuzz target and the
//! stable replay both fill it from `harness_conformance_suite::loader` and
//! `harness_conformance_suite::case`. The property: the decoder never panics and refuses bad
//! files with a message; an accepted case re-encodes to the same case; the loader's consistency checks never panic; and the harness-facing part of every
//! accepted case is a `run` command an adapter decodes (the protocol and the case format
//! cannot drift apart), whose generated outputs resolve and expand within their bounds.

use std::fmt;

use arbitrary::{Arbitrary, Unstructured};
use harness_conformance_protocol::{decode_command, Command, WireCase};

use crate::bytes::rust_byte_string;

/// A case file's bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct CaseFile {
    /// The file's contents.
    pub bytes: Vec<u8>,
}

impl<'a> Arbitrary<'a> for CaseFile {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(CaseFile {
            bytes: crate::all_bytes(u).to_vec(),
        })
    }
}

impl fmt::Debug for CaseFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "// case_file reproduction; run it as a test in props/tests (see replay.rs for the api):")?;
        writeln!(
            f,
            "harness_ref_props::case_file::check(&harness_ref_props::case_file::CaseFile {{ bytes: b\"{}\".to_vec() }}, &api());",
            rust_byte_string(&self.bytes)
        )?;
        if let Ok(text) = std::str::from_utf8(&self.bytes) {
            writeln!(f, "// the file:\n{text}")?;
        }
        Ok(())
    }
}

/// The runner's loader, as plain functions over its case type `C`.
#[derive(Debug, Clone, Copy)]
pub struct CaseFileApi<C> {
    /// Decodes one case file strictly (`harness_conformance_suite::loader::decode_case`).
    pub decode: fn(&str) -> Result<C, String>,
    /// Encodes a case back to JSON text.
    pub encode: fn(&C) -> String,
    /// The checks the loader adds to decoding, with no SPEC.md
    /// (`loader::suite_case_problems`).
    pub consistency: fn(&C) -> Vec<String>,
    /// The harness-facing part (`Case::wire`).
    pub wire: fn(&C) -> WireCase,
    /// Loads a one-file suite at this path with no SPEC.md (`loader::load`); the number of
    /// cases loaded or the problems.
    pub load: fn(&str, &str) -> Result<usize, Vec<String>>,
}

/// The property. Panics with a description when an invariant fails.
pub fn check<C: PartialEq + fmt::Debug>(input: &CaseFile, api: &CaseFileApi<C>) {
    let text = String::from_utf8_lossy(&input.bytes);
    let case = match (api.decode)(&text) {
        Err(message) => {
            assert!(
                !message.is_empty(),
                "a case file was refused without a message"
            );
            assert!(
                (api.load)("area/name.json", &text).is_err(),
                "the loader loaded a file the decoder refuses"
            );
            return;
        }
        Ok(case) => case,
    };

    let again = (api.decode)(&(api.encode)(&case))
        .unwrap_or_else(|e| panic!("a decoded case does not decode again: {e}\ncase: {case:?}"));
    assert_eq!(again, case, "a case changed through encode and decode");

    let problems = (api.consistency)(&case);
    let wire = (api.wire)(&case);
    let loaded = (api.load)(&format!("{}.json", wire.id), &text);
    if problems.is_empty() {
        // Without SPEC.md the consistency checks are all the loader adds to decoding.
        assert_eq!(
            loaded.as_ref().ok(),
            Some(&1),
            "a consistent case did not load: {loaded:?}"
        );
    } else {
        assert!(loaded.is_err(), "a case with problems {problems:?} loaded");
    }

    let command = Command::Run { seq: 0, case: wire };
    let line = serde_json::to_string(&command).expect("a run command serialises");
    let decoded = decode_command(line.as_bytes()).unwrap_or_else(|e| {
        panic!("an adapter cannot decode the run command of a loadable case: {e}\n{line}")
    });
    assert_eq!(decoded, command, "the run command changed on the wire");
    crate::protocol::check(&crate::protocol::ProtocolLine {
        line: line.into_bytes(),
    });
}
