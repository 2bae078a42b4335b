//! A managed source verified by reviewed pins: a vendor that
//! publishes archives by version but no checksum at all. The adapter's
//! data names where a version's archive lies and, per version and
//! platform, the sha256 someone read from a packager they trust (with
//! where it was read); a version without a pin is never downloaded.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::file_type::FileType;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PinnedData {
    /// The download base (`ONEWORKS_<ADAPTER>_DOWNLOAD_BASE` replaces it).
    pub base: String,
    /// A version's archive below the base: `{version}` (written with
    /// `versionDigits`), `{os}` and `{arch}` (the vendor's spelling, below).
    pub download: String,
    /// The archive's format (one of the installer's tar formats).
    pub file_type: FileType,
    /// The vendor's spelling of the host's OS (`linux` → `linux`,
    /// `macos` → `darwin`); a host not listed has no download.
    pub os: BTreeMap<String, String>,
    /// The vendor's spelling of the host's architecture (`x86_64` → `x64`).
    pub arch: BTreeMap<String, String>,
    /// The least number of digits of the major, minor and patch numbers
    /// where a version is written (`[4, 2, 2]`: `2026.06.26-7079533`, a
    /// date with its leading zeros); oneworks orders versions by their
    /// numbers, so `06` and `6` are one version.
    #[serde(default)]
    pub version_digits: Vec<usize>,
    /// The largest archive accepted: no pin records a size, so the
    /// download is bounded by this before its sha256 is checked.
    pub max_bytes: u64,
    /// The reviewed pins, newest first or in any order: `latest` is the
    /// newest pinned version that has a pin for this host.
    #[serde(default)]
    pub pins: Vec<VersionPin>,
}

/// One reviewed version: its sha256 per `<os>/<arch>` (the vendor's
/// spelling) and where the digests were read.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VersionPin {
    pub version: String,
    /// Where the digests were read (a packager's file and revision).
    pub source: String,
    pub sha256: BTreeMap<String, String>,
}

impl PinnedData {
    /// `version` as the vendor writes it: each of the first numbers padded
    /// with zeros to its `versionDigits`.
    pub fn write_version(&self, version: &semver::Version) -> String {
        let digits = |index: usize| self.version_digits.get(index).copied().unwrap_or(1);
        let mut text = format!(
            "{:0a$}.{:0b$}.{:0c$}",
            version.major,
            version.minor,
            version.patch,
            a = digits(0),
            b = digits(1),
            c = digits(2),
        );
        if !version.pre.is_empty() {
            text.push('-');
            text.push_str(version.pre.as_str());
        }
        text
    }

    /// The archive of `version` for the vendor's `os`/`arch`, below the base.
    pub fn download_path(&self, version: &semver::Version, os: &str, arch: &str) -> String {
        self.download
            .replace("{version}", &self.write_version(version))
            .replace("{os}", os)
            .replace("{arch}", arch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> PinnedData {
        serde_yaml_ng::from_str(
            "base: https://example.invalid/lab/\n\
             download: \"{version}/{os}/{arch}/pkg.tar.gz\"\n\
             fileType: tarGz\n\
             os: {linux: linux}\n\
             arch: {x86_64: x64}\n\
             versionDigits: [4, 2, 2]\n\
             maxBytes: 1000\n",
        )
        .expect("pinned data")
    }

    #[test]
    fn a_dated_version_is_written_with_its_leading_zeros() {
        let version = semver::Version::parse("2026.6.2-7079533").expect("version");
        assert_eq!(data().write_version(&version), "2026.06.02-7079533");
        assert_eq!(
            data().download_path(&version, "linux", "x64"),
            "2026.06.02-7079533/linux/x64/pkg.tar.gz"
        );
    }
}
