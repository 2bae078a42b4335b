//! Names, specifiers and places in an npm tree: what a dependency's
//! specifier asks for (a range or tag, an `npm:` alias; git, file and URL
//! specifiers are not installed), which names are safe folder names, and
//! the `node_modules/<name>` paths a pin may record.

/// A dependency specifier: the registry name and the range or tag.
pub(super) fn parse_spec(alias: &str, spec: &str) -> Option<(String, String)> {
    let spec = spec.trim();
    if let Some(aliased) = spec.strip_prefix("npm:") {
        // `npm:@scope/name@range`, `npm:name@range`, `npm:name`.
        let (name, range) = match aliased.strip_prefix('@') {
            Some(scoped) => match scoped.split_once('@') {
                Some((name, range)) => (format!("@{name}"), range.to_owned()),
                None => (aliased.to_owned(), "*".to_owned()),
            },
            None => match aliased.split_once('@') {
                Some((name, range)) => (name.to_owned(), range.to_owned()),
                None => (aliased.to_owned(), "*".to_owned()),
            },
        };
        return valid_name(&name).then_some((name, range));
    }
    let foreign = [
        "file:",
        "link:",
        "git",
        "http:",
        "https:",
        "github:",
        "workspace:",
        "portal:",
    ];
    if foreign.iter().any(|prefix| spec.starts_with(prefix)) || spec.contains('/') {
        return None;
    }
    Some((alias.to_owned(), spec.to_owned()))
}

/// An npm package name (`name` or `@scope/name`) safe as a folder name.
pub fn valid_name(name: &str) -> bool {
    let part = |part: &str| {
        !part.is_empty()
            && !part.starts_with('.')
            && part.len() <= 214
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~'))
    };
    match name.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .is_some_and(|(scope, rest)| part(scope) && part(rest)),
        None => part(name),
    }
}

/// The path of a child `alias` of a package at `parent`.
pub(super) fn child_path(parent: &str, alias: &str) -> String {
    if parent.is_empty() {
        format!("node_modules/{alias}")
    } else {
        format!("{parent}/node_modules/{alias}")
    }
}

/// Whether a pin's `path` is a well-formed place in a tree: one or more
/// `node_modules/<name>` steps.
pub fn valid_path(path: &str) -> bool {
    let mut rest = path;
    let mut steps = 0;
    while let Some(after) = rest.strip_prefix("node_modules/") {
        let (name, next) = match after.strip_prefix('@') {
            Some(_) => {
                let mut parts = after.splitn(3, '/');
                let scope = parts.next().unwrap_or_default();
                let name = parts.next().unwrap_or_default();
                let consumed = scope.len() + 1 + name.len();
                (
                    &after[..consumed.min(after.len())],
                    &after[consumed.min(after.len())..],
                )
            }
            None => match after.split_once('/') {
                Some((name, _)) => (name, &after[name.len()..]),
                None => (after, ""),
            },
        };
        if !valid_name(name) {
            return false;
        }
        steps += 1;
        if next.is_empty() {
            return steps > 0;
        }
        match next.strip_prefix('/') {
            Some(next) => rest = next,
            None => return false,
        }
    }
    false
}

/// The parent path of a pin path (`""` for a top-level package).
pub fn parent_path(path: &str) -> &str {
    match path.rfind("/node_modules/") {
        Some(index) => &path[..index],
        None => "",
    }
}
