//! What the environment changes: a credential in it is neither damaged
//! into nor written to the install records, and a bad `ONEWORKS_HOME`,
//! lock timeout or HTTP timeout is a config error with a hint, before any
//! request.

use crate::support::archive::Format;
use crate::support::{assert_prepared, reused, TestEnv};

use super::{read_json, VERSION};

#[test]
fn a_short_credential_in_the_environment_does_not_damage_records() {
    let mut env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    // Short secrets replace whole strings when scrubbed; the installer's own
    // checked fields (version, digests, sizes) must not be scrubbed at all.
    env.set_env("KIRO_DEBUG_TOKEN", "1");
    let first = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert_eq!(first["sha256"].as_str().map(str::len), Some(64));
    let record = read_json(&env.version_dir(VERSION).join("install.json"));
    assert_eq!(record["version"], VERSION, "{record:#}");
    assert_eq!(record["sha256"], first["sha256"], "{record:#}");
    let lock = read_json(&env.kiro_lock());
    assert_eq!(lock["version"], VERSION, "{lock:#}");
    let second = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert!(reused(&second));
}

#[test]
fn a_credential_in_a_mirror_url_is_not_written_to_disk() {
    let mut env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let token = "mirror-token-0123456789";
    env.set_env("KIRO_MIRROR_TOKEN", token);
    // The token rides in the userinfo of the download base.
    let url = env
        .server
        .url("/stable/")
        .replacen("http://", &format!("http://user:{token}@"), 1);
    env.set_env("ONEWORKS_KIRO_DOWNLOAD_BASE", &url);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    for file in [
        env.version_dir(VERSION).join("install.json"),
        env.kiro_lock(),
    ] {
        let text = std::fs::read_to_string(&file).expect("read");
        assert!(
            !text.contains(token),
            "{} holds the token:\n{text}",
            file.display()
        );
    }
}

#[test]
fn a_relative_oneworks_home_is_a_config_error() {
    let mut env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    env.set_env("ONEWORKS_HOME", "relative/home");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(3, "config");
    assert!(message.contains("ONEWORKS_HOME"), "{}", outcome.describe());
    assert!(!env.project.join("relative").exists());
}

#[test]
fn a_bad_lock_timeout_is_a_config_error_with_a_hint() {
    let mut env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    env.set_env("ONEWORKS_LOCK_TIMEOUT", "soon");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(3, "config");
    assert_eq!(
        message,
        "ONEWORKS_LOCK_TIMEOUT `soon` is not a number of seconds or a duration like `90s`"
    );
    assert_eq!(
        outcome.json()["error"]["hint"],
        "set ONEWORKS_LOCK_TIMEOUT to whole seconds (`1800`) or a duration (`2m`), or unset it"
    );
    assert_eq!(env.server.total_hits(), 0);
    env.assert_nothing_published(VERSION);
}

#[test]
fn a_bad_http_timeout_is_a_config_error_with_a_hint() {
    for (bad, why) in [
        ("0", "is zero: it must be positive"),
        (
            "fast",
            "is not a number of seconds or a duration like `90s`",
        ),
    ] {
        let mut env = TestEnv::new();
        env.publish(VERSION, &[Format::TarGz]);
        env.set_env("ONEWORKS_HTTP_TIMEOUT", bad);
        let outcome = env.prepare(&[]);
        let message = outcome.assert_error(3, "config");
        assert_eq!(message, format!("ONEWORKS_HTTP_TIMEOUT `{bad}` {why}"));
        assert_eq!(
            outcome.json()["error"]["hint"],
            "set ONEWORKS_HTTP_TIMEOUT to whole seconds (`30`) or a duration (`2m`), or unset it"
        );
        assert_eq!(env.server.total_hits(), 0);
        env.assert_nothing_published(VERSION);
    }
}
