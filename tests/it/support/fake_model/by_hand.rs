//! The fake model kept up by hand, to look at an agent's own TUI against
//! it (capturing an approval box for a fixture, say). Not run by CI:
//!
//! ```text
//! FAKE_MODEL_TOOL='(?i)bash|shell|run_shell_command' \
//! FAKE_MODEL_COMMAND='touch probe-created.txt' \
//! FAKE_MODEL_DIR=/tmp/fake-model \
//! cargo test --features fakes -- --ignored --exact support::fake_model::by_hand::serve_until_stopped
//! ```
//!
//! It writes `url` in `FAKE_MODEL_DIR`, appends a line per request to
//! `requests.log`, and stops when `url` is removed.

use std::time::Duration;

use super::FakeModel;

#[test]
#[ignore = "by hand: a fake model that stays up until its url file is removed"]
fn serve_until_stopped() {
    let var =
        |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.to_owned());
    let dir = std::path::PathBuf::from(var("FAKE_MODEL_DIR", "/tmp/fake-model"));
    std::fs::create_dir_all(&dir).expect("FAKE_MODEL_DIR");
    let model = FakeModel::start(
        &var("FAKE_MODEL_TOOL", "(?i).*(bash|shell).*"),
        &var("FAKE_MODEL_COMMAND", "touch probe-created.txt"),
    );
    if let Ok(trigger) = std::env::var("FAKE_MODEL_TRIGGER") {
        model.set_trigger(Some(&trigger));
    }
    let url = dir.join("url");
    std::fs::write(&url, model.url("")).expect("write url");
    let mut logged = 0;
    while url.exists() {
        let requests = model.requests();
        if requests.len() > logged {
            let text = model.describe();
            std::fs::write(dir.join("requests.log"), text).expect("write requests.log");
            logged = requests.len();
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
