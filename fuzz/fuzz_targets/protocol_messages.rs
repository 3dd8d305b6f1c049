//! Adapter protocol lines → every decoder: no panic, bad lines refused, round trips exact.
//! The property is `harness_ref_props::protocol::check`.
#![no_main]

use harness_ref_props::protocol::{check, ProtocolLine};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: ProtocolLine| check(&input));
