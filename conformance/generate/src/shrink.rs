//! Shrinking: the smaller models to try in place of a failing one, coarsest first.
//!
//! Greedy delta debugging over the case's structure: drop calls, drop tools, drop the
//! configuration, simplify behaviours and outputs, then schemas, then arguments. The caller
//! ([`super::shrink_model`]) runs each candidate through the adapter and keeps the first that
//! still breaks the same requirement; the oracle judges every candidate afresh, so a call the
//! original case called invalid is re-checked by the reference validator in its shrunk form,
//! and a candidate whose arguments became valid is judged as valid.

use harness_conformance_protocol::{Behavior, Gen, Lines, Output, Size};
use harness_ref_props::schema::{Additional, Bounds, ObjectSchema, Schema};
use serde_json::{Map, Value};

use super::model::{CallModel, Input, Model};

/// Candidate models, each strictly simpler than `m` in one respect.
pub fn candidates(m: &Model) -> Vec<Model> {
    let mut out = Vec::new();
    // The model with one change.
    let with = |change: &dyn Fn(&mut Model)| {
        let mut c = m.clone();
        change(&mut c);
        c
    };
    // Fewer calls.
    if m.calls.len() > 1 {
        for i in 0..m.calls.len() {
            out.push(with(&|c| {
                c.calls.remove(i);
            }));
        }
    }
    // Fewer tools (calls to a removed tool then name an unknown tool; it leaves the offered
    // list too).
    if m.tools.len() > 1 {
        for i in 0..m.tools.len() {
            out.push(with(&|c| {
                let removed = c.tools.remove(i);
                if let Some(offered) = &mut c.offered {
                    offered.retain(|n| *n != removed.name);
                }
            }));
        }
    }
    // A plainer turn (every tool offered, no stop reason) and the harness's own configuration.
    if m.offered.is_some() {
        out.push(with(&|c| c.offered = None));
    }
    if m.stop_reason.is_some() {
        out.push(with(&|c| c.stop_reason = None));
    }
    if m.cap.is_some() {
        out.push(with(&|c| c.cap = None));
    }
    if m.deadline_ms.is_some() {
        out.push(with(&|c| c.deadline_ms = None));
    }
    // Simpler behaviours and shorter outputs.
    for (i, t) in m.tools.iter().enumerate() {
        for b in behaviors(&t.behavior) {
            out.push(with(&|c| c.tools[i].behavior = b.clone()));
        }
        if t.marker.is_some() {
            out.push(with(&|c| c.tools[i].marker = None));
        }
    }
    // Smaller schemas.
    for (i, t) in m.tools.iter().enumerate() {
        for s in schemas(&t.schema) {
            out.push(with(&|c| c.tools[i].schema = s.clone()));
        }
    }
    // Smaller arguments and plainer calls.
    for (i, call) in m.calls.iter().enumerate() {
        if let CallModel::Block { id, name, input } = call {
            let values: Vec<Input> = match input {
                Input::Value(v) => values(v).into_iter().map(Input::Value).collect(),
                Input::Text(t) => {
                    let mut v = Vec::new();
                    if let Ok(parsed) = serde_json::from_str::<Value>(t) {
                        v.push(Input::Value(parsed));
                    }
                    if t.len() > 2 {
                        v.push(Input::Text(halve(t)));
                    }
                    v
                }
            };
            for input in values {
                let mut c = m.clone();
                c.calls[i] = CallModel::Block {
                    id: id.clone(),
                    name: name.clone(),
                    input,
                };
                out.push(c);
            }
            if let Some(Value::String(s)) = id {
                if s.len() > 2 && s.chars().count() > 1 {
                    let mut c = m.clone();
                    let mut short: String = s.chars().take(s.chars().count() / 2).collect();
                    short = short.trim().to_owned();
                    if !short.is_empty()
                        && !m.calls.iter().any(|x| x.id_str() == Some(short.as_str()))
                    {
                        c.calls[i] = CallModel::Block {
                            id: Some(Value::from(short)),
                            name: name.clone(),
                            input: input.clone(),
                        };
                        out.push(c);
                    }
                }
            }
        }
    }
    out
}

fn halve(s: &str) -> String {
    let n = s.chars().count() / 2;
    s.chars().take(n).collect()
}

fn output_candidates(o: &Output) -> Vec<Output> {
    let mut out = Vec::new();
    match o {
        Output::Text(t) if !t.is_empty() => {
            out.push(Output::Text(String::new()));
            out.push(Output::Text(halve(t)));
        }
        Output::Json(v) if !v.is_null() => out.push(Output::Json(Value::Null)),
        Output::Generate(g) => {
            for g in gens(g) {
                out.push(Output::Generate(g));
            }
        }
        _ => {}
    }
    out
}

fn gens(g: &Gen) -> Vec<Gen> {
    let mut out = Vec::new();
    match g {
        Gen::Text { text } if !text.is_empty() => out.push(Gen::Text { text: halve(text) }),
        Gen::Repeat { repeat, size } => {
            for size in sizes(size) {
                out.push(Gen::Repeat {
                    repeat: repeat.clone(),
                    size,
                });
            }
            if repeat.chars().count() > 1 {
                out.push(Gen::Repeat {
                    repeat: halve(repeat),
                    size: *size,
                });
            }
            if repeat != "a" {
                out.push(Gen::Repeat {
                    repeat: "a".into(),
                    size: *size,
                });
            }
        }
        Gen::Lines { lines } => {
            for size in sizes(&lines.size) {
                out.push(Gen::Lines {
                    lines: Lines {
                        size,
                        ..lines.clone()
                    },
                });
            }
            if lines.last.chars().count() > 1 {
                out.push(Gen::Lines {
                    lines: Lines {
                        last: halve(&lines.last),
                        ..lines.clone()
                    },
                });
            }
            if lines.width > 8 {
                out.push(Gen::Lines {
                    lines: Lines {
                        width: (lines.width / 2).max(7),
                        ..lines.clone()
                    },
                });
            }
        }
        Gen::Concat { concat } => {
            for (i, part) in concat.iter().enumerate() {
                out.push(part.clone());
                if concat.len() > 1 {
                    let mut rest = concat.clone();
                    rest.remove(i);
                    out.push(Gen::Concat { concat: rest });
                }
                for p in gens(part) {
                    let mut c = concat.clone();
                    c[i] = p;
                    out.push(Gen::Concat { concat: c });
                }
            }
        }
        _ => {}
    }
    out
}

fn sizes(s: &Size) -> Vec<Size> {
    match *s {
        Size::Exact(n) if n > 0 => vec![Size::Exact(0), Size::Exact(n / 2)],
        Size::Relative { cap, plus } => {
            let mut v = Vec::new();
            if cap > 1.0 {
                v.push(Size::Relative { cap: 1.0, plus: 1 });
                v.push(Size::Relative {
                    cap: ((cap * 2.0).floor() / 4.0).max(1.0),
                    plus,
                });
            } else if cap > 0.0 {
                v.push(Size::Relative {
                    cap: 0.0,
                    plus: plus.max(0),
                });
            }
            if plus != 0 && cap >= 1.0 {
                v.push(Size::Relative {
                    cap,
                    plus: plus.signum(),
                });
            }
            v
        }
        _ => Vec::new(),
    }
}

fn behaviors(b: &Behavior) -> Vec<Behavior> {
    let mut out = Vec::new();
    match b {
        Behavior::Sleep { sleep_ms, then } => {
            out.push((**then).clone());
            let ms = sleep_ms.exact().unwrap_or(0);
            if ms > 1 {
                out.push(Behavior::Sleep {
                    sleep_ms: (ms / 2).into(),
                    then: then.clone(),
                });
            }
            for t in behaviors(then) {
                out.push(Behavior::Sleep {
                    sleep_ms: *sleep_ms,
                    then: Box::new(t),
                });
            }
        }
        Behavior::MutateArgs { mutate_args, then } => {
            out.push((**then).clone());
            for t in behaviors(then) {
                out.push(Behavior::MutateArgs {
                    mutate_args: mutate_args.clone(),
                    then: Box::new(t),
                });
            }
        }
        Behavior::Return { output } => {
            for o in output_candidates(output) {
                out.push(Behavior::Return { output: o });
            }
        }
        Behavior::Raise { .. } => {
            // A raise's message stays whole: a refusal's message is what the model must see.
            out.push(Behavior::Return {
                output: Output::Text("ok".into()),
            });
        }
    }
    out
}

/// Smaller schemas: fewer properties and constraints, subschemas replaced by `{}`.
pub fn schemas(s: &Schema) -> Vec<Schema> {
    let mut out = Vec::new();
    match s {
        Schema::Object(o) => {
            // The object schema with one change.
            let with = |change: &dyn Fn(&mut ObjectSchema)| {
                let mut smaller = o.clone();
                change(&mut smaller);
                Schema::Object(smaller)
            };
            for i in 0..o.properties.len() {
                out.push(with(&|s| {
                    let (name, _) = s.properties.remove(i);
                    s.required.retain(|x| *x != name);
                }));
            }
            for i in 0..o.required.len() {
                out.push(with(&|s| {
                    s.required.remove(i);
                }));
            }
            if let Additional::Schema(_) = o.additional {
                out.push(with(&|s| s.additional = Additional::Allow));
                out.push(with(&|s| s.additional = Additional::Forbid));
            }
            if o.min_properties.is_some() || o.max_properties.is_some() {
                out.push(with(&|s| {
                    s.min_properties = None;
                    s.max_properties = None;
                }));
            }
            for (i, (_, sub)) in o.properties.iter().enumerate() {
                for smaller in schemas(sub)
                    .into_iter()
                    .chain((*sub != Schema::Any).then_some(Schema::Any))
                {
                    out.push(with(&|s| s.properties[i].1 = smaller.clone()));
                }
            }
        }
        Schema::Array {
            items,
            min_items,
            max_items,
            unique,
        } => {
            if min_items.is_some() || max_items.is_some() || *unique {
                out.push(Schema::Array {
                    items: items.clone(),
                    min_items: None,
                    max_items: None,
                    unique: false,
                });
            }
            if let Some(sub) = items {
                out.push(Schema::Array {
                    items: None,
                    min_items: *min_items,
                    max_items: *max_items,
                    unique: *unique,
                });
                for smaller in schemas(sub) {
                    out.push(Schema::Array {
                        items: Some(Box::new(smaller)),
                        min_items: *min_items,
                        max_items: *max_items,
                        unique: *unique,
                    });
                }
            }
        }
        Schema::Str {
            min_length,
            max_length,
            pattern,
        } if min_length.is_some() || max_length.is_some() || pattern.is_some() => {
            out.push(Schema::Str {
                min_length: None,
                max_length: None,
                pattern: None,
            });
        }
        Schema::Int(b) if *b != Bounds::default() => out.push(Schema::Int(Bounds::default())),
        Schema::Num(b) if *b != Bounds::default() => out.push(Schema::Num(Bounds::default())),
        Schema::Enum(vs) if vs.len() > 1 => out.push(Schema::Enum(vs[..1].to_vec())),
        Schema::AnyOf(bs) | Schema::AllOf(bs) | Schema::OneOf(bs) => {
            out.extend(bs.iter().cloned());
        }
        Schema::Not(inner) => out.push((**inner).clone()),
        Schema::Types(ts) if ts.len() > 1 => out.push(Schema::Types(ts[..1].to_vec())),
        _ => {}
    }
    out
}

/// Smaller values: fewer keys and items, simpler leaves.
pub fn values(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    match v {
        Value::Object(m) => {
            for k in m.keys() {
                let mut c = m.clone();
                c.remove(k);
                out.push(Value::Object(c));
            }
            for (k, x) in m {
                for smaller in values(x) {
                    let mut c: Map<String, Value> = m.clone();
                    c.insert(k.clone(), smaller);
                    out.push(Value::Object(c));
                }
            }
        }
        Value::Array(xs) => {
            for i in 0..xs.len() {
                let mut c = xs.clone();
                c.remove(i);
                out.push(Value::Array(c));
            }
            for (i, x) in xs.iter().enumerate() {
                for smaller in values(x) {
                    let mut c = xs.clone();
                    c[i] = smaller;
                    out.push(Value::Array(c));
                }
            }
        }
        Value::String(s) if !s.is_empty() => out.push(Value::String(halve(s))),
        Value::Number(n) if n.as_i64() != Some(0) => out.push(Value::from(0)),
        Value::Bool(true) => out.push(Value::Bool(false)),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_shrink_toward_empty() {
        let v = json!({"a": [1, "xyz"], "b": true});
        let c = values(&v);
        assert!(c.contains(&json!({"b": true})));
        assert!(c.contains(&json!({"a": [1, "xyz"]})));
        assert!(c.contains(&json!({"a": ["xyz"], "b": true})));
        assert!(c.contains(&json!({"a": [1, "x"], "b": true})));
        assert!(c.iter().all(|x| x != &v));
        assert!(values(&json!(0)).is_empty());
    }

    #[test]
    fn relative_sizes_shrink_toward_the_cap() {
        let s = sizes(&Size::Relative { cap: 4.0, plus: 3 });
        assert!(s.contains(&Size::Relative { cap: 1.0, plus: 1 }));
        assert!(s.contains(&Size::Relative { cap: 2.0, plus: 3 }));
        assert!(sizes(&Size::Exact(0)).is_empty());
    }
}
