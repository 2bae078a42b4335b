//! How the installer unpacks a manifest `fileType`. The plain
//! type lives with the vendor data (`adapter::file_type`); what the
//! installer can do with it lives here.

use crate::adapter::file_type::FileType;

use super::Compression;

/// How an installable archive is unpacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unpack {
    /// Streamed: network → hash → decompress → extract, in one pass.
    Tar(Compression),
    /// Spooled to disk while hashing, extracted from the central directory.
    Zip,
}

/// What the installer can do with a [`FileType`].
pub trait Installable {
    /// How to unpack it, or `None` when oneworks cannot install it here.
    fn unpack(&self) -> Option<Unpack>;

    /// Whether oneworks can install it (and so whether `<adapter>.lock` pins it).
    fn is_installable(&self) -> bool {
        self.unpack().is_some()
    }
}

impl Installable for FileType {
    fn unpack(&self) -> Option<Unpack> {
        match self {
            FileType::TarGz => Some(Unpack::Tar(Compression::Gzip)),
            FileType::TarXz => Some(Unpack::Tar(Compression::Xz)),
            FileType::TarZst => Some(Unpack::Tar(Compression::Zstd)),
            FileType::Zip => Some(Unpack::Zip),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_four_archives_are_installable() {
        let installable: Vec<_> = ["tarGz", "tarXz", "tarZst", "zip", "dmg", "msi", "deb", "x"]
            .into_iter()
            .filter(|text| FileType::parse(text).is_installable())
            .collect();
        assert_eq!(installable, ["tarGz", "tarXz", "tarZst", "zip"]);
        assert_eq!(
            FileType::TarZst.unpack(),
            Some(Unpack::Tar(Compression::Zstd))
        );
        assert_eq!(FileType::Zip.unpack(), Some(Unpack::Zip));
    }
}
