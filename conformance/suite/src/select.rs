//! Choosing cases by id: `--run` and `--skip` globs.
//!
//! `*` matches any run of characters (including `/`), `?` one character; a pattern without
//! wildcards matches an id exactly or an id under it as a prefix folder (`cap` selects
//! `cap/...`). Several patterns may be given, comma-separated or repeated.

/// Whether `id` is selected by `run` (empty = all) and not excluded by `skip`.
pub fn selected(id: &str, run: &[String], skip: &[String]) -> bool {
    let in_run = run.is_empty() || run.iter().any(|p| matches(p, id));
    in_run && !skip.iter().any(|p| matches(p, id))
}

/// Splits repeated and comma-separated pattern arguments.
pub fn patterns(args: &[String]) -> Vec<String> {
    args.iter()
        .flat_map(|a| a.split(','))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether `pattern` matches `id`.
pub fn matches(pattern: &str, id: &str) -> bool {
    if !pattern.contains(['*', '?']) {
        return id == pattern
            || id
                .strip_prefix(pattern.trim_end_matches('/'))
                .is_some_and(|rest| rest.starts_with('/'));
    }
    glob(pattern.as_bytes(), id.as_bytes())
}

fn glob(p: &[u8], s: &[u8]) -> bool {
    // Iterative wildcard matching with one backtrack point (linear in practice).
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, si));
            pi += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_prefixes_and_exact_ids() {
        assert!(matches("cap/*", "cap/head-kept"));
        assert!(matches("*head*", "cap/head-kept"));
        assert!(matches("cap", "cap/head-kept"));
        assert!(!matches("ca", "cap/head-kept"));
        assert!(matches("cap/head-kep?", "cap/head-kept"));
        assert!(!matches("val*/x", "cap/x"));
        assert!(matches("validation/x", "validation/x"));
    }

    #[test]
    fn run_and_skip_combine() {
        let run = patterns(&["cap/*,validation".into()]);
        let skip = patterns(&["*bytes*".into()]);
        assert!(selected("cap/a", &run, &skip));
        assert!(!selected("cap/bytes-a", &run, &skip));
        assert!(selected("validation/b", &run, &skip));
        assert!(!selected("ids/c", &run, &skip));
        assert!(selected("ids/c", &[], &[]));
    }
}
