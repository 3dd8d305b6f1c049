//! Any output × limit × unit × strategy × head share → the cap's invariants (within the limit
//! note included, exact note numbers, head prefix / tail suffix, last line kept, idempotent,
//! streaming = in-memory = reader). The property is `harness_ref_props::cap::check`.
#![no_main]

use harness_ref_props::cap::{check, CapOutput};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: CapOutput| check(&input));
