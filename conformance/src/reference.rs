//! TEMPORARY stub until harness-ref-adapter's lib lands.
use harness_conformance_protocol::{Hello, Reply, WireCase};
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    A,
}
impl Fault {
    pub const ALL: [Fault; 1] = [Fault::A];
    pub fn name(self) -> &'static str {
        "a"
    }
    pub fn describe(self) -> &'static str {
        "a"
    }
}
#[derive(Debug)]
pub struct ReferenceAdapter;
impl ReferenceAdapter {
    pub fn new(_f: Option<Fault>) -> Self {
        ReferenceAdapter
    }
    pub fn hello(&self) -> Hello {
        unimplemented!("stub")
    }
    pub fn run(&mut self, _c: &WireCase) -> Reply {
        unimplemented!("stub")
    }
}
