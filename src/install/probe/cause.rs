//! Why a probe failed, read from what the probed program printed: the
//! table of causes a person can act on (Node too old or missing, a platform
//! package missing, a dependency missing, a broken download), each with the
//! patterns that recognise it and the hint that says what to do. The table
//! is adapter-independent: these are the ways Node packages and native
//! binaries fail to start, whoever ships them.

use std::sync::LazyLock;

use regex::Regex;

/// A recognised reason for a failed probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeCause {
    /// The package needs a newer Node.js than the one that ran it (or no
    /// Node.js was found at all).
    NodeTooOld,
    /// The binary for this host, shipped in a per-platform package, is not
    /// there (a placeholder bin, or a `…-linux-x64` module missing).
    PlatformPackageMissing,
    /// A module the package imports is not installed beside it.
    DependencyMissing,
    /// The installed files are not what the package holds (truncated or
    /// replaced on the way).
    BadDownload,
}

/// Causes in the order they are tried: the more specific first (a missing
/// `…-linux-x64` module is a platform package, not any dependency).
const TABLE: &[(ProbeCause, &[&str])] = &[
    (
        ProbeCause::PlatformPackageMissing,
        &[
            // `Cannot find module '@openai/codex-linux-x64'`,
            // `Cannot find package 'opencode-linux-x64'`.
            r"(?i)cannot find (?:module|package) '[^']*[-/](?:linux|darwin|win32|freebsd)-(?:x64|arm64|arm|ia32)\b[^']*'",
            // The placeholder bins print the host they found no binary for.
            r"(?i)\bplatform: *[a-z0-9]+, *architecture: *[a-z0-9_]+",
            r"(?i)unsupported (?:platform|architecture)",
            r"(?i)exec format error",
            // A bin whose native binary was never placed.
            r"(?i)\bspawn(?:Sync)? \S+ ENOENT\b",
        ],
    ),
    (
        ProbeCause::DependencyMissing,
        &[
            // A bare name (`minimatch`, `@scope/pkg`), not a path: a
            // missing `./lib/x.js` is a broken package, not a dependency.
            r"(?i)cannot find (?:module|package) '[^'./][^']*'",
        ],
    ),
    (
        ProbeCause::NodeTooOld,
        &[
            r"\bSyntaxError\b",
            r"(?i)unsupported engine",
            r"(?i)\brequires? node(?:\.js)?\b",
            r"(?i)node(?:\.js)? (?:version )?v?\d+(?:\.\d+)* is not supported",
            r"(?i)env: '?node'?: no such file",
            r"\bERR_UNKNOWN_BUILTIN_MODULE\b",
        ],
    ),
    (
        ProbeCause::BadDownload,
        &[
            r"(?i)cannot execute binary file",
            r"(?i)bad interpreter",
            r"(?i)unexpected end of (?:file|input)",
            r"(?i)invalid or unexpected token",
        ],
    ),
];

static COMPILED: LazyLock<Vec<(ProbeCause, Vec<Regex>)>> = LazyLock::new(|| {
    TABLE
        .iter()
        .map(|(cause, patterns)| {
            let compiled = patterns
                .iter()
                // The table is ours and tested to compile: a pattern that
                // did not would only weaken the hints, never stop a probe.
                .filter_map(|pattern| Regex::new(pattern).ok())
                .collect();
            (*cause, compiled)
        })
        .collect()
});

/// The first cause whose patterns match `text` (what the probed program
/// printed), if any.
pub fn recognise(text: &str) -> Option<ProbeCause> {
    COMPILED
        .iter()
        .find(|(_, patterns)| patterns.iter().any(|pattern| pattern.is_match(text)))
        .map(|(cause, _)| *cause)
}

/// The cause a failed start's errno names, if any: the kernel refused to
/// execute the file (ENOEXEC), so it is not a program for this host.
pub fn from_start_errno(errno: i32) -> Option<ProbeCause> {
    (errno == libc::ENOEXEC).then_some(ProbeCause::PlatformPackageMissing)
}

impl ProbeCause {
    /// What a person can do about it.
    pub fn hint(self) -> &'static str {
        match self {
            ProbeCause::NodeTooOld => {
                "the package needs a newer Node.js than the one that ran it (or found none): install a Node.js that meets the package's `engines.node` (or let oneworks manage Node), then try again"
            }
            ProbeCause::PlatformPackageMissing => {
                "the binary for this platform is missing: it ships in a per-platform package (an `optionalDependencies` entry matching this host's os and cpu) that was not installed; check that the registry serves one for this host, then reinstall with `--force`"
            }
            ProbeCause::DependencyMissing => {
                "a package it imports is not installed beside it: its `dependencies` must be installed too; check that the registry serves them, then reinstall with `--force`"
            }
            ProbeCause::BadDownload => {
                "the installed files are not a working program: the mirror or registry may serve broken files; check the mirror, then reinstall with `--force`"
            }
        }
    }

    /// A short name for messages (`node too old`).
    pub fn label(self) -> &'static str {
        match self {
            ProbeCause::NodeTooOld => "Node.js missing or too old",
            ProbeCause::PlatformPackageMissing => "platform package missing",
            ProbeCause::DependencyMissing => "dependency missing",
            ProbeCause::BadDownload => "broken download",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        for (cause, patterns) in TABLE {
            for pattern in *patterns {
                assert!(Regex::new(pattern).is_ok(), "{cause:?}: {pattern}");
            }
        }
    }

    #[test]
    fn causes_are_told_apart() {
        let cases = [
            (
                "file:///x/cli.js:12\n  static #x = 1;\n  ^\n\nSyntaxError: Unexpected token '#'\n\nNode.js v16.20.2",
                Some(ProbeCause::NodeTooOld),
            ),
            (
                "npm WARN EBADENGINE Unsupported engine { required: { node: '>=22' } }",
                Some(ProbeCause::NodeTooOld),
            ),
            (
                "Qwen Code requires Node.js 22 or higher",
                Some(ProbeCause::NodeTooOld),
            ),
            (
                "/usr/bin/env: 'node': No such file or directory",
                Some(ProbeCause::NodeTooOld),
            ),
            (
                "Error: Cannot find module '@openai/codex-linux-x64'\nRequire stack:",
                Some(ProbeCause::PlatformPackageMissing),
            ),
            (
                "It seems your package manager failed to install the right version of the opencode CLI for your platform.\nPlatform: linux, Architecture: x64",
                Some(ProbeCause::PlatformPackageMissing),
            ),
            (
                "could not start: Exec format error (os error 8)",
                Some(ProbeCause::PlatformPackageMissing),
            ),
            (
                "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'minimatch' imported from /x/dist/index.js\n\nNode.js v24.19.0",
                Some(ProbeCause::DependencyMissing),
            ),
            (
                "Error: Cannot find module 'yargs'",
                Some(ProbeCause::DependencyMissing),
            ),
            (
                "bash: ./agent: cannot execute binary file",
                Some(ProbeCause::BadDownload),
            ),
            ("error: unrecognized subcommand 'acp'", None),
            ("Node.js v24.19.0", None),
        ];
        for (text, expected) in cases {
            assert_eq!(recognise(text), expected, "{text}");
        }
    }

    #[test]
    fn a_relative_require_is_not_a_missing_dependency() {
        // `./lib/x.js` missing is a broken package, not an uninstalled
        // dependency: no dependency hint for it.
        assert_eq!(
            recognise("Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/x/lib/y.js' imported from /x/cli.js"),
            None
        );
        assert_eq!(recognise("Error: Cannot find module './lib/x.js'"), None);
    }
}
