//! The runner's loader as a `CaseFileApi`: the `case_file` fuzz target and its stable replay
//! (`fuzz/fuzz_targets/case_file.rs` includes this file) reach the loader through it.

use std::collections::BTreeSet;

use harness_conformance_suite::case::Case;
use harness_conformance_suite::loader::{decode_case, load, suite_case_problems};
use harness_ref_props::case_file::CaseFileApi;

pub fn case_file_api() -> CaseFileApi<Case> {
    CaseFileApi {
        decode: decode_case,
        encode: |case| serde_json::to_string(case).expect("a case serialises"),
        consistency: |case| suite_case_problems(case, &BTreeSet::new()),
        wire: Case::wire,
        load: |path, text| {
            load(&[(path.to_string(), text)], "")
                .map(|suite| suite.cases.len())
                .map_err(|errors| errors.iter().map(ToString::to_string).collect())
        },
    }
}
