//! Safe archive extraction into a staging folder (SPEC §4.3). Both the
//! streaming tar formats and zip go through one [`guard::Staging`], which
//! validates every entry name, refuses links that leave the archive root,
//! hard links, devices and FIFOs, creates files new (never following an
//! existing path), keeps only the executable bit, and bounds the total
//! unpacked size.

pub mod guard;
mod tar;
mod zip;

use std::path::PathBuf;

pub use self::tar::{extract_tar, Compression};
pub use self::zip::extract_zip;

#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error("archive entry `{entry}` is unsafe: {reason}")]
    Unsafe { entry: String, reason: String },
    #[error("archive expands past the size bound of {limit} bytes")]
    TooLarge { limit: u64 },
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
            ExtractError::Unsafe { .. } | ExtractError::TooLarge { .. }
        )
    }
}
