//! Why an archive was refused or could not be unpacked.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error(
        "archive entry `{}` is unsafe: {}",
        crate::output::sanitize::sanitize_line(.entry),
        crate::output::sanitize::sanitize_line(.reason)
    )]
    Unsafe { entry: String, reason: String },
    #[error("archive expands past the size bound of {limit} bytes")]
    TooLarge { limit: u64 },
    #[error("archive holds more than {limit} entries")]
    TooManyEntries { limit: usize },
    #[error("the archive is corrupt or not a {format} archive")]
    Corrupt {
        format: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("failed to write `{path}` while extracting")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ExtractError {
    pub fn is_unsafe(&self) -> bool {
        matches!(
            self,
            ExtractError::Unsafe { .. }
                | ExtractError::TooLarge { .. }
                | ExtractError::TooManyEntries { .. }
        )
    }
}
