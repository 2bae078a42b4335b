//! Streaming extraction of `tarGz`, `tarXz` and `tarZst` artifacts: the
//! decompressor reads straight from the (hashing) network stream.

use std::io::Read;

use super::error::ExtractError;
use super::guard::{entry_path, Staging};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Xz,
    Zstd,
}

impl Compression {
    fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "tar.gz",
            Compression::Xz => "tar.xz",
            Compression::Zstd => "tar.zst",
        }
    }
}

fn corrupt(compression: Compression) -> impl Fn(std::io::Error) -> ExtractError {
    move |source| ExtractError::Corrupt {
        format: compression.name(),
        source,
    }
}

/// Extracts a compressed tar stream into `staging`.
pub fn extract_tar(
    reader: impl Read,
    compression: Compression,
    staging: &mut Staging,
) -> Result<(), ExtractError> {
    let decoder: Box<dyn Read> = match compression {
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(
            std::io::BufReader::with_capacity(256 * 1024, reader),
        )),
        Compression::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(reader)),
        Compression::Zstd => {
            Box::new(zstd::stream::read::Decoder::new(reader).map_err(corrupt(compression))?)
        }
    };
    let mut archive = ::tar::Archive::new(decoder);
    let entries = archive.entries().map_err(corrupt(compression))?;
    for entry in entries {
        let mut entry = entry.map_err(corrupt(compression))?;
        let entry_type = entry.header().entry_type();
        if entry_type.is_pax_global_extensions() {
            // Skipped, but still counted: an endless run of them is work.
            staging.count_entry()?;
            continue;
        }
        let path = entry_path(&entry.path_bytes())?;
        let shown = path.display().to_string();
        let refuse = |reason: &str| ExtractError::Unsafe {
            entry: shown.clone(),
            reason: reason.to_owned(),
        };
        match entry_type {
            ::tar::EntryType::Regular | ::tar::EntryType::Continuous => {
                let mode = entry.header().mode().map_err(corrupt(compression))?;
                staging.file(&path, mode & 0o111 != 0, &mut entry)?;
            }
            ::tar::EntryType::Directory => staging.directory(&path)?,
            ::tar::EntryType::Symlink => {
                let target = entry
                    .link_name_bytes()
                    .ok_or_else(|| refuse("symlink without a target"))?
                    .into_owned();
                staging.symlink(&path, &target)?;
            }
            ::tar::EntryType::Link => return Err(refuse("hard links are not allowed")),
            ::tar::EntryType::Char | ::tar::EntryType::Block => {
                return Err(refuse("device entries are not allowed"))
            }
            ::tar::EntryType::Fifo => return Err(refuse("FIFO entries are not allowed")),
            other => {
                // The type letter as tar defines it, never the enum's name.
                let byte = other.as_byte();
                let shown = if byte.is_ascii_graphic() {
                    format!("`{}`", char::from(byte))
                } else {
                    format!("byte {byte}")
                };
                return Err(refuse(&format!("unsupported entry type {shown}")));
            }
        }
    }
    staging.finish()
}
