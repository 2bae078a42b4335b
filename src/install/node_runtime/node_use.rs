//! Which managed Node.js an agent runs on, as its install record and its
//! `<adapter>.lock` keep it (plain data: the store and the pin read it).

use serde::{Deserialize, Serialize};

/// A managed Node.js release, by version and the digest of its tarball.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeUse {
    /// `X.Y.Z`, without the `v`.
    pub version: String,
    /// The sha256 of the `node-vX-linux-<arch>.tar.xz` that was verified.
    pub sha256: String,
}
