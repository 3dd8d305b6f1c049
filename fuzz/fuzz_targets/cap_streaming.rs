//! The same inputs as `cap_output` → the streaming forms agree with the in-memory cap:
//! `StreamCapper` in the input's chunk sizes (within an O(limit) memory bound) and `cap_reader`
//! in chunked reads (invalid UTF-8 refused). The property is
//! `harness_ref_props::cap::check_streaming`.
#![no_main]

use harness_ref_props::cap::{check_streaming, CapOutput};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: CapOutput| check_streaming(&input));
