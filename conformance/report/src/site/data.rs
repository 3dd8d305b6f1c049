//! The grid's case rows, loaded on demand: `data/cases.js` (which cases each requirement has)
//! and one `data/<slug>.js` per harness (its verdict on every case, and the first message of
//! each that did not pass).
//!
//! The index carries only each requirement's standing per harness, so it grows by a few
//! kilobytes per column; the case level (about 600 cases × every harness) is fetched when a
//! reader opens a requirement, and only for the harnesses shown. The files are scripts, not
//! JSON, because a page opened from disk (`file://`) may not fetch anything, but may load a
//! script from its own folder; each calls one function of `site.js` with a JSON literal
//! written by serde_json, so no string in it can be anything but a string.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::{bounded, verdict, Row, CELL_CHARS};
use crate::escape;
use crate::matrix::Column;

/// Every case of the site, in the order the grid's rows list them (a case under several
/// requirements comes at its first), and each requirement's cases as positions in that order.
pub struct Cases<'a> {
    /// The cases.
    pub order: Vec<&'a str>,
    /// Requirement id → the positions of its cases.
    pub by_requirement: Vec<(&'a str, Vec<usize>)>,
}

impl<'a> Cases<'a> {
    /// The cases of the rows.
    pub fn of(rows: &[Row<'a>]) -> Cases<'a> {
        let mut order: Vec<&str> = Vec::new();
        let mut at: HashMap<&str, usize> = HashMap::new();
        let by_requirement = rows
            .iter()
            .map(|r| {
                let positions = r
                    .cases
                    .iter()
                    .map(|c| {
                        *at.entry(c).or_insert_with(|| {
                            order.push(c);
                            order.len() - 1
                        })
                    })
                    .collect();
                (r.id, positions)
            })
            .collect();
        Cases {
            order,
            by_requirement,
        }
    }

    /// `data/cases.js`.
    pub fn script(&self) -> String {
        let by: Map<String, Value> = self
            .by_requirement
            .iter()
            .map(|(id, cases)| ((*id).to_owned(), json!(cases)))
            .collect();
        call("HC.cases", &[json!({ "order": self.order, "by": by })])
    }

    /// `data/<slug>.js`: the column's code for every case ([`verdict::case_truth`]; `-` where
    /// its run did not have the case) and the first message of each case that did not pass.
    pub fn column_script(&self, slug: &str, col: &Column) -> String {
        let by_id = crate::matrix::index(std::slice::from_ref(col))
            .pop()
            .unwrap_or_default();
        let mut codes = String::with_capacity(self.order.len());
        let mut messages = Map::new();
        for (i, case) in self.order.iter().enumerate() {
            match by_id.get(case) {
                None => codes.push('-'),
                Some(o) => {
                    let code = verdict::case_truth(o);
                    codes.push(code);
                    if code != 'P' {
                        if let Some(m) = o.messages.first() {
                            messages.insert(i.to_string(), json!(bounded(m, CELL_CHARS)));
                        }
                    }
                }
            }
        }
        call(
            "HC.column",
            &[json!(slug), json!({ "v": codes, "m": messages })],
        )
    }
}

/// `f(args…);` with each argument a JSON literal (raw control characters escaped, and `<`, `>`
/// and `&` written as `\u` escapes, which occur only inside strings of serialized JSON: the
/// file holds no markup even if it were ever inlined into a page, where `</script>` would end
/// the script).
fn call(f: &str, args: &[Value]) -> String {
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            escape::json(&a.to_string())
                .replace('<', "\\u003c")
                .replace('>', "\\u003e")
                .replace('&', "\\u0026")
        })
        .collect();
    format!("{f}({});\n", args.join(","))
}
