//! Any bytes as a conformance case file → the runner's loader: never panics, refuses bad files
//! with a message, accepted cases round-trip and become run commands adapters decode.
//! The property is `harness_ref_props::case_file::check`; the api mirrors
//! `props/tests/support/mod.rs`.
#![no_main]

use std::collections::BTreeSet;

use harness_conformance_suite::case::Case;
use harness_conformance_suite::loader::{decode_case, load, suite_case_problems};
use harness_ref_props::case_file::{check, CaseFile, CaseFileApi};
use libfuzzer_sys::fuzz_target;

const API: CaseFileApi<Case> = CaseFileApi {
    decode: decode_case,
    encode: |case| serde_json::to_string(case).expect("a case serialises"),
    consistency: |case| suite_case_problems(case, &BTreeSet::new()),
    wire: Case::wire,
    load: |path, text| {
        load(&[(path.to_string(), text)], "")
            .map(|suite| suite.cases.len())
            .map_err(|errors| errors.iter().map(ToString::to_string).collect())
    },
};

fuzz_target!(|input: CaseFile| check(&input, &API));
