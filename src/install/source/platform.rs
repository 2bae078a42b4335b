//! Which artifact fits this host. Linux: the headless variant
//! for this architecture, gnu when the host glibc meets the floor in the
//! adapter data, else musl, in the data's archive-format preference order.
//! macOS (`dmg`) and Windows (`msi`) are selected the same way; installing
//! them is refused later with a clear message.

use std::fmt;

use super::manifest::ArtifactEntry;
use crate::adapter::data::PlatformData;
use crate::adapter::file_type::FileType;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct GlibcVersion(pub u32, pub u32);

impl GlibcVersion {
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        Some(Self(major, minor))
    }
}

impl fmt::Display for GlibcVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Libc {
    Gnu(GlibcVersion),
    Musl,
    /// Not Linux.
    None,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// `linux`, `macos` or `windows`, as the manifest spells it.
    pub os: String,
    /// `x86_64` or `aarch64`, as the manifest spells it.
    pub arch: String,
    pub libc: Libc,
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.libc {
            Libc::Gnu(version) => write!(f, "{}/{} (glibc {version})", self.os, self.arch),
            Libc::Musl => write!(f, "{}/{} (musl)", self.os, self.arch),
            Libc::None => write!(f, "{}/{}", self.os, self.arch),
        }
    }
}

impl Host {
    pub fn detect() -> Self {
        let os = std::env::consts::OS;
        let libc = if os == "linux" {
            detect_libc()
        } else {
            Libc::None
        };
        Self {
            os: os.to_owned(),
            arch: std::env::consts::ARCH.to_owned(),
            libc,
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn detect_libc() -> Libc {
    // SAFETY: gnu_get_libc_version returns a pointer to a static,
    // NUL-terminated string owned by glibc.
    let version = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
    version
        .to_str()
        .ok()
        .and_then(GlibcVersion::parse)
        .map_or(Libc::Musl, Libc::Gnu)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn detect_libc() -> Libc {
    // A non-glibc build of oneworks: ask the system's `ldd` what it is.
    let output = std::process::Command::new("ldd").arg("--version").output();
    let text = match output {
        Ok(output) => format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(_) => return Libc::Musl,
    };
    let first = text.lines().next().unwrap_or_default();
    if first.contains("GLIBC") || first.contains("GNU libc") {
        first
            .split_whitespace()
            .last()
            .and_then(GlibcVersion::parse)
            .map_or(Libc::Musl, Libc::Gnu)
    } else {
        Libc::Musl
    }
}

#[derive(Debug, thiserror::Error)]
#[error("no package for {host} in the manifest{}; it offers: {offered}", format_note(.formats))]
pub struct NoPackage {
    pub host: String,
    pub formats: Vec<FileType>,
    pub offered: String,
}

fn format_note(formats: &[FileType]) -> String {
    if formats.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = formats.iter().map(FileType::as_str).collect();
        format!(" in a supported format ({})", names.join(", "))
    }
}

fn triple_libc(entry: &ArtifactEntry) -> Option<&'static str> {
    if entry.target_triple.ends_with("-musl") || entry.target_triple.contains("-musl") {
        Some("musl")
    } else if entry.target_triple.contains("-gnu") {
        Some("gnu")
    } else {
        None
    }
}

/// Picks the artifact for `host` from `entries`. `formats` is the Linux
/// archive preference (fastest first).
pub fn select<'a>(
    entries: &'a [ArtifactEntry],
    host: &Host,
    platforms: &PlatformData,
    formats: &[FileType],
) -> Result<&'a ArtifactEntry, NoPackage> {
    let chosen = match host.os.as_str() {
        "linux" => select_linux(entries, host, platforms, formats),
        "macos" => {
            let fits = |arch: &str| {
                entries.iter().find(|entry| {
                    entry.os == "macos"
                        && entry.file_type == platforms.macos.file_type
                        && entry.architecture == arch
                })
            };
            fits(&host.arch).or_else(|| fits("universal"))
        }
        "windows" => entries.iter().find(|entry| {
            entry.os == "windows"
                && entry.file_type == platforms.windows.file_type
                && entry.architecture == host.arch
        }),
        _ => None,
    };
    chosen.ok_or_else(|| NoPackage {
        host: host.to_string(),
        formats: if host.os == "linux" {
            formats.to_vec()
        } else {
            Vec::new()
        },
        offered: if entries.is_empty() {
            "nothing".to_owned()
        } else {
            entries
                .iter()
                .map(ArtifactEntry::describe)
                .collect::<Vec<_>>()
                .join("; ")
        },
    })
}

fn select_linux<'a>(
    entries: &'a [ArtifactEntry],
    host: &Host,
    platforms: &PlatformData,
    formats: &[FileType],
) -> Option<&'a ArtifactEntry> {
    let floor = platforms
        .linux
        .glibc_floor
        .get(&host.arch)
        .and_then(|floor| GlibcVersion::parse(floor));
    // A gnu build needs a glibc at least the floor; musl builds run anywhere.
    let libcs: &[&str] = match (host.libc, floor) {
        (Libc::Gnu(version), Some(floor)) if version >= floor => &["gnu", "musl"],
        _ => &["musl"],
    };
    for libc in libcs {
        for format in formats {
            let found = entries.iter().find(|entry| {
                entry.os == "linux"
                    && entry.architecture == host.arch
                    && entry.variant.as_deref() == Some(platforms.linux.variant.as_str())
                    && &entry.file_type == format
                    && triple_libc(entry) == Some(libc)
            });
            if found.is_some() {
                return found;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::data::AdapterData;

    fn entry(
        os: &str,
        arch: &str,
        triple: &str,
        file_type: &str,
        variant: Option<&str>,
    ) -> ArtifactEntry {
        ArtifactEntry {
            target_triple: triple.to_owned(),
            os: os.to_owned(),
            file_type: FileType::parse(file_type),
            architecture: arch.to_owned(),
            variant: variant.map(str::to_owned),
            download: format!("2.15.1/{triple}.{file_type}"),
            sha256: "0".repeat(64),
            size: 1,
            cli_path: None,
        }
    }

    fn catalogue() -> Vec<ArtifactEntry> {
        let mut entries = Vec::new();
        for arch in ["x86_64", "aarch64"] {
            for libc in ["gnu", "musl"] {
                for file_type in ["tarGz", "tarXz", "tarZst", "zip"] {
                    for variant in ["headless", "full"] {
                        entries.push(entry(
                            "linux",
                            arch,
                            &format!("{arch}-unknown-linux-{libc}"),
                            file_type,
                            Some(variant),
                        ));
                    }
                }
            }
        }
        entries.push(entry(
            "macos",
            "universal",
            "universal-apple-darwin",
            "dmg",
            None,
        ));
        entries.push(entry(
            "windows",
            "x86_64",
            "x86_64-pc-windows-msvc",
            "msi",
            None,
        ));
        entries
    }

    fn host(os: &str, arch: &str, libc: Libc) -> Host {
        Host {
            os: os.to_owned(),
            arch: arch.to_owned(),
            libc,
        }
    }

    fn formats(list: &[&str]) -> Vec<FileType> {
        list.iter().map(|format| FileType::parse(format)).collect()
    }

    #[test]
    fn linux_gnu_above_floor_prefers_gnu_and_format_order() {
        let data = AdapterData::builtin().expect("data");
        let entries = catalogue();
        let chosen = select(
            &entries,
            &host("linux", "x86_64", Libc::Gnu(GlibcVersion(2, 36))),
            data.platforms.as_ref().expect("platforms"),
            &formats(&["tarZst", "tarGz"]),
        )
        .expect("found");
        assert_eq!(chosen.target_triple, "x86_64-unknown-linux-gnu");
        assert_eq!(chosen.file_type, FileType::TarZst);
        assert_eq!(chosen.variant.as_deref(), Some("headless"));
    }

    #[test]
    fn old_glibc_and_musl_hosts_get_musl() {
        let data = AdapterData::builtin().expect("data");
        let entries = catalogue();
        let old = host("linux", "x86_64", Libc::Gnu(GlibcVersion(2, 31)));
        let chosen = select(
            &entries,
            &old,
            data.platforms.as_ref().expect("platforms"),
            &formats(&["tarGz"]),
        )
        .expect("found");
        assert_eq!(chosen.target_triple, "x86_64-unknown-linux-musl");
        // aarch64's floor is higher: 2.36 is below it.
        let arm = host("linux", "aarch64", Libc::Gnu(GlibcVersion(2, 36)));
        let chosen = select(
            &entries,
            &arm,
            data.platforms.as_ref().expect("platforms"),
            &formats(&["tarGz"]),
        )
        .expect("found");
        assert_eq!(chosen.target_triple, "aarch64-unknown-linux-musl");
        let musl = host("linux", "aarch64", Libc::Musl);
        let chosen = select(
            &entries,
            &musl,
            data.platforms.as_ref().expect("platforms"),
            &formats(&["zip"]),
        )
        .expect("found");
        assert_eq!(
            (chosen.target_triple.as_str(), &chosen.file_type),
            ("aarch64-unknown-linux-musl", &FileType::Zip)
        );
    }

    #[test]
    fn macos_and_windows_selection() {
        let data = AdapterData::builtin().expect("data");
        let mut entries = catalogue();
        let mac = host("macos", "aarch64", Libc::None);
        let chosen = select(
            &entries,
            &mac,
            data.platforms.as_ref().expect("platforms"),
            &[],
        )
        .expect("universal dmg");
        assert_eq!(chosen.file_type, FileType::Dmg);
        entries.push(entry(
            "macos",
            "aarch64",
            "aarch64-apple-darwin",
            "dmg",
            None,
        ));
        let chosen = select(
            &entries,
            &mac,
            data.platforms.as_ref().expect("platforms"),
            &[],
        )
        .expect("native dmg");
        assert_eq!(chosen.architecture, "aarch64");
        let windows = host("windows", "x86_64", Libc::None);
        let chosen = select(
            &entries,
            &windows,
            data.platforms.as_ref().expect("platforms"),
            &[],
        )
        .expect("msi");
        assert_eq!(chosen.file_type, FileType::Msi);
        let arm_windows = host("windows", "aarch64", Libc::None);
        assert!(select(
            &entries,
            &arm_windows,
            data.platforms.as_ref().expect("platforms"),
            &[]
        )
        .is_err());
    }

    #[test]
    fn no_package_lists_the_offer() {
        let data = AdapterData::builtin().expect("data");
        let entries = vec![entry(
            "linux",
            "aarch64",
            "aarch64-unknown-linux-gnu",
            "tarGz",
            Some("headless"),
        )];
        let error = select(
            &entries,
            &host("linux", "x86_64", Libc::Gnu(GlibcVersion(2, 36))),
            data.platforms.as_ref().expect("platforms"),
            &formats(&["tarGz"]),
        )
        .unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("linux/aarch64/headless tarGz"),
            "{message}"
        );
        assert!(message.contains("x86_64"), "{message}");
    }
}
