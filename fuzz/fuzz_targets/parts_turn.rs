//! A turn of calls answered with multi-part content (text, images, resources) or through MCP
//! results, inline and isolated, which an inline handler may cancel → one result per call;
//! parts delivered in order, images and resources unchanged, text parts within the cap,
//! unsupported images refused; MCP results mapped or refused; cancelled calls answered
//! `cancelled` and never run after the cancellation. The property is
//! `harness_ref_props::parts::check`.
#![no_main]

use harness_ref_props::parts::{check, PartsTurn};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: PartsTurn| check(&input));
