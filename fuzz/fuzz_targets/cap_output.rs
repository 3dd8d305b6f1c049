//! Any output × limit × unit × strategy × head share → the in-memory cap's invariants (within
//! the limit note included, exact note numbers, head prefix / tail suffix, last line kept,
//! idempotent). The property is `harness_ref_props::cap::check_in_memory`; the streaming forms
//! are `cap_streaming`'s.
#![no_main]

use harness_ref_props::cap::{check_in_memory, CapOutput};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: CapOutput| check_in_memory(&input));
