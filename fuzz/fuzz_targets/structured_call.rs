//! A schema from the keywords harness-ref supports × arguments × handler outcome → invalid
//! arguments never run the handler; the harness agrees with an independent validator in both
//! directions; violations point into the arguments; outcomes map to their classes; structured
//! outputs are checked against an output schema exactly when the validator says so.
//! The property is `harness_ref_props::structured::check`.
//!
//! The custom mutator (`harness_ref_props::structured::mutate`) mutates mostly the arguments,
//! keeping the schema whose compiled harness is cached; build with `--features arbitrary_only`
//! for libFuzzer's own mutations alone (the comparison in docs/fuzzing.md).
#![no_main]

use harness_ref_props::structured::{check, StructuredCall};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: StructuredCall| check(&input));

#[cfg(not(feature = "arbitrary_only"))]
libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    harness_ref_props::structured::mutate(data, size, max_size, seed, libfuzzer_sys::fuzzer_mutate)
});
