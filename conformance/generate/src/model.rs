//! The generated case before it becomes a case file: a structure the generator builds and the
//! shrinker takes apart.
//!
//! A [`Model`] holds only what the harness will be sent (tools, calls, configuration). It says
//! nothing about what should happen: that is decided afresh by [`super::oracle`] every time a
//! model is built or shrunk, so an expectation can never outlive the input it was made for.
//! Schemas are the fuzz helper's typed subset ([`harness_ref_props::schema::Schema`]), so they
//! can be simplified structurally; behaviours are the protocol's own.

use harness_conformance_protocol::{Behavior, Call, CapRequest, CaseConfig, StopReason, ToolDef};
use harness_ref_props::schema::Schema;
use serde_json::{Map, Value};

/// One generated case.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The cap the case asks for (`None`: the harness's own).
    pub cap: Option<CapRequest>,
    /// The handler deadline the case asks for.
    pub deadline_ms: Option<u64>,
    /// The tools.
    pub tools: Vec<ToolModel>,
    /// The calls of the one assistant turn.
    pub calls: Vec<CallModel>,
    /// The tools the turn offered, when only some (feature `offered-tools`).
    pub offered: Option<Vec<String>>,
    /// Why the turn ended, when the case says (feature `stop-reason`).
    pub stop_reason: Option<StopReason>,
}

/// One generated tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolModel {
    /// Its name.
    pub name: String,
    /// Its input schema (an object schema at the top).
    pub schema: Schema,
    /// A marker written as the schema's top-level `description`: no content may contain it
    /// (the schema is never dumped into a message).
    pub marker: Option<String>,
    /// What its handler does.
    pub behavior: Behavior,
    /// What kind of output or fault the generator meant (for the summary only).
    pub shape: &'static str,
}

/// How a call's arguments arrive.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// As a JSON value (`input`).
    Value(Value),
    /// As text (`arguments_text`).
    Text(String),
}

/// One generated call.
#[derive(Debug, Clone, PartialEq)]
pub enum CallModel {
    /// The whole block as raw text (never a usable call).
    Raw(String),
    /// A structured block; `None` leaves the field out.
    Block {
        /// The id (a string normally; absent, empty or a number to break it).
        id: Option<Value>,
        /// The tool name.
        name: Option<String>,
        /// The arguments.
        input: Input,
    },
}

impl CallModel {
    /// The id when it is a string.
    pub fn id_str(&self) -> Option<&str> {
        match self {
            CallModel::Block {
                id: Some(Value::String(s)),
                ..
            } => Some(s),
            _ => None,
        }
    }

    /// The name, for a block.
    pub fn name(&self) -> Option<&str> {
        match self {
            CallModel::Block { name: Some(n), .. } => Some(n),
            _ => None,
        }
    }

    /// The call as the protocol sends it.
    pub fn to_call(&self) -> Call {
        match self {
            CallModel::Raw(text) => Call::Raw(text.clone()),
            CallModel::Block { id, name, input } => {
                let mut m = Map::new();
                if let Some(id) = id {
                    m.insert("id".into(), id.clone());
                }
                if let Some(name) = name {
                    m.insert("name".into(), Value::from(name.as_str()));
                }
                match input {
                    Input::Value(v) => {
                        m.insert("input".into(), v.clone());
                    }
                    Input::Text(t) => {
                        m.insert("arguments_text".into(), Value::from(t.as_str()));
                    }
                }
                Call::Block(m)
            }
        }
    }
}

impl ToolModel {
    /// The input schema as JSON, marker included.
    pub fn schema_json(&self) -> Value {
        let mut json = self.schema.to_json();
        if let (Some(marker), Value::Object(m)) = (&self.marker, &mut json) {
            m.insert("description".into(), Value::from(marker.as_str()));
        }
        json
    }

    /// The tool as the protocol sends it (decoded, so fields added to the protocol later
    /// take their defaults).
    pub fn to_tool(&self) -> ToolDef {
        let behavior = serde_json::to_value(&self.behavior).expect("behaviours serialize");
        serde_json::from_value(serde_json::json!({
            "name": self.name,
            "description": format!("A generated tool ({}).", self.shape),
            "input_schema": self.schema_json(),
            "behavior": behavior,
        }))
        .expect("a generated tool decodes")
    }
}

impl Model {
    /// The configuration part of the case.
    pub fn config(&self) -> CaseConfig {
        CaseConfig {
            cap: self.cap.clone(),
            deadline_ms: self.deadline_ms,
            image_limit: None,
        }
    }

    /// Whether the turn offered the tool `name` (every tool, when it offered no subset).
    pub fn offers(&self, name: &str) -> bool {
        self.offered
            .as_ref()
            .is_none_or(|o| o.iter().any(|x| x == name))
    }

    /// Whether call `i` is the last call of a turn the output limit cut off.
    pub fn cut_off(&self, i: usize) -> bool {
        self.stop_reason == Some(StopReason::MaxTokens) && i + 1 == self.calls.len()
    }

    /// The tool a call names exactly.
    pub fn tool(&self, name: &str) -> Option<&ToolModel> {
        self.tools.iter().find(|t| t.name == name)
    }
}
