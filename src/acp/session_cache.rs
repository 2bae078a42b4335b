//! The agent's native `sessionId`, cached per oneworks session (in the session
//! folder) so `--resume` can `session/load` it. The cached value passes the
//! scrubber like every file oneworks writes; a symlink in its place is
//! neither read nor followed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::redact::Scrubber;

const FILE: &str = "acp-session.json";

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cached {
    session_id: String,
    saved_at: String,
}

pub struct SessionCache {
    path: PathBuf,
}

impl SessionCache {
    /// The cache of the session whose folder is `root`.
    pub fn new(root: &Path) -> Self {
        Self {
            path: root.join(FILE),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The cached id, if there is a readable one.
    pub fn load(&self) -> Option<String> {
        let metadata = fs_err::symlink_metadata(&self.path).ok()?;
        if !metadata.file_type().is_file() {
            return None;
        }
        let text = fs_err::read_to_string(&self.path).ok()?;
        let cached: Cached = serde_json::from_str(&text).ok()?;
        (!cached.session_id.is_empty()).then_some(cached.session_id)
    }

    pub fn save(&self, session_id: &str, scrubber: &Scrubber) -> std::io::Result<()> {
        if fs_err::symlink_metadata(&self.path).is_ok_and(|m| !m.file_type().is_file()) {
            return Err(std::io::Error::other(format!(
                "`{}` is not a regular file",
                self.path.display()
            )));
        }
        let cached = Cached {
            session_id: scrubber.scrub_str(session_id).into_owned(),
            saved_at: crate::output::now_rfc3339(),
        };
        let mut text = serde_json::to_string_pretty(&cached).map_err(std::io::Error::other)?;
        text.push('\n');
        crate::fs_safety::atomic_write(&self.path, text.as_bytes(), 0o600)
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_id_loads_back_scrubbed() {
        let dir = tempfile::tempdir().expect("temp");
        let rules = crate::adapter::data::AdapterData::builtin()
            .expect("data")
            .credentials;
        let scrubber = Scrubber::new(
            vec![("AGENT_API_KEY".into(), "secret-value-99".into())],
            &rules,
        );
        let cache = SessionCache::new(dir.path());
        assert_eq!(cache.load(), None);
        cache.save("sess-1", &scrubber).expect("save");
        assert_eq!(cache.load().as_deref(), Some("sess-1"));
        cache.save("id-secret-value-99", &scrubber).expect("save");
        let text = std::fs::read_to_string(cache.path()).expect("read");
        assert!(!text.contains("secret-value-99"), "{text}");
    }
}
