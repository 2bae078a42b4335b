//! The agent's environment: exactly the allowlist, with a
//! fresh HOME of its own.

use serde_json::json;

use super::args;
use crate::run::acp_env::AcpEnv;

#[test]
fn the_agent_sees_only_the_allowlisted_environment_and_a_fresh_home() {
    let mut acp = AcpEnv::new(json!({}));
    acp.env.set_env("GITHUB_TOKEN", "ghp-not-for-kiro-123456");
    acp.env.set_env("KIRO_API_KEY", "kiro-key-for-kiro-123456");
    acp.run(&args(&["--json"])).assert_success();
    let invocation = &acp.acp_invocations()[0];
    let env = invocation["env"].as_object().expect("env");
    assert!(!env.contains_key("GITHUB_TOKEN"), "{env:?}");
    assert_eq!(env["KIRO_API_KEY"], "kiro-key-for-kiro-123456");
    let home = env["HOME"].as_str().expect("HOME");
    assert_ne!(home, acp.env.home.to_str().expect("utf-8"));
    assert!(
        home.starts_with(acp.env.runtime_dir.to_str().expect("utf-8")),
        "{home}"
    );
    assert_eq!(invocation["homeMode"], 0o700);
    // The temp HOME is gone after the run, and with it the agent's
    // temporary folder (a bundled runtime unpacks libraries there).
    assert!(!std::path::Path::new(home).exists(), "{home} left behind");
    assert_eq!(env["TMPDIR"], format!("{home}/tmp"), "{env:?}");
    // Node's code cache outlives the run, in the user's cache (never the
    // project's folder), private.
    let compile_cache = acp.env.cache.join("node-compile-cache");
    assert_eq!(
        env["NODE_COMPILE_CACHE"],
        compile_cache.to_str().expect("utf-8"),
        "{env:?}"
    );
    let meta = std::fs::symlink_metadata(&compile_cache).expect("the compile cache folder");
    assert!(meta.is_dir(), "a folder, not a link");
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
        0o700
    );
}

/// A link planted where Node's compile cache goes is not followed: the
/// agent runs without the cache (a warning says so), and nothing is
/// written where the link points.
#[test]
fn a_link_in_place_of_the_compile_cache_is_not_followed() {
    let acp = AcpEnv::new(json!({}));
    std::fs::create_dir_all(&acp.env.cache).expect("cache dir");
    let elsewhere = acp.env.outside.join("not-a-cache");
    std::fs::create_dir_all(&elsewhere).expect("outside dir");
    std::os::unix::fs::symlink(&elsewhere, acp.env.cache.join("node-compile-cache"))
        .expect("plant the link");
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    let invocation = &acp.acp_invocations()[0];
    let env = invocation["env"].as_object().expect("env");
    assert!(!env.contains_key("NODE_COMPILE_CACHE"), "{env:?}");
    outcome.assert_stderr_contains("without Node's compile cache");
    assert_eq!(
        std::fs::read_dir(&elsewhere).expect("outside dir").count(),
        0,
        "something was written through the link"
    );
}

/// The child environment is an allowlist.
fn allowed(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "PATH",
        "LANG",
        "TERM",
        "TZ",
        "HOME",
        "TMPDIR",
        "NODE_COMPILE_CACHE",
        "KIRO_HOME",
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "NO_PROXY",
        "https_proxy",
        "http_proxy",
        "no_proxy",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "KIRO_API_KEY",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_SECURITY_TOKEN",
        "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
        "AWS_SHARED_CREDENTIALS_FILE",
        "AWS_CONFIG_FILE",
    ];
    EXACT.contains(&name)
        || name.starts_with("LC_")
        || name.starts_with("XDG_")
        || (name.starts_with("KIRO_")
            && ["API_KEY", "TOKEN", "SECRET", "PASSWORD"]
                .iter()
                .any(|end| name.ends_with(end)))
}

#[test]
fn the_agent_environment_is_exactly_the_allowlist() {
    let mut acp = AcpEnv::new(json!({}));
    for (name, value) in [
        ("GITHUB_TOKEN", "ghp-not-for-kiro-123456"),
        ("OPENAI_API_KEY", "sk-not-for-kiro-123456"),
        ("SOME_RANDOM_SETTING", "1"),
        ("KIRO_LOG_LEVEL", "debug"),
        ("KIRO_EXTRA_TOKEN", "kiro-extra-token-123456"),
        ("AWS_SECRET_ACCESS_KEY", "aws-secret-for-kiro-123456"),
        ("LC_ALL", "C.UTF-8"),
        ("TZ", "UTC"),
        ("HTTPS_PROXY", "http://127.0.0.1:9"),
        ("NO_PROXY", "*"),
    ] {
        acp.env.set_env(name, value);
    }
    acp.run(&args(&["--json"])).assert_success();
    let invocation = &acp.acp_invocations()[0];
    let env = invocation["env"].as_object().expect("env");
    // `PWD` is set by the test's `/bin/sh` wrapper around the fake.
    let refused: Vec<&String> = env
        .keys()
        .filter(|name| !allowed(name) && *name != "PWD")
        .collect();
    assert!(
        refused.is_empty(),
        "not on the allowlist: {refused:?}\n{env:#?}"
    );
    for passed in [
        "KIRO_EXTRA_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "LC_ALL",
        "TZ",
        "HTTPS_PROXY",
        "NO_PROXY",
        "KIRO_HOME",
    ] {
        assert!(env.contains_key(passed), "{passed} missing: {env:#?}");
    }
    for kept_out in [
        "GITHUB_TOKEN",
        "OPENAI_API_KEY",
        "SOME_RANDOM_SETTING",
        "KIRO_LOG_LEVEL",
        "ONEWORKS_HOME",
    ] {
        assert!(!env.contains_key(kept_out), "{kept_out} reached the agent");
    }
    // A fresh HOME of its own, not the user's.
    assert_ne!(env["HOME"], json!(acp.env.home));
}
