//! Arguments with some nested values sent as their JSON text, against schemas wanting arrays,
//! objects, strings and scalars, with the repair profile on and off → exactly the promised
//! repairs (nested, refused for their type, one JSON array or object, validating), otherwise
//! the answer without repair. The property is `harness_ref_props::repair::check`.
#![no_main]

use harness_ref_props::repair::{check, RepairCall};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: RepairCall| check(&input));
