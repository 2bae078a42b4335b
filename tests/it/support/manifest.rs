//! Kiro's stable-channel manifest, built from artifacts the
//! test generated: digests and sizes are computed, never typed in.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::archive::Format;

pub const ARCH: &str = std::env::consts::ARCH;

/// Which C library a Linux build targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Libc {
    Gnu,
    Musl,
}

impl Libc {
    pub fn triple(self) -> String {
        match self {
            Libc::Gnu => format!("{ARCH}-unknown-linux-gnu"),
            Libc::Musl => format!("{ARCH}-unknown-linux-musl"),
        }
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The manifest's `download` path of one artifact, relative to the
/// download base (`<server>/stable/`).
pub fn download_path(version: &str, format: Format, libc: Libc) -> String {
    let flavour = match libc {
        Libc::Gnu => "",
        Libc::Musl => "-musl",
    };
    format!(
        "{version}/kirocli-{ARCH}-linux{flavour}.{}",
        format.extension()
    )
}

/// One `packages[]` entry describing `bytes`.
pub fn entry(version: &str, format: Format, libc: Libc, bytes: &[u8]) -> Value {
    json!({
        "kind": "deb",
        "targetTriple": libc.triple(),
        "os": "linux",
        "fileType": format.file_type(),
        "architecture": ARCH,
        "variant": "headless",
        "download": download_path(version, format, libc),
        "sha256": sha256_hex(bytes),
        "size": bytes.len(),
        "channel": "stable",
    })
}

/// `{"version": V, "packages": [...]}` as bytes.
pub fn document(version: &str, packages: &[Value]) -> Vec<u8> {
    serde_json::to_vec_pretty(&json!({ "version": version, "packages": packages }))
        .expect("manifest json")
}

/// Entries a real manifest also carries and the installer must skip: other
/// systems, the full (desktop) variant, and package formats it does not
/// install.
pub fn foreign_entries(version: &str) -> Vec<Value> {
    let other_arch = if ARCH == "x86_64" {
        "aarch64"
    } else {
        "x86_64"
    };
    vec![
        json!({
            "kind": "deb", "targetTriple": format!("{other_arch}-unknown-linux-gnu"),
            "os": "linux", "fileType": "tarGz", "architecture": other_arch,
            "variant": "headless",
            "download": format!("{version}/kirocli-{other_arch}-linux.tar.gz"),
            "sha256": "ab".repeat(32), "size": 1000, "channel": "stable"
        }),
        json!({
            "kind": "deb", "targetTriple": format!("{ARCH}-unknown-linux-gnu"),
            "os": "linux", "fileType": "tarGz", "architecture": ARCH,
            "variant": "full",
            "download": format!("{version}/kiro-desktop-{ARCH}-linux.tar.gz"),
            "sha256": "cd".repeat(32), "size": 1000, "channel": "stable"
        }),
        json!({
            "kind": "deb", "targetTriple": format!("{ARCH}-unknown-linux-gnu"),
            "os": "linux", "fileType": "deb", "architecture": ARCH,
            "variant": "headless",
            "download": format!("{version}/kirocli-{ARCH}-linux.deb"),
            "sha256": "ef".repeat(32), "size": 1000, "channel": "stable"
        }),
        json!({
            "kind": "dmg", "targetTriple": "universal-apple-darwin",
            "os": "macos", "fileType": "dmg", "architecture": "universal",
            "variant": "full", "download": format!("{version}/Kiro CLI.dmg"),
            "cliPath": "Contents/MacOS/kiro-cli",
            "sha256": "01".repeat(32), "size": 1000, "channel": "stable"
        }),
    ]
}

/// A copy of `entry` with one field replaced (or removed when `value` is
/// `None`): wrong digests, malformed fields, missing fields.
pub fn with_field(entry: &Value, field: &str, value: Option<Value>) -> Value {
    let mut changed = entry.clone();
    let object = changed.as_object_mut().expect("entry is an object");
    match value {
        Some(value) => {
            object.insert(field.to_owned(), value);
        }
        None => {
            object.remove(field);
        }
    }
    changed
}
