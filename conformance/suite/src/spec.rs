//! The requirements, read from `conformance/SPEC.md` — the single source of levels.
//!
//! SPEC.md is prose for people, but its requirement headings follow one fixed shape, so the
//! runner reads the levels (MUST / SHOULD / MAY) and the case lists from it instead of keeping
//! a second copy that could drift:
//!
//! ```text
//! ### VAL-1 (MUST) Arguments are validated before the handler runs
//! Rationale: ...
//! Applies: call_form.arguments_text          (optional: only for harnesses that declare these)
//! Cases: `validation/a`, `validation/b`
//! ```

use std::fmt;

/// How strongly SPEC.md asks for a requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// A harness that breaks it is not conformant.
    Must,
    /// Expected of a good harness; failures are reported like MUST failures.
    Should,
    /// Optional behaviour.
    May,
}

impl Level {
    /// `MUST`, `SHOULD` or `MAY`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
        }
    }

    fn parse(s: &str) -> Option<Level> {
        match s {
            "MUST" => Some(Level::Must),
            "SHOULD" => Some(Level::Should),
            "MAY" => Some(Level::May),
            _ => None,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One numbered requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    /// `VAL-1`.
    pub id: String,
    /// Its level.
    pub level: Level,
    /// The heading's title.
    pub title: String,
    /// The one-line rationale (empty if SPEC.md has none).
    pub rationale: String,
    /// The case ids its `Cases:` line lists, in order.
    pub cases: Vec<String>,
    /// The capabilities (need names) a harness must declare for the requirement to apply to
    /// it, from its `Applies:` line; empty: it applies to every harness.
    pub applies: Vec<String>,
}

/// Why SPEC.md could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SPEC.md:{}: {}", self.line, self.message)
    }
}

impl std::error::Error for SpecError {}

/// Parses every `### ID (LEVEL) title` section of SPEC.md.
pub fn parse(text: &str) -> Result<Vec<Requirement>, SpecError> {
    let mut reqs: Vec<Requirement> = Vec::new();
    // Whether the lines being read belong to the last requirement: any other heading ends it.
    let mut inside = false;
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        if let Some(rest) = line.strip_prefix("### ") {
            let mut parts = rest.splitn(3, ' ');
            let id = parts.next().unwrap_or("");
            let level = parts.next().unwrap_or("");
            let title = parts.next().unwrap_or("").trim();
            if !looks_like_id(id) {
                inside = false;
                continue;
            }
            let level = level
                .strip_prefix('(')
                .and_then(|l| l.strip_suffix(')'))
                .and_then(Level::parse)
                .ok_or_else(|| SpecError {
                    line: lineno,
                    message: format!(
                        "requirement {id:?} needs a level `(MUST)`, `(SHOULD)` or `(MAY)` after its id, found {level:?}"
                    ),
                })?;
            if reqs.iter().any(|r| r.id == id) {
                return Err(SpecError {
                    line: lineno,
                    message: format!("requirement {id:?} is defined twice"),
                });
            }
            reqs.push(Requirement {
                id: id.to_owned(),
                level,
                title: title.to_owned(),
                rationale: String::new(),
                cases: Vec::new(),
                applies: Vec::new(),
            });
            inside = true;
            continue;
        }
        if line.starts_with('#') {
            inside = false;
        }
        let Some(current) = reqs.last_mut().filter(|_| inside) else {
            continue;
        };
        if let Some(rest) = line.strip_prefix("Rationale:") {
            current.rationale = rest.trim().to_owned();
        } else if let Some(rest) = line.strip_prefix("Cases:") {
            current.cases.extend(backticked(rest));
        } else if let Some(rest) = line.strip_prefix("Applies:") {
            current.applies.extend(
                rest.split(',')
                    .map(|n| n.trim().trim_matches('`').to_owned())
                    .filter(|n| !n.is_empty()),
            );
        }
    }
    Ok(reqs)
}

fn looks_like_id(s: &str) -> bool {
    let Some((area, num)) = s.split_once('-') else {
        return false;
    };
    !area.is_empty()
        && area.bytes().all(|b| b.is_ascii_uppercase())
        && !num.is_empty()
        && num.bytes().all(|b| b.is_ascii_digit())
}

fn backticked(s: &str) -> Vec<String> {
    s.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, part)| part.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_levels_rationales_and_cases() {
        let text = "# Spec\n\n## Validation\n\n### VAL-1 (MUST) Validate first\nRationale: handlers trust their input.\nCases: `validation/a`, `validation/b`\n\n### VAL-2 (MAY) Coerce nothing\nApplies: `call_form.raw`, feature.budget\nCases: `validation/c`\n### Notes\nCases: `ignored/x`\n";
        let reqs = parse(text).unwrap();
        assert_eq!(reqs.len(), 2);
        assert_eq!(reqs[0].id, "VAL-1");
        assert_eq!(reqs[0].level, Level::Must);
        assert_eq!(reqs[0].title, "Validate first");
        assert_eq!(reqs[0].rationale, "handlers trust their input.");
        assert_eq!(reqs[0].cases, vec!["validation/a", "validation/b"]);
        assert_eq!(reqs[1].level, Level::May);
        assert!(reqs[0].applies.is_empty());
        assert_eq!(reqs[1].applies, vec!["call_form.raw", "feature.budget"]);
        // `### Notes` is not a requirement, but its `Cases:` line must not leak into VAL-2.
        assert_eq!(reqs[1].cases, vec!["validation/c"]);
    }

    #[test]
    fn a_missing_level_is_an_error_with_its_line() {
        let err = parse("\n### CAP-3 Cap everything\n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("CAP-3"));
        let dup = parse("### A-1 (MUST) x\n### A-1 (MAY) y\n").unwrap_err();
        assert!(dup.message.contains("twice"));
    }
}
