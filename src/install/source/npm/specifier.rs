//! Names, specifiers and places in an npm tree: what a dependency's
//! specifier asks for (a range or tag, an `npm:` alias; git, file and URL
//! specifiers are not installed), which names are safe folder names, and
//! the `node_modules/<name>` paths a pin may record.

/// What a dependency's specifier asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Spec {
    /// A registry package: its name and the range or tag.
    Registry { name: String, range: String },
    /// A git, file, link or URL specifier: not installed.
    Foreign,
    /// The dependency's name (or the one its `npm:` alias names) is not
    /// an npm package name: nothing may be asked for it.
    BadName(String),
}

/// A dependency specifier: the registry name and the range or tag. Both
/// names (the one it is required as and the one an `npm:` alias names) are
/// checked before anything can turn them into a URL or a folder.
pub(super) fn parse_spec(alias: &str, spec: &str) -> Spec {
    if !valid_name(alias) {
        return Spec::BadName(alias.to_owned());
    }
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
        if !valid_name(&name) {
            return Spec::BadName(name);
        }
        return Spec::Registry { name, range };
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
        return Spec::Foreign;
    }
    Spec::Registry {
        name: alias.to_owned(),
        range: spec.to_owned(),
    }
}

/// The longest npm package name.
const MAX_NAME: usize = 214;

/// An npm package name (`name` or `@scope/name`): lowercase
/// URL-safe characters, one optional scope, no `..` — safe as a URL path
/// segment (no `\`, `%`, `/` beyond the scope's, control characters) and
/// as a folder name.
pub fn valid_name(name: &str) -> bool {
    let part = |part: &str| {
        !part.is_empty()
            && !part.starts_with('.')
            && !part.contains("..")
            && part.chars().all(|c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.' | '~')
            })
    };
    if name.len() > MAX_NAME {
        return false;
    }
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
