//! The checked-in shell completions in `completions/` equal what the binary
//! generates. `ONEWORKS_UPDATE_COMPLETIONS=1 cargo test --features fakes
//! --test it completions` rewrites them instead.

use std::path::PathBuf;

use crate::support::TestEnv;

const SHELLS: [(&str, &str); 5] = [
    ("bash", "oneworks.bash"),
    ("zsh", "_oneworks"),
    ("fish", "oneworks.fish"),
    ("powershell", "_oneworks.ps1"),
    ("elvish", "oneworks.elv"),
];

#[test]
fn checked_in_completions_are_current() {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("completions");
    let update = std::env::var_os("ONEWORKS_UPDATE_COMPLETIONS").is_some_and(|value| value == "1");
    let mut stale = Vec::new();
    let env = TestEnv::new();
    for (shell, file) in SHELLS {
        let outcome = env.run(&["completions", shell]);
        outcome.assert_success();
        assert!(
            !outcome.stdout.is_empty(),
            "`oneworks completions {shell}` printed nothing"
        );
        let output = outcome.stdout.as_bytes();
        let path = folder.join(file);
        if update {
            std::fs::create_dir_all(&folder).expect("create completions/");
            std::fs::write(&path, output).expect("write completion");
        } else if std::fs::read(&path).ok().as_deref() != Some(output) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale or missing completions {stale:?}; regenerate with \
         `ONEWORKS_UPDATE_COMPLETIONS=1 cargo test --features fakes --test it completions`"
    );
}
