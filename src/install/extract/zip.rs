//! Zip extraction from a spooled, already verified file: modes and symlink
//! flags live in the central directory, so a zip is never read as a stream.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use super::error::ExtractError;
use super::guard::{entry_path, Staging};

fn corrupt(source: impl Into<std::io::Error>) -> ExtractError {
    ExtractError::Corrupt {
        format: "zip",
        source: source.into(),
    }
}

/// Extracts every entry of the zip file `spool` into `staging`.
pub fn extract_zip(mut spool: File, staging: &mut Staging) -> Result<(), ExtractError> {
    // The zip crate keeps one entry per name, so duplicates are found by
    // walking the central directory here first.
    // Fail closed: a directory this walk cannot read is not trusted either.
    let names = central_directory_names(&mut spool)
        .ok()
        .flatten()
        .ok_or_else(|| corrupt(std::io::Error::other("unreadable central directory")))?;
    let mut seen = std::collections::HashSet::new();
    if let Some(duplicate) = names.iter().find(|name| !seen.insert(name.as_slice())) {
        return Err(ExtractError::Unsafe {
            entry: String::from_utf8_lossy(duplicate)
                .escape_debug()
                .to_string(),
            reason: "duplicate entry".to_owned(),
        });
    }
    let mut archive = ::zip::ZipArchive::new(spool).map_err(corrupt)?;
    if archive.len() != names.len() {
        return Err(corrupt(std::io::Error::other(format!(
            "the central directory lists {} entries, the zip reader {}",
            names.len(),
            archive.len()
        ))));
    }
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
    staging.finish()
}

const EOCD_SIGNATURE: [u8; 4] = [0x50, 0x4b, 0x05, 0x06];
const ZIP64_LOCATOR_SIGNATURE: [u8; 4] = [0x50, 0x4b, 0x06, 0x07];
const ZIP64_EOCD_SIGNATURE: [u8; 4] = [0x50, 0x4b, 0x06, 0x06];
const CENTRAL_SIGNATURE: [u8; 4] = [0x50, 0x4b, 0x01, 0x02];

fn le16(bytes: &[u8]) -> u64 {
    u64::from(u16::from_le_bytes([bytes[0], bytes[1]]))
}

fn le32(bytes: &[u8]) -> u64 {
    u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

fn le64(bytes: &[u8]) -> u64 {
    let mut array = [0u8; 8];
    array.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(array)
}

/// Where the central directory starts and how many records it announces
/// (zip64 aware); `None` when the end record cannot be found (the zip
/// crate then reports the archive as corrupt).
fn central_directory(file: &mut File) -> std::io::Result<Option<(u64, u64)>> {
    let length = file.seek(SeekFrom::End(0))?;
    // The end record is 22 bytes plus a comment of at most 65535 bytes.
    let window = length.min(22 + 65_535);
    file.seek(SeekFrom::Start(length - window))?;
    let mut tail = vec![0u8; window as usize];
    file.read_exact(&mut tail)?;
    let Some(position) = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&index| tail[index..index + 4] == EOCD_SIGNATURE)
    else {
        return Ok(None);
    };
    let total = le16(&tail[position + 10..]);
    let size = le32(&tail[position + 12..]);
    let offset = le32(&tail[position + 16..]);
    if total != 0xFFFF && offset != 0xFFFF_FFFF && size != 0xFFFF_FFFF {
        // The directory ends where the end record starts; counting back from
        // there also works for zips with bytes prepended (self-extractors).
        let end = length - window + position as u64;
        return Ok(end.checked_sub(size).map(|start| (start, total)));
    }
    // Zip64: the locator sits right before the end record.
    let Some(locator) = position.checked_sub(20) else {
        return Ok(None);
    };
    if tail[locator..locator + 4] != ZIP64_LOCATOR_SIGNATURE {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(le64(&tail[locator + 8..])))?;
    let mut record = [0u8; 56];
    file.read_exact(&mut record)?;
    if record[..4] != ZIP64_EOCD_SIGNATURE {
        return Ok(None);
    }
    Ok(Some((le64(&record[48..]), le64(&record[32..]))))
}

/// Every name in the central directory, in order, duplicates included.
fn central_directory_names(file: &mut File) -> std::io::Result<Option<Vec<Vec<u8>>>> {
    let Some((offset, total)) = central_directory(file)? else {
        return Ok(None);
    };
    file.seek(SeekFrom::Start(offset))?;
    let mut reader = std::io::BufReader::new(&mut *file);
    let mut names = Vec::new();
    for _ in 0..total.min(1 << 20) {
        let mut header = [0u8; 46];
        reader.read_exact(&mut header)?;
        if header[..4] != CENTRAL_SIGNATURE {
            return Ok(None);
        }
        let name_length = le16(&header[28..]) as usize;
        let skip = le16(&header[30..]) + le16(&header[32..]);
        let mut name = vec![0u8; name_length];
        reader.read_exact(&mut name)?;
        std::io::copy(&mut (&mut reader).take(skip), &mut std::io::sink())?;
        names.push(name);
    }
    Ok(Some(names))
}
