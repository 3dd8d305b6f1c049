//! `harness-conformance-driver`: runs the conformance suite against harnesses in other
//! processes, on worker threads.
//!
//! Everything here touches the operating system, which is why it is not in the pure suite
//! crate: [`driver`] owns adapter processes (process groups, pipes, bounded reads, writes with
//! deadlines, kills), [`groups`] keeps every live process group so none outlives the runner,
//! [`client`] speaks the adapter protocol over them (handshake, strict decoding, restarts after
//! crashes and hangs) and runs the reference adapter in-process on a thread, [`runner`] spreads
//! a run over `--jobs` workers, and [`selftest`] runs the suite against every deliberately
//! broken variant of the reference at once. What one case amounts to is decided by the suite
//! (`harness_conformance_suite::run`); this crate only carries cases there and back.

pub mod client;
pub mod driver;
pub mod groups;
pub mod runner;
pub mod selftest;
