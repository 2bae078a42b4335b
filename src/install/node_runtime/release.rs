//! Node's distribution layout as data: the release
//! list `index.json`, the choice of one release for an `engines.node`
//! range (the highest that fits, LTS preferred) and this host's line of
//! `v<X>/SHASUMS256.txt`. No I/O here.

use semver::Version;
use serde::Deserialize;

use crate::install::source::npm::node;

/// One entry of `index.json` (fields oneworks does not use are ignored).
#[derive(Debug, Clone, Deserialize)]
struct IndexEntry {
    version: String,
    /// `false`, or the LTS line's name (`"Jod"`).
    #[serde(default)]
    lts: serde_json::Value,
    /// The builds this release ships (`linux-x64`, `osx-arm64-tar`, …).
    #[serde(default)]
    files: Vec<String>,
}

/// A release of the index that has a build for this host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    pub version: Version,
    pub lts: bool,
}

impl Release {
    /// `node-v<X>-<platform>`: the tarball's name and its top folder.
    pub fn stem(&self, platform: &str) -> String {
        format!("node-v{}-{platform}", self.version)
    }

    /// The tarball, relative to the mirror: `v<X>/node-v<X>-<platform>.tar.xz`.
    pub fn tarball(&self, platform: &str) -> String {
        format!("v{}/{}.tar.xz", self.version, self.stem(platform))
    }

    /// The checksum list, relative to the mirror.
    pub fn shasums(&self) -> String {
        format!("v{}/SHASUMS256.txt", self.version)
    }
}

/// The releases of `index.json` that ship a `platform` build, newest
/// first. Entries whose version is not a version are skipped (a mirror may
/// list nightlies or oddities); a document that is not a list is an error.
pub fn releases(index: &[u8], platform: &str) -> Result<Vec<Release>, serde_json::Error> {
    let entries: Vec<serde_json::Value> = serde_json::from_slice(index)?;
    let mut releases: Vec<Release> = entries
        .into_iter()
        .filter_map(|entry| serde_json::from_value::<IndexEntry>(entry).ok())
        .filter(|entry| entry.files.iter().any(|file| file == platform))
        .filter_map(|entry| {
            let version = Version::parse(entry.version.strip_prefix('v')?).ok()?;
            // Nightlies and release candidates never run an agent.
            version.pre.is_empty().then_some(Release {
                version,
                lts: !matches!(
                    entry.lts,
                    serde_json::Value::Bool(false) | serde_json::Value::Null
                ),
            })
        })
        .collect();
    releases.sort_by(|a, b| b.version.cmp(&a.version));
    releases.dedup_by(|a, b| a.version == b.version);
    Ok(releases)
}

/// The release to install for `range` (any when `None`): the highest LTS
/// release that fits, else the highest release that fits.
pub fn choose<'a>(
    releases: &'a [Release],
    range: Option<&str>,
) -> Result<Option<&'a Release>, node::RangeError> {
    let fits = |release: &&Release| match range {
        Some(range) => node::satisfies(range, &release.version),
        None => Ok(true),
    };
    let mut fitting = Vec::new();
    for release in releases {
        if fits(&release)? {
            fitting.push(release);
        }
    }
    Ok(fitting
        .iter()
        .copied()
        .find(|release| release.lts)
        .or_else(|| fitting.first().copied()))
}

/// The sha256 `SHASUMS256.txt` lists for `file` (`<hex>  <file>` lines).
pub fn sha256_for(shasums: &str, file: &str) -> Option<String> {
    shasums.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        let digest = words.next()?;
        let name = words.next()?.trim_start_matches('*');
        (name == file
            && words.next().is_none()
            && digest.len() == 64
            && digest.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| digest.to_ascii_lowercase())
    })
}

/// Node's name for this host's build (`linux-x64`, `linux-arm64`), or
/// `None` where Node publishes no official build for it (musl, other
/// systems).
pub fn platform(os: &str, arch: &str, musl: bool) -> Option<String> {
    if os != "linux" || musl {
        return None;
    }
    let arch = match arch {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "powerpc64" => "ppc64le",
        "s390x" => "s390x",
        _ => return None,
    };
    Some(format!("linux-{arch}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = r#"[
      {"version":"v25.2.0","lts":false,"files":["linux-x64","osx-arm64-tar"]},
      {"version":"v24.19.0","lts":"Krypton","files":["linux-x64"]},
      {"version":"v24.20.0-rc.1","lts":false,"files":["linux-x64"]},
      {"version":"v22.21.1","lts":"Jod","files":["linux-x64","linux-arm64"]},
      {"version":"v20.19.5","lts":"Iron","files":["linux-arm64"]},
      {"version":"banana","files":["linux-x64"]},
      {"files":["linux-x64"]}
    ]"#;

    fn versions(releases: &[Release]) -> Vec<String> {
        releases
            .iter()
            .map(|release| release.version.to_string())
            .collect()
    }

    #[test]
    fn lists_this_hosts_releases_newest_first() {
        let listed = releases(INDEX.as_bytes(), "linux-x64").expect("index");
        assert_eq!(versions(&listed), ["25.2.0", "24.19.0", "22.21.1"]);
        assert!(!listed[0].lts);
        assert!(listed[1].lts);
        let arm = releases(INDEX.as_bytes(), "linux-arm64").expect("index");
        assert_eq!(versions(&arm), ["22.21.1", "20.19.5"]);
        assert!(releases(b"{\"not\":\"a list\"}", "linux-x64").is_err());
    }

    #[test]
    fn chooses_the_highest_fitting_lts_first() {
        let listed = releases(INDEX.as_bytes(), "linux-x64").expect("index");
        let chosen = |range: Option<&str>| {
            choose(&listed, range)
                .expect("range")
                .map(|release| release.version.to_string())
        };
        assert_eq!(chosen(Some(">=22")).as_deref(), Some("24.19.0"));
        assert_eq!(chosen(Some("^22")).as_deref(), Some("22.21.1"));
        // Only a current release fits: it is taken.
        assert_eq!(chosen(Some(">=25")).as_deref(), Some("25.2.0"));
        assert_eq!(chosen(None).as_deref(), Some("24.19.0"));
        assert_eq!(chosen(Some(">=26")), None);
        assert!(choose(&listed, Some(">=banana")).is_err());
    }

    #[test]
    fn reads_one_line_of_the_checksums() {
        let digest = "4fbe00a0f991ac77edbb0fd58a8e397c8c2b82f42ee8bb6e522deab58a7dddb7";
        let shasums = format!(
            "{}  node-v24.19.0-linux-arm64.tar.xz\n{}  node-v24.19.0-linux-x64.tar.xz\nnot a line\n",
            "0".repeat(64),
            digest.to_ascii_uppercase()
        );
        assert_eq!(
            sha256_for(&shasums, "node-v24.19.0-linux-x64.tar.xz").as_deref(),
            Some(digest)
        );
        assert_eq!(sha256_for(&shasums, "node-v24.19.0-linux-x64.tar.gz"), None);
        assert_eq!(sha256_for("abc  node.tar.xz\n", "node.tar.xz"), None);
    }

    #[test]
    fn names_the_official_builds() {
        assert_eq!(
            platform("linux", "x86_64", false).as_deref(),
            Some("linux-x64")
        );
        assert_eq!(
            platform("linux", "aarch64", false).as_deref(),
            Some("linux-arm64")
        );
        assert_eq!(platform("linux", "x86_64", true), None);
        assert_eq!(platform("macos", "aarch64", false), None);
    }
}
