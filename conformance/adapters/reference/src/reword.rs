//! The messages of the legitimate variants: other classes for the same call, other words for
//! the same facts, no next step.
//!
//! Each function takes what harness-ref answered (its [`ToolResult`], with the structured
//! [`harness_ref::ErrorInfo`] behind the text) and composes the content the variant shows
//! instead, uncapped: the caller caps it with the variant's cap. Everything a message must carry
//! — the tool, each field's pointer with what was expected and received, the available tools,
//! the tool's own refusal, the deadline, a bounded echo of what the model sent — comes from that
//! data, never from the case's expectations.

use std::time::Duration;

use harness_ref::{ErrorCode, InputSchema, ToolResult, UnknownFields, Violation};
use serde_json::Value;

/// How many tool names an unknown-tool message lists (the reference lists as many).
const MAX_LISTED_TOOLS: usize = 30;

/// A name or value as the reference quotes it: JSON, the first 64 chars, `...` when cut.
fn quoted(s: &str) -> String {
    quoted_within(s, 64, "...")
}

fn quoted_within(s: &str, max_chars: usize, ellipsis: &str) -> String {
    let bounded: String = s.chars().take(max_chars).collect();
    let mut q = Value::String(bounded).to_string();
    if s.chars().count() > max_chars {
        q.push_str(ellipsis);
    }
    q
}

/// `non-object-as-invalid-arguments`: the reference's invalid-arguments answer for arguments
/// that are not an object (`None`: the block has none at all), validated against `schema`.
pub(crate) fn non_object_arguments(tool: &str, schema: &Value, args: Option<&Value>) -> String {
    let mut violations = match (args, InputSchema::compile(schema, UnknownFields::Reject)) {
        (Some(args), Ok(compiled)) => compiled.violations(args),
        _ => Vec::new(),
    };
    // A schema without a root `type` accepts any value; the arguments are still not an object,
    // and a tool's arguments are one.
    if !violations.iter().any(|v| v.pointer.is_empty()) {
        violations.insert(
            0,
            Violation {
                pointer: String::new(),
                expected: "object".to_owned(),
                received: args.map_or_else(
                    || "nothing".to_owned(),
                    harness_ref::schema::describe_received,
                ),
                keyword: "type".to_owned(),
            },
        );
    }
    let list: Vec<String> = violations.iter().map(Violation::to_string).collect();
    format!(
        "invalid arguments for tool {}: {} — fix every listed argument and call {} again",
        quoted(tool),
        list.join("; "),
        quoted(tool)
    )
}

/// `empty-name-as-unknown-tool`: the reference's unknown-tool answer for an empty name.
pub(crate) fn unknown_tool(name: &str, tools: &[String]) -> String {
    let known = if tools.is_empty() {
        "no tools are available".to_owned()
    } else {
        format!("available tools: {}", tool_list(tools, quoted))
    };
    format!(
        "unknown tool {}; {known} — call one of the available tools by its exact name",
        quoted(name)
    )
}

/// `blank-name-as-malformed-call`: the reference's malformed-call answer, for a blank name.
pub(crate) fn blank_name() -> String {
    "malformed tool call: \"name\" is blank — send a tool_use block with a non-empty string \"id\", \
     a string \"name\" and an object \"input\""
        .to_owned()
}

fn tool_list(tools: &[String], quote: fn(&str) -> String) -> String {
    let mut list = tools
        .iter()
        .take(MAX_LISTED_TOOLS)
        .map(|t| quote(t))
        .collect::<Vec<_>>()
        .join(", ");
    if tools.len() > MAX_LISTED_TOOLS {
        list.push_str(&format!(", and {} more", tools.len() - MAX_LISTED_TOOLS));
    }
    list
}

/// `no-remedies`: the condition alone, when the reference appended a next step.
pub(crate) fn without_remedy(result: &ToolResult) -> Option<String> {
    let error = result.error()?;
    error.remedy.as_ref()?;
    Some(error.message.clone())
}

/// `code-prefixed-messages`: `error[<code>]: ` before the reference's whole message.
pub(crate) fn code_prefixed(result: &ToolResult) -> Option<String> {
    let error = result.error()?;
    // The reference's content: the condition, then ` — ` and the remedy when there is one.
    let message = match &error.remedy {
        Some(remedy) => format!("{} — {remedy}", error.message),
        None => error.message.clone(),
    };
    Some(format!("error[{}]: {message}", error.code.code()))
}

/// What a reworded message may need besides the result.
pub(crate) struct Facts<'a> {
    /// The tool the call named, as sent (when it named one).
    pub(crate) tool: Option<&'a str>,
    /// The tools the harness has, in its order.
    pub(crate) tools: &'a [String],
    /// The deadline handlers run under.
    pub(crate) deadline: Duration,
}

/// A name in the reworded variant's own style: backquoted JSON, at most 48 chars.
fn named(s: &str) -> String {
    format!("`{}`", quoted_within(s, 48, "…"))
}

/// `reworded-messages`: the same facts in other words, for the core classes; `None` keeps the
/// reference's message (successes, the security gates' refusals, anything not understood).
pub(crate) fn reworded(result: &ToolResult, facts: &Facts<'_>) -> Option<String> {
    let error = result.error()?;
    let tool = facts.tool.map(named);
    let tool = tool.as_deref();
    let text = match (error.code, tool) {
        (ErrorCode::InvalidArguments, Some(tool)) => {
            let n = error.violations.len();
            format!(
                "{tool} did not run because {n} argument{} {} wrong:\n{}\nCorrect each one and call {tool} again.",
                if n == 1 { "" } else { "s" },
                if n == 1 { "is" } else { "are" },
                problems(&error.violations)
            )
        }
        (ErrorCode::SemanticViolation, Some(tool)) => format!(
            "{tool} did not run: its arguments break the tool's rules:\n{}\nCorrect each one and call {tool} again.",
            problems(&error.violations)
        ),
        (ErrorCode::UnknownTool, _) => {
            let name = facts.tool.map_or_else(|| "``".to_owned(), named);
            if facts.tools.is_empty() {
                format!("There is no tool called {name}, and no tools can be called at all.")
            } else {
                format!(
                    "There is no tool called {name}. The tools you can call are: {}. Use one of these names exactly.",
                    tool_list(facts.tools, named)
                )
            }
        }
        (ErrorCode::MalformedCall, _) => {
            let problem = error
                .message
                .strip_prefix("malformed tool call: ")
                .unwrap_or(&error.message);
            format!(
                "This tool call could not be read ({problem}). Send a tool_use block with a non-empty string id, a string name and an object input."
            )
        }
        (ErrorCode::DuplicateCallId, _) => {
            let id = result.tool_use_id().map_or_else(String::new, named);
            format!(
                "The id {id} belongs to an earlier call in this turn, so this call did not run. Give every call of a turn an id of its own."
            )
        }
        (ErrorCode::ToolRefused, Some(tool)) => {
            // The reference composes a sentence for a refusal with no words; any other
            // refusal message is the tool's own, shown verbatim.
            let composed = format!(
                "tool {} refused the request without giving a reason",
                quoted(facts.tool?)
            );
            if error.message == composed {
                format!("{tool} said no, and gave no reason.")
            } else {
                format!("{tool} declined. It said: {}", error.message)
            }
        }
        (ErrorCode::ToolUnavailable, Some(tool)) => {
            let prefix = format!("tool {} is unavailable: ", quoted(facts.tool?));
            let why = error.message.strip_prefix(&prefix)?;
            format!("{tool} could not be reached ({why}). The same call may work if you try it again later.")
        }
        (ErrorCode::Timeout, Some(tool)) => format!(
            "{tool} was stopped after {} ms without finishing. Retrying may work; asking for less may finish sooner.",
            facts.deadline.as_millis()
        ),
        (ErrorCode::InternalError, Some(tool)) => format!(
            "Something went wrong inside {tool}; the operators have the details. Calling it again the same way will not help: try another approach."
        ),
        (ErrorCode::InvalidToolOutput, Some(tool)) => {
            let prefix = format!("tool {} produced output that cannot be returned: ", quoted(facts.tool?));
            let why = error.message.strip_prefix(&prefix)?;
            format!("{tool} returned something that cannot be passed on ({why}). Calling it again will not help; try a different request.")
        }
        _ => return None,
    };
    Some(text)
}

/// `refuses-every-duplicate-id`: the answer to the first of several calls with one id.
pub(crate) fn reused_id(id: &str) -> String {
    format!(
        "duplicate tool call id {}: other calls in this turn use it too, so none of them was run — give every tool call in a turn its own id",
        quoted(id)
    )
}

/// `unknown-tool-without-list`: the reference's unknown-tool answer without the tool list.
pub(crate) fn unknown_tool_unlisted(name: &str) -> String {
    format!(
        "unknown tool {} — call one of the available tools by its exact name",
        quoted(name)
    )
}

/// `python-style-messages`: an invalid-arguments (or semantic) answer worded like a Python
/// validator's — a count, then each location as a dotted path with what was expected and
/// received in Python's type names — followed by the reference's remedy.
pub(crate) fn python_style(result: &ToolResult, tool: Option<&str>) -> Option<String> {
    let error = result.error()?;
    let kind = match error.code {
        ErrorCode::InvalidArguments => "validation",
        ErrorCode::SemanticViolation => "rule",
        _ => return None,
    };
    if error.violations.is_empty() {
        return None;
    }
    let n = error.violations.len();
    let mut text = format!(
        "{n} {kind} error{} for {}",
        if n == 1 { "" } else { "s" },
        quoted(tool?)
    );
    for v in &error.violations {
        text.push_str(&format!(
            "\n{}\n  expected {}, got {}",
            dotted(&v.pointer),
            python_type(&v.expected).unwrap_or(&v.expected),
            python_received(&v.received)
        ));
    }
    if let Some(remedy) = &error.remedy {
        text.push('\n');
        text.push_str(remedy);
    }
    Some(text)
}

/// `/items/3/qty` as `items.3.qty` (keys unescaped), the root as `arguments`; bounded like the
/// reference's pointers.
fn dotted(pointer: &str) -> String {
    if pointer.is_empty() {
        return "arguments".to_owned();
    }
    let path: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|key| key.replace("~1", "/").replace("~0", "~"))
        .collect();
    harness_ref::schema::display_pointer(&path.join("."))
}

/// Python's name for a JSON Schema type name.
fn python_type(json_type: &str) -> Option<&'static str> {
    Some(match json_type {
        "integer" => "int",
        "number" => "float",
        "string" => "str",
        "boolean" => "bool",
        "array" => "list",
        "object" => "dict",
        "null" => "None",
        _ => return None,
    })
}

/// `string "3"` as `str "3"`, `null` as `None`: the kind in Python's words, the value as is.
fn python_received(received: &str) -> String {
    let (kind, rest) = received.split_once(' ').unwrap_or((received, ""));
    match python_type(kind) {
        Some(name) if rest.is_empty() => name.to_owned(),
        Some(name) => format!("{name} {rest}"),
        None => received.to_owned(),
    }
}

/// One line per violation: `- /a/b should be <expected>; it is <received>`.
fn problems(violations: &[Violation]) -> String {
    violations
        .iter()
        .map(|v| {
            let at = if v.pointer.is_empty() {
                "the arguments as a whole".to_owned()
            } else {
                harness_ref::schema::display_pointer(&v.pointer)
            };
            format!("- {at} should be {}; it is {}", v.expected, v.received)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn non_object_arguments_name_the_root_and_what_came() {
        let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
        let m = non_object_arguments("get_weather", &schema, Some(&json!([1, 2])));
        assert!(
            m.starts_with("invalid arguments for tool \"get_weather\": (root): expected object"),
            "{m}"
        );
        assert!(m.contains("array"), "{m}");
        let absent = non_object_arguments("t", &json!({}), None);
        assert!(
            absent.contains("(root): expected object, got nothing"),
            "{absent}"
        );
        let open = non_object_arguments("t", &json!({}), Some(&json!("x")));
        assert!(open.contains("got string \"x\""), "{open}");
    }

    #[test]
    fn unknown_tool_lists_the_tools_or_says_there_are_none() {
        let tools = vec!["a".to_owned(), "b".to_owned()];
        assert_eq!(
            unknown_tool("", &tools),
            "unknown tool \"\"; available tools: \"a\", \"b\" — call one of the available tools by its exact name"
        );
        assert!(unknown_tool("", &[]).contains("no tools are available"));
        let many: Vec<String> = (0..40).map(|i| format!("t{i}")).collect();
        let m = unknown_tool("", &many);
        assert!(
            m.contains("\"t29\", and 10 more") && !m.contains("t30"),
            "{m}"
        );
    }

    #[test]
    fn python_words_for_paths_and_types() {
        assert_eq!(dotted(""), "arguments");
        assert_eq!(dotted("/items/3/qty"), "items.3.qty");
        assert_eq!(dotted("/a~1b/m~0n"), "a/b.m~n");
        assert!(dotted(&format!("/{}", "k".repeat(5000))).chars().count() <= 200);
        assert_eq!(python_received("string \"3\""), "str \"3\"");
        assert_eq!(python_received("null"), "None");
        assert_eq!(python_received("nothing"), "nothing");
        assert_eq!(python_type("integer"), Some("int"));
        assert_eq!(python_type("one of \"string\""), None);
    }

    #[test]
    fn names_are_bounded() {
        let long = "x".repeat(1000);
        assert_eq!(named(&long).chars().count(), 48 + 2 + 2 + 1);
        assert!(quoted(&long).ends_with("\"..."));
    }
}
