//! The `ONEWORKS_*` settings are parsed in one place
//! (`src/env_options.rs`): a bad value is the same error whichever command
//! reads it — the installer of `adapter prepare` and of `run`, and the
//! webhook of `session start`.

use crate::supervisor::Session;
use crate::supervisor_webhook::{with_webhook, Hook};
use crate::support::archive::Format;
use crate::support::TestEnv;

const VERSION: &str = "2.15.1";
const MESSAGE: &str = "ONEWORKS_HTTP_TIMEOUT `0` is zero: it must be positive";
const HINT: &str =
    "set ONEWORKS_HTTP_TIMEOUT to whole seconds (`30`) or a duration (`2m`), or unset it";

#[test]
fn a_bad_http_timeout_is_the_same_error_for_prepare_run_and_the_webhook() {
    let mut env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    env.set_env("ONEWORKS_HTTP_TIMEOUT", "0");
    let prepare = env.prepare(&[]);
    assert_eq!(prepare.assert_error(3, "config"), MESSAGE);
    assert_eq!(prepare.json()["error"]["hint"], HINT);
    // `run` with the managed source builds the same installer first.
    let run = env.run(&["run", "kiro", "--prompt", "hello", "--json"]);
    assert_eq!(run.assert_error(3, "config"), MESSAGE);
    assert_eq!(env.server.total_hits(), 0, "nothing was fetched");
    env.assert_nothing_published(VERSION);

    // The webhook of a supervised session reads the same variable.
    let hook = Hook::start(None);
    let mut session = Session::new(|_| serde_json::json!({"requests": []}));
    with_webhook(&mut session, &hook);
    session.env.set_env("ONEWORKS_HTTP_TIMEOUT", "0");
    let start = session.start_with(&[]);
    start.assert_code(3);
    assert!(start.stderr.contains(MESSAGE), "{}", start.describe());
    assert!(session.record().is_none(), "no session was started");
}
