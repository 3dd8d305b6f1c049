//! Any bytes as a conformance case file → the runner's loader: never panics, refuses bad files
//! with a message, accepted cases round-trip and become run commands adapters decode.
//! The property is `harness_ref_props::case_file::check`; the loader reaches it through the
//! api `props/tests/support/mod.rs` builds, the one the stable replay uses too.
#![no_main]

use harness_ref_props::case_file::{check, CaseFile};
use libfuzzer_sys::fuzz_target;

#[path = "../../props/tests/support/mod.rs"]
mod support;

fuzz_target!(|input: CaseFile| check(&input, &support::case_file_api()));
