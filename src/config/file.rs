//! Reading one config file: a regular file of at most 4 MiB —
//! never a FIFO to wait on, a device to drain or a dangling link taken for
//! "no config" — and making parser messages safe to print.

use std::path::Path;

use super::error::ConfigError;
use crate::adapter::data::CredentialRules;
use crate::fs_safety::{self, ReadRefusal};

/// The largest config file read.
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// The text of config file `path`: a regular file of at most 4 MiB (links
/// followed). `None` when it does not exist and is not `required`; a
/// dangling link, a folder, FIFO or device is an error, never "no config".
/// With the metadata of the file that was read (taken from the open file:
/// it describes the inode whose bytes these are).
pub(super) fn read_config_file_with_metadata(
    path: &Path,
    required: bool,
) -> Result<Option<(String, std::fs::Metadata)>, ConfigError> {
    match fs_err::symlink_metadata(path).map_err(crate::fs_error::os_cause) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return if required {
                Err(ConfigError::Missing {
                    path: path.to_owned(),
                })
            } else {
                Ok(None)
            };
        }
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_owned(),
                source,
            })
        }
        Ok(_) => {}
    }
    let (bytes, metadata) =
        fs_safety::read_regular_file_with_metadata(path, MAX_CONFIG_BYTES, true).map_err(
            |refusal| {
                let path = path.to_owned();
                match refusal {
                    ReadRefusal::Missing | ReadRefusal::Symlink => ConfigError::Dangling { path },
                    ReadRefusal::NotRegular(found) => ConfigError::NotRegular { path, found },
                    ReadRefusal::TooLarge => ConfigError::TooLarge {
                        path,
                        limit: MAX_CONFIG_BYTES,
                    },
                    ReadRefusal::Io(source) => ConfigError::Read { path, source },
                }
            },
        )?;
    String::from_utf8(bytes)
        .map(|text| Some((text, metadata)))
        .map_err(|_| ConfigError::ParseNoPosition {
            path: path.to_owned(),
            message: "the file is not UTF-8 text".to_owned(),
        })
}

/// The real path (links resolved) of `path`, if it still names the inode
/// `read` describes: a link swapped after the read gives `None`, so what is
/// judged is always the file whose bytes were parsed.
pub(super) fn real_path_of(path: &Path, read: &std::fs::Metadata) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let real = fs_err::canonicalize(path).ok()?;
    let found = fs_err::symlink_metadata(&real).ok()?;
    (found.dev() == read.dev() && found.ino() == read.ino()).then_some(real)
}

/// `message` made safe to print: credential-shaped text masked (parser
/// messages quote the offending value, and a key pasted into the wrong
/// field must not be echoed) and control characters shown escaped (a
/// key holding `ESC[2J` must not clear the terminal).
pub(super) fn mask_credentials(message: &str, rules: &CredentialRules) -> String {
    let mut out = message.to_owned();
    for pattern in &rules.value_patterns {
        out = pattern.0.replace_all(&out, "***").into_owned();
    }
    if out.chars().any(char::is_control) {
        out = out
            .chars()
            .map(|character| {
                if character.is_control() {
                    format!("\\u{{{:x}}}", u32::from(character))
                } else {
                    character.to_string()
                }
            })
            .collect();
    }
    out
}

/// `error` with credential-shaped text masked in the key path and message
/// it prints: a key pasted where a name belongs is refused, not echoed.
pub(super) fn mask_error(error: ConfigError, rules: &CredentialRules) -> ConfigError {
    match error {
        ConfigError::Invalid { key, message } => ConfigError::Invalid {
            key: mask_credentials(&key, rules),
            message: mask_credentials(&message, rules),
        },
        ConfigError::Credential { key, reason } => ConfigError::Credential {
            key: mask_credentials(&key, rules),
            reason: mask_credentials(&reason, rules),
        },
        other => other,
    }
}

/// The line and column (1-based) of byte `offset` in `text`.
pub(super) fn position_of(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.chars().count(), |newline| {
            before[newline + 1..].chars().count()
        })
        + 1;
    (line, column)
}
