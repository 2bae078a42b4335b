//! The environment is parsed in one place, before a command runs
//! (`src/env_options/`): a bad value is the same error (exit 3, naming the
//! variable, its value and why) for every command that takes settings —
//! the installer of `adapter prepare` and of `run`, the webhook of
//! `session start`, and commands that never use the variable — and nothing
//! is fetched or made first.

use crate::session::supervisor::Session;
use crate::session::webhook::{with_webhook, Hook};
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
    start.assert_stderr_contains(MESSAGE);
    assert!(session.record().is_none(), "no session was started");
}

/// `args` fails before anything is fetched or installed, with the one
/// error of a bad variable; returns its message and hint.
#[track_caller]
fn refused(env: &TestEnv, args: &[&str]) -> (String, String) {
    let outcome = env.run(args);
    let message = outcome.assert_error(3, "config");
    let hint = outcome.json()["error"]["hint"]
        .as_str()
        .unwrap_or_else(|| panic!("no hint\n{}", outcome.describe()))
        .to_owned();
    assert_eq!(env.server.total_hits(), 0, "nothing was fetched");
    env.assert_nothing_published(VERSION);
    (message, hint)
}

/// A variable, its bad value, the message, and two commands that read it.
type Case<'a> = (&'a str, &'a str, &'a str, &'a [&'a str], &'a [&'a str]);

#[test]
fn a_bad_variable_is_the_same_error_for_every_command_that_takes_settings() {
    let cases: [Case; 4] = [
        (
            "ONEWORKS_KIRO_FORMATS",
            "tarGz,tarBz2",
            "ONEWORKS_KIRO_FORMATS `tarGz,tarBz2` names `tarBz2`, which is no archive format oneworks knows",
            &["adapter", "prepare", "kiro", "--json"],
            &["adapter", "status", "kiro", "--json"],
        ),
        (
            "ONEWORKS_KIRO_MANIFEST_URL",
            "mirror.test/manifest.json",
            "ONEWORKS_KIRO_MANIFEST_URL `mirror.test/manifest.json` is not an http, https or file URL",
            &["adapter", "prepare", "kiro", "--json"],
            &["adapter", "list", "--json"],
        ),
        (
            "ONEWORKS_NPM_REGISTRY",
            "ftp://registry.test/",
            "ONEWORKS_NPM_REGISTRY `ftp://registry.test/` is not an http or https URL",
            &["adapter", "prepare", "gemini", "--json"],
            &["session", "list", "--json"],
        ),
        (
            "ONEWORKS_HOME",
            "relative/home",
            "ONEWORKS_HOME `relative/home` is not an absolute path",
            &["adapter", "status", "kiro", "--json"],
            &["run", "kiro", "--prompt", "hello", "--json"],
        ),
    ];
    for (variable, value, message, first, second) in cases {
        let mut env = TestEnv::new();
        env.publish(VERSION, &[Format::TarGz]);
        env.set_env(variable, value);
        let one = refused(&env, first);
        assert_eq!(one.0, message, "{first:?}");
        assert!(
            one.1.starts_with(&format!("set {variable} to ")),
            "{}",
            one.1
        );
        assert!(one.1.ends_with(", or unset it"), "{}", one.1);
        assert_eq!(
            refused(&env, second),
            one,
            "{second:?} and {first:?} differ"
        );
        assert!(!env.project.join("relative").exists(), "nothing was made");
    }
}

#[test]
fn a_long_value_is_cut_and_a_mirrors_credentials_are_not_repeated() {
    let mut env = TestEnv::new();
    env.set_env("ONEWORKS_LOCK_TIMEOUT", &"9".repeat(1000));
    let (message, _) = refused(&env, &["adapter", "status", "kiro", "--json"]);
    assert!(message.len() < 400, "{message}");
    assert!(
        message.starts_with(&format!("ONEWORKS_LOCK_TIMEOUT `{}…` ", "9".repeat(200))),
        "{message}"
    );
    env.env.remove("ONEWORKS_LOCK_TIMEOUT");
    env.set_env(
        "ONEWORKS_KIRO_DOWNLOAD_BASE",
        "gopher://reader:s3cret@mirror.test/kiro",
    );
    let outcome = env.run(&["adapter", "prepare", "kiro", "--json"]);
    outcome.assert_error(3, "config");
    outcome.assert_text_lacks("s3cret");
}
