//! Which platform packages fit this host, as npm judges a version's `os`,
//! `cpu` and `libc` fields: each is a list of allowed values
//! (`!value` excludes one); a field that is absent allows everything; `libc`
//! is judged on Linux only, against the host's C library (glibc or musl).

use crate::install::source::platform::{Host, Libc};

/// The host as npm spells it (`process.platform`, `process.arch`, the C
/// library as `detect-libc` names it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpmHost {
    pub os: String,
    pub cpu: String,
    /// `glibc` or `musl` on Linux; `None` elsewhere.
    pub libc: Option<String>,
    /// The CPU features a package may need that this CPU lacks (`avx2`).
    pub lacks: Vec<String>,
}

impl NpmHost {
    pub fn of(host: &Host) -> Self {
        let os = match host.os.as_str() {
            "macos" => "darwin",
            "windows" => "win32",
            other => other,
        };
        let cpu = match host.arch.as_str() {
            "x86_64" => "x64",
            "aarch64" => "arm64",
            "x86" => "ia32",
            other => other,
        };
        let libc = match host.libc {
            Libc::Gnu(_) => Some("glibc".to_owned()),
            Libc::Musl => Some("musl".to_owned()),
            Libc::None => None,
        };
        Self {
            os: os.to_owned(),
            cpu: cpu.to_owned(),
            libc,
            lacks: cpu_lacks(),
        }
    }

    /// Whether a package declaring these fields may be installed here.
    pub fn fits(&self, os: &[String], cpu: &[String], libc: &[String]) -> bool {
        allowed(os, Some(&self.os))
            && allowed(cpu, Some(&self.cpu))
            && (self.os != "linux" || allowed(libc, self.libc.as_deref()))
    }

    /// `{os}`, `{cpu}` and `{libc}` of a data template replaced by this
    /// host's values.
    pub fn expand(&self, template: &str) -> String {
        template
            .replace("{os}", &self.os)
            .replace("{cpu}", &self.cpu)
            .replace("{libc}", self.libc.as_deref().unwrap_or("none"))
    }
}

/// The features packages are built for that this CPU lacks: AVX2 on
/// x86-64 (opencode's `-baseline` builds are for CPUs without it).
fn cpu_lacks() -> Vec<String> {
    #[cfg(target_arch = "x86_64")]
    if !std::arch::is_x86_feature_detected!("avx2") {
        return vec!["avx2".to_owned()];
    }
    Vec::new()
}

impl std::fmt::Display for NpmHost {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.libc {
            Some(libc) => write!(formatter, "{}/{} ({libc})", self.os, self.cpu),
            None => write!(formatter, "{}/{}", self.os, self.cpu),
        }
    }
}

/// npm's `checkList`: an excluded value refuses, and a list with any
/// allowed values must name this one. An unknown host value fits only a
/// list that allows everything.
fn allowed(list: &[String], value: Option<&str>) -> bool {
    if list.is_empty() {
        return true;
    }
    let Some(value) = value else {
        return false;
    };
    let mut positive = false;
    let mut matched = false;
    for item in list {
        match item.strip_prefix('!') {
            Some(excluded) if excluded == value => return false,
            Some(_) => {}
            None => {
                positive = true;
                matched |= item == value || item == "any";
            }
        }
    }
    !positive || matched
}

/// The platform a package declares, for messages (`linux/x64 (musl)`).
pub fn describe(os: &[String], cpu: &[String], libc: &[String]) -> String {
    let join = |list: &[String]| {
        if list.is_empty() {
            "any".to_owned()
        } else {
            list.join("|")
        }
    };
    let mut text = format!("{}/{}", join(os), join(cpu));
    if !libc.is_empty() {
        text.push_str(&format!(" ({})", join(libc)));
    }
    crate::output::sanitize::sanitize_line(&text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::source::platform::GlibcVersion;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| (*item).to_owned()).collect()
    }

    #[test]
    fn os_cpu_and_libc_decide_as_npm_does() {
        let glibc = NpmHost::of(&Host {
            os: "linux".to_owned(),
            arch: "x86_64".to_owned(),
            libc: Libc::Gnu(GlibcVersion(2, 36)),
        });
        assert_eq!(glibc.to_string(), "linux/x64 (glibc)");
        let linux = strings(&["linux"]);
        let x64 = strings(&["x64"]);
        assert!(glibc.fits(&linux, &x64, &[]));
        assert!(glibc.fits(&linux, &x64, &strings(&["glibc"])));
        assert!(!glibc.fits(&linux, &x64, &strings(&["musl"])));
        assert!(!glibc.fits(&linux, &strings(&["arm64"]), &[]));
        assert!(!glibc.fits(&strings(&["darwin"]), &x64, &[]));
        assert!(glibc.fits(&strings(&["!win32"]), &[], &[]));
        assert!(!glibc.fits(&strings(&["!linux"]), &[], &[]));
        let musl = NpmHost {
            libc: Some("musl".to_owned()),
            ..glibc.clone()
        };
        assert!(musl.fits(&linux, &x64, &strings(&["musl"])));
        assert!(!musl.fits(&linux, &x64, &strings(&["glibc"])));
        let mac = NpmHost::of(&Host {
            os: "macos".to_owned(),
            arch: "aarch64".to_owned(),
            libc: Libc::None,
        });
        // libc is a Linux matter.
        assert!(mac.fits(
            &strings(&["darwin"]),
            &strings(&["arm64"]),
            &strings(&["glibc"])
        ));
        assert_eq!(glibc.expand("p-{os}-{cpu}-{libc}"), "p-linux-x64-glibc");
    }
}
