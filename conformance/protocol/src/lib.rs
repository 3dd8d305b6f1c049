//! The wire types of the harness-conformance adapter protocol.
//!
//! The runner and every adapter written in Rust (the reference adapter among them) speak the
//! same JSON lines; this crate is the one place those messages are defined, so the two sides
//! cannot drift. It is a pure library: no I/O, no printing. `conformance/PROTOCOL.md` is the
//! normative text for adapters in other languages, and its JSON Schemas describe the same
//! shapes as the types here.
//!
//! Its parts:
//! - [`case`]: the case as an adapter sees it — configuration, tools with scripted behaviours,
//!   and the calls of one assistant turn. Expectations are not here: adapters never see them.
//! - [`content`]: content blocks (text, image, embedded resource) and the raw MCP result, the
//!   one shape for handlers that return blocks and for replies that report them.
//! - [`message`]: the commands the runner sends, the handshake, and the adapter's replies.
//! - [`vocabulary`]: every capability name a hello may use (keywords, classes, features,
//!   optional behaviours), so that a typo is refused instead of silently skipping cases.
//! - [`security`]: the optional security part of a case (caller context, tool policies,
//!   per-call idempotency keys and prepare/commit) and the features it implies.
//! - [`generate`]: expanding the compact description of a large output into its text, and
//!   resolving sizes given relative to the harness's cap. Both sides run the same code, so the
//!   runner checks a result against exactly the text the adapter's handler returned;
//! - [`image`]: images a case describes (built by the runner before the case is sent) and a
//!   provider's image limits, with what an image block holds (dimensions, base64 length).
//! - [`script`]: performing a case's scripted behaviour (return, raise, sleep, mutate the
//!   arguments), for any Rust harness's handlers.

// The wire case's fields are declared by a macro other crates expand too; its serde attributes
// name helpers by this absolute path, which this line makes valid inside the crate as well.
extern crate self as harness_conformance_protocol;

pub mod case;
pub mod content;
pub mod generate;
pub mod image;
pub mod message;
pub mod script;
pub mod security;
pub mod vocabulary;

pub use case::{stream_before_deadline, StreamPart};
pub use case::{
    Behavior, Call, CallForm, CapRequest, CaseConfig, Gen, Lines, Mutation, NonFinite, NonFiniteIn,
    NonJson, NonJsonIn, NoteCopy, Output, Pause, PauseDecision, Raise, RaiseKind, Resume,
    SavedResult, Size, SleepMs, SpillLifecycle, SpillStep, StopReason, Strategy, TokenEstimator,
    ToolDef, Unit, UserDecision, WireCase, WrapperPart,
};
pub use content::{text_of, ContentBlock, EmbeddedResource, McpResult, ResourceLink};
pub use generate::{
    materialize, measure, resolve_case, resolve_case_with, resolve_note_copies, resolve_size_value,
    resolve_wrapper_copies, GenError, MAX_GENERATED_SIZE, MAX_SLEEP_MS,
};
pub use image::{ImageFacts, ImageLimit, SyntheticImage};
pub use message::{
    decode_command, decode_hello, decode_reply, Artifact, CapCapability, Capabilities, Command,
    DeadlineCapability, DecodeError, Escape, Hello, Implementation, Invocation, NoteDeclaration,
    ObservedResult, Reply, ReplyOutcome, SpillPolicy, TruncationMeta, WrapperDeclaration,
    PROTOCOL_VERSION,
};
pub use security::{
    implied_features, implied_features_of, is_secured, Before, BoundsDef, CallSecurity, CommitRef,
    ContextDef, EffectClass, PolicyDef, SecuritySetup, Workspace, CALL_SECURITY_KEYS,
};
