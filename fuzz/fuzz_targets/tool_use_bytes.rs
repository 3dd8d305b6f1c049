//! Raw bytes as a model's tool_use block → the harness entry point: never panics, exactly one
//! result, the id echoed whenever readable, content within the cap and valid text, no leaked
//! secret, the same answer in every form. The property is `harness_ref_props::tool_use::check`.
#![no_main]

use harness_ref_props::tool_use::{check, RawToolUse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: RawToolUse| check(&input));
