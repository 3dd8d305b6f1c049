//! A session of calls through harness-ref's security gates (several callers, idempotency keys,
//! prepares and commits of real, stale, foreign and made-up tokens, a moving clock, policy
//! bumps, a budget) → no effect unless allowed, one audit event per call, authorization,
//! confinement, single-use commits, keys run once, budget kept, sensitive values hidden, the
//! cap kept. The property is `harness_ref_props::security::check`.
#![no_main]

use harness_ref_props::security::{check, GatedSession};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: GatedSession| check(&input));
