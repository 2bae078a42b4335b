//! What an npm tarball may unpack to before its integrity is checked
//!: `dist.unpackedSize` × the adapter's `maxExpansion` where
//! the document gives the size, else a fixed bound that holds the largest
//! real agent — also when the response has no `Content-Length`. (The
//! number of entries is bounded by the extraction itself.)

use crate::install::Installer;

/// What one tarball may unpack to when its document gives no
/// `dist.unpackedSize` (mirrors omit it): the largest real agent package,
/// `@openai/codex`'s linux-x64 build (0.166.0), unpacks to 456 MB and
/// opencode's binary to 185 MB; 1 GiB holds twice the largest.
const UNPACKED_LIMIT: u64 = 1024 * 1024 * 1024;
/// Whatever a document declares, no tarball unpacks to more than this
/// before its integrity is checked.
const UNPACKED_CEILING: u64 = 8 * 1024 * 1024 * 1024;

impl Installer<'_> {
    /// What a tarball whose document declares `unpacked_size` may unpack
    /// to before its integrity is checked, with the adapter's
    /// `maxExpansion`.
    pub(super) fn unpacked_limit(&self, unpacked_size: Option<u64>) -> u64 {
        let expansion = self.data.npm.as_ref().map_or(1, |npm| npm.max_expansion);
        unpacked_limit(unpacked_size, expansion)
    }
}

/// Its declared `unpacked_size` times `expansion`, else the fixed bound;
/// never more than the ceiling, never less than 1 MiB (a document that
/// says 0).
fn unpacked_limit(unpacked_size: Option<u64>, expansion: u64) -> u64 {
    unpacked_size
        .map_or(UNPACKED_LIMIT, |size| size.saturating_mul(expansion))
        .clamp(1 << 20, UNPACKED_CEILING)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extraction_before_verification_is_bounded() {
        const MIB: u64 = 1024 * 1024;
        // No `dist.unpackedSize`: the fixed bound, which holds the largest
        // real agent package (456 MB).
        assert_eq!(unpacked_limit(None, 2), UNPACKED_LIMIT);
        const { assert!(UNPACKED_LIMIT > 456_152_362) };
        assert_eq!(unpacked_limit(Some(300 * MIB), 2), 600 * MIB);
        assert_eq!(unpacked_limit(Some(0), 2), MIB);
        assert_eq!(unpacked_limit(Some(u64::MAX), 2), UNPACKED_CEILING);
    }
}
