//! Safe archive extraction into a staging folder. Both the
//! streaming tar formats and zip go through one [`guard::Staging`], which
//! validates every entry name, refuses links that leave the archive root,
//! hard links, devices and FIFOs, creates files new (never following an
//! existing path), keeps only the executable bit, and bounds the total
//! unpacked size.
//!
//! How each manifest `fileType` is unpacked (streamed tar or spooled zip)
//! is [`mod@format`].

mod error;
pub mod format;
pub mod guard;
mod tar;
mod zip;

pub use self::error::ExtractError;
pub use self::tar::{extract_tar, Compression};
pub use self::zip::extract_zip;
