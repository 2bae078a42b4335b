//! Fake `kiro-cli` and `q` executables: a shell wrapper that runs the
//! `fake-kiro-cli` binary with its behaviour script (the script
//! reaches the fake through a file, not the environment).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

pub const FAKE_EXE: &str = env!("CARGO_BIN_EXE_fake-kiro-cli");

/// Writes `dir/name` (mode 0755) running the fake with the script
/// `dir/name.script.json`, and that script.
pub fn install_fake(dir: &Path, name: &str, script: &Value) -> PathBuf {
    std::fs::create_dir_all(dir).expect("create fake dir");
    let path = dir.join(name);
    let script_path = dir.join(format!("{name}.script.json"));
    std::fs::write(
        &script_path,
        serde_json::to_vec_pretty(script).expect("script json"),
    )
    .expect("write fake script");
    let wrapper = format!(
        "#!/bin/sh\nexec {} --fake-script {} \"$@\"\n",
        shell_quote(FAKE_EXE),
        shell_quote(&script_path.to_string_lossy())
    );
    std::fs::write(&path, wrapper).expect("write fake wrapper");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .expect("chmod fake wrapper");
    path
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A current Kiro CLI.
pub fn kiro_script(version: &str) -> Value {
    json!({
        "versionOutput": format!("kiro-cli {version}"),
        "versionExit": 0,
        "acpHelpOutput": "Usage: kiro-cli acp [OPTIONS]",
        "acpHelpExit": 0,
    })
}

/// `q` as installed by Kiro: a migration alias that identifies as Kiro.
pub fn kiro_q_script(version: &str) -> Value {
    json!({
        "versionOutput": format!("q (Kiro CLI) {version}"),
        "versionExit": 0,
        "acpHelpOutput": "Usage: q acp [OPTIONS]",
        "acpHelpExit": 0,
    })
}

/// The old Amazon Q Developer CLI: no Kiro in its version, no `acp`.
pub fn amazon_q_script() -> Value {
    json!({
        "versionOutput": "q 1.17.0",
        "versionExit": 0,
        "acpHelpOutput": "error: unrecognized subcommand 'acp'",
        "acpHelpExit": 2,
    })
}

/// `script` with one field set.
pub fn with(script: &Value, field: &str, value: Value) -> Value {
    let mut changed = script.clone();
    changed
        .as_object_mut()
        .expect("script is an object")
        .insert(field.to_owned(), value);
    changed
}
