//! A schema from the keywords harness-ref supports × arguments × handler outcome → invalid
//! arguments never run the handler; the harness agrees with an independent validator in both
//! directions; violations point into the arguments; outcomes map to their classes.
//! The property is `harness_ref_props::structured::check`.
#![no_main]

use harness_ref_props::structured::{check, StructuredCall};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: StructuredCall| check(&input));
