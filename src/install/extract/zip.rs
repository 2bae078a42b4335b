//! Zip extraction from a spooled, already verified file: modes and symlink
//! flags live in the central directory, so a zip is never read as a stream.

use std::fs::File;
use std::io::Read;

use super::guard::{entry_path, Staging};
use super::ExtractError;

fn corrupt(source: impl Into<std::io::Error>) -> ExtractError {
    ExtractError::Corrupt {
        format: "zip",
        source: source.into(),
    }
}

/// Extracts every entry of the zip file `spool` into `staging`.
pub fn extract_zip(spool: File, staging: &mut Staging) -> Result<(), ExtractError> {
    let mut archive = ::zip::ZipArchive::new(spool).map_err(corrupt)?;
    for index in 0..archive.len() {
        let mut file = archive.by_index(index).map_err(corrupt)?;
        let path = entry_path(file.name_raw())?;
        if file.is_symlink() {
            let mut target = Vec::new();
            (&mut file)
                .take(4096)
                .read_to_end(&mut target)
                .map_err(corrupt)?;
            staging.symlink(&path, &target)?;
        } else if file.is_dir() {
            staging.directory(&path)?;
        } else {
            let mode = file.unix_mode().unwrap_or(0o644);
            let file_type = mode & 0o170000;
            if file_type != 0 && file_type != 0o100000 {
                return Err(ExtractError::Unsafe {
                    entry: path.display().to_string(),
                    reason: format!("special file (mode {mode:o}) is not allowed"),
                });
            }
            staging.file(&path, mode & 0o111 != 0, &mut file)?;
        }
    }
    Ok(())
}
