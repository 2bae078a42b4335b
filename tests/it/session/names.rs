//! Session names: a NAME outside `[A-Za-z0-9_-]{1,64}` is a
//! usage error for every command that takes `--session`, before anything
//! is written.

use crate::support::TestEnv;

/// A session NAME outside `[A-Za-z0-9_-]{1,64}` is a usage error (exit 2)
/// before anything is created: no session folder, no runtime folder.
#[test]
fn an_invalid_session_name_is_refused_before_anything_is_written() {
    let env = TestEnv::new();
    let long = "a".repeat(65);
    for name in ["../escape", "", "a/b", ".", "name with space", &long] {
        for args in [
            &["config", "render", "kiro", "--session", name][..],
            &["adapter", "login", "kiro", "--session", name][..],
        ] {
            let outcome = env.run(args);
            outcome.assert_code(2);
            assert_eq!(
                outcome.stderr,
                format!(
                    "error: invalid value '{name}' for '--session <SESSION>': a session name \
                     is 1 to 64 characters of A-Z, a-z, 0-9, `_` and `-`\n\n\
                     For more information, try '--help'.\n"
                ),
                "{args:?}"
            );
        }
    }
    assert!(!env.project.join(".oneworks/sessions").exists());
    assert!(!env.runtime_dir.join("oneworks").exists());
    assert_eq!(env.server.total_hits(), 0);
}
