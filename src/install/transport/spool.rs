//! Zip spools in `ONEWORKS_CACHE_DIR`: named per adapter so that a killed
//! install's leftovers can be found and removed under that adapter's
//! install lock (the cache folder is shared; another adapter's spool is
//! not this lock's to remove).

use std::path::Path;

/// `.<adapter>-spool-`: the name every spool of `adapter` starts with.
pub fn spool_prefix(adapter: &str) -> String {
    format!(".{adapter}-spool-")
}

/// Removes `adapter`'s zip spools left by killed installs. Call under its
/// install lock.
pub fn sweep_spools(cache_dir: &Path, adapter: &str) {
    let prefix = spool_prefix(adapter);
    let Ok(entries) = fs_err::read_dir(cache_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let is_spool = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.starts_with(&prefix));
        if is_spool && entry.file_type().is_ok_and(|kind| kind.is_file()) {
            let _ = fs_err::remove_file(entry.path());
        }
    }
}
