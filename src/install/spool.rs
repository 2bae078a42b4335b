//! Zip spools in `ONEWORKS_CACHE_DIR`: named so that a killed install's
//! leftovers can be found and removed under the install lock.

use std::path::Path;

pub const SPOOL_PREFIX: &str = ".kiro-spool-";

/// Removes zip spools left by killed installs. Call under the install lock.
pub fn sweep_spools(cache_dir: &Path) {
    let Ok(entries) = fs_err::read_dir(cache_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let is_spool = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.starts_with(SPOOL_PREFIX));
        if is_spool && entry.file_type().is_ok_and(|kind| kind.is_file()) {
            let _ = fs_err::remove_file(entry.path());
        }
    }
}
