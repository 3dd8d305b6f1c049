//! The tool the dispatch benchmark and its instruction-count example both call, so that the
//! two measure the same dispatch.

use serde_json::{json, Value};

/// `list`'s input schema: three required properties, one with a bound.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1},
            "recursive": {"type": "boolean"}
        },
        "required": ["path", "limit", "recursive"]
    })
}
