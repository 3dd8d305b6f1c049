//! `expect.linear_time`: whether capping time grows at most linearly with the output (CAP-11).
//!
//! A harness that caps by re-measuring or re-slicing the whole text once per character it drops
//! takes time quadratic in the output (Conway-Research/automaton PR #358: 113 s to cap one
//! 50,000-character run). No verdict may depend on the speed of the machine or of the harness's
//! language, so nothing here is compared with a clock's absolute value: the runner times the
//! case (its one generated output at full size) against a copy of it whose output is
//! [`LinearTime::smaller`] times smaller, in the same run, on the same harness, and the ratio of
//! the two times is judged against what linear growth allows, with a wide margin.
//!
//! Why the numbers are fair to a correct harness and not to a quadratic one:
//! - a harness's time on one turn is a fixed cost (a process round trip, an interpreter's
//!   dispatch) plus a cost per unit of output; with both non-negative the ratio of a linear
//!   harness is at most the size ratio `k`, and a fixed cost only lowers it. The bound is
//!   [`LINEAR_TIME_SLACK`] × `k`, room for caches and allocators that cost more per byte on
//!   larger texts;
//! - a quadratic capper's ratio is up to `k²` (256 for the cases' `k` of 16): four times over
//!   the bound wherever its work outweighs its fixed cost;
//! - interference from other processes only ever adds time, so each side is measured as the
//!   *minimum* of [`ROUNDS`] runs, interleaved small, large, small, large… so that a burst of
//!   load falls on both sides: one run of each side that is not slowed down is enough.
//!
//! The module decides and judges; the runner (`crate::run`) makes the timed runs.

use std::time::Duration;

use harness_conformance_protocol::{Behavior, Gen, Output, Size, WireCase};

use crate::case::LinearTime;

/// How many times each side is run; its time is the fastest of these.
pub const ROUNDS: usize = 5;

/// How many times the size ratio the time ratio may reach before the growth is judged faster
/// than linear.
pub const LINEAR_TIME_SLACK: u64 = 4;

/// The timed runs a case asks for: the case itself and its smaller copy (both resolved).
#[derive(Debug, Clone, PartialEq)]
pub struct Timed {
    /// The requirements the check counts for (its owners that apply to the harness).
    pub requirements: Vec<String>,
    /// The case as sent (its generated output at full size).
    pub large: WireCase,
    /// The same case with its generated output `smaller` times smaller.
    pub small: WireCase,
    /// The size ratio.
    pub smaller: u64,
}

/// The smaller copy of a resolved case: its one generated output (`repeat` or `lines`, at the
/// top of a tool's behaviour or after sleeps and mutations) `ask.smaller` times smaller. An
/// error when the case has no such output, more than one, or the ratio is under 2 (a bug in
/// the case).
pub fn smaller_copy(wire: &WireCase, ask: LinearTime) -> Result<WireCase, String> {
    if ask.smaller < 2 {
        return Err(format!(
            "`linear_time.smaller` is {}; it must be at least 2",
            ask.smaller
        ));
    }
    let mut small = wire.clone();
    let mut found = 0;
    for tool in &mut small.tools {
        let mut behavior = &mut tool.behavior;
        loop {
            match behavior {
                Behavior::Sleep { then, .. } | Behavior::MutateArgs { then, .. } => {
                    behavior = then;
                }
                Behavior::Return {
                    output: Output::Generate(gen),
                } => {
                    let size = match gen {
                        Gen::Repeat { size, .. } => size,
                        Gen::Lines { lines } => &mut lines.size,
                        Gen::Text { .. }
                        | Gen::Concat { .. }
                        | Gen::NoteCopy { .. }
                        | Gen::WrapperCopy { .. } => break,
                    };
                    let Size::Exact(n) = *size else {
                        return Err("the case's sizes are not resolved".to_owned());
                    };
                    *size = Size::Exact(n / ask.smaller);
                    found += 1;
                    break;
                }
                Behavior::Return { .. } | Behavior::Raise { .. } => break,
            }
        }
    }
    match found {
        1 => Ok(small),
        n => Err(format!(
            "`linear_time` needs exactly one generated output (`repeat` or `lines`) to shrink; the case has {n}"
        )),
    }
}

/// The fastest of a side's runs.
fn fastest(times: &[Duration]) -> Duration {
    times.iter().copied().min().unwrap_or_default()
}

/// The failure, if the large case took more than [`LINEAR_TIME_SLACK`] × `smaller` times as
/// long as the small one (each side's fastest run).
pub fn judge(smaller: u64, small: &[Duration], large: &[Duration]) -> Option<String> {
    let (s, l) = (fastest(small), fastest(large));
    let bound = LINEAR_TIME_SLACK * smaller;
    // A clock that reads zero for the small side cannot show a ratio: it is one nanosecond.
    let ratio = l.as_secs_f64() / s.max(Duration::from_nanos(1)).as_secs_f64();
    (ratio > bound as f64).then(|| {
        format!(
            "capping grew faster than the output: the case with its output {smaller} times larger took {ratio:.0} times as long ({} against {}, the fastest of {ROUNDS} runs each, interleaved); time linear in the output allows at most {smaller} times, and the suite allows {bound}",
            show(l),
            show(s)
        )
    })
}

/// A duration for a message: milliseconds with three decimals.
fn show(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_micros(n * 1000)
    }

    #[test]
    fn linear_growth_and_a_fixed_cost_pass_and_quadratic_growth_fails() {
        // Linear with a fixed cost: 2 ms + 0.1 ms per unit, 100 units against 1600.
        assert_eq!(judge(16, &[ms(12)], &[ms(162)]), None);
        // Quadratic: 256 times as long.
        let failure = judge(16, &[ms(1), ms(3)], &[ms(256), ms(300)]).expect("quadratic");
        assert!(failure.contains("took 256 times as long"), "{failure}");
        assert!(failure.contains("allows 64"), "{failure}");
        // Exactly at the bound passes.
        assert_eq!(judge(16, &[ms(1)], &[ms(64)]), None);
    }

    #[test]
    fn the_fastest_run_of_each_side_is_compared() {
        // Load slowed most runs of both sides; one run of each was not slowed.
        let small = [ms(40), ms(1), ms(35), ms(50), ms(45)];
        let large = [ms(400), ms(300), ms(16), ms(500), ms(350)];
        assert_eq!(judge(16, &small, &large), None);
    }

    fn case(behavior: serde_json::Value, n_tools: usize) -> WireCase {
        let tools: Vec<serde_json::Value> = (0..n_tools)
            .map(|i| {
                serde_json::json!({"name": format!("t{i}"), "input_schema": {"type": "object"},
                    "behavior": behavior})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "id": "cap/x", "tools": tools,
            "calls": [{"id": "a", "name": "t0", "input": {}}]
        }))
        .expect("a wire case")
    }

    #[test]
    fn the_copy_shrinks_the_one_generated_output() {
        let large = case(
            serde_json::json!({"sleep_ms": 1, "then": {"return": {"generate": {"repeat": "ab\n", "size": 3200}}}}),
            1,
        );
        let small = smaller_copy(&large, LinearTime { smaller: 16 }).expect("a copy");
        let text = serde_json::to_string(&small.tools[0].behavior).unwrap();
        assert!(text.contains("\"size\":200"), "{text}");
        assert_eq!(small.calls, large.calls);
    }

    #[test]
    fn a_case_without_exactly_one_generated_output_is_a_bug() {
        let fixed = case(serde_json::json!({"return": {"text": "ok"}}), 1);
        let two = case(
            serde_json::json!({"return": {"generate": {"repeat": "a", "size": 10}}}),
            2,
        );
        for c in [fixed, two] {
            let e = smaller_copy(&c, LinearTime { smaller: 16 }).unwrap_err();
            assert!(e.contains("exactly one generated output"), "{e}");
        }
        let one = case(
            serde_json::json!({"return": {"generate": {"repeat": "a", "size": 10}}}),
            1,
        );
        assert!(smaller_copy(&one, LinearTime { smaller: 1 })
            .unwrap_err()
            .contains("at least 2"));
    }
}
