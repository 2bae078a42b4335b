//! What the npm managed source refuses, installing nothing: a wrong,
//! missing or sha1-only integrity, hostile tarball entries, a bin outside
//! the package or missing, a bad package document, and a pin naming
//! another host.

use super::*;

#[test]
fn npm_wrong_integrity_is_exit_5_and_installs_nothing() {
    let env = npm_env();
    let other = npm_registry::sri(b"another tarball");
    let published =
        Published::new(&env.server, "1.0.0").dist("integrity", Some(json!(other.clone())));
    npm_registry::publish(&env.server, "1.0.0", &[&published]);
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    let computed = npm_registry::sri(&published.bytes);
    assert!(
        message.starts_with("failed to verify `gemini` 1.0.0: expected sha512 "),
        "{message}"
    );
    assert!(message.contains(&other), "expected digest shown: {message}");
    assert!(
        message.contains(&computed),
        "computed digest shown: {message}"
    );
    // A checksum mismatch is never retried.
    assert_eq!(env.server.hits(&published.path), 1);
    env.assert_nothing_published("1.0.0");
    assert!(!env.kiro_lock().exists(), "no pin for a failed install");
}

#[test]
fn npm_missing_or_sha1_only_integrity_is_refused_before_download() {
    let cases = [
        (
            "no integrity, sha1 shasum",
            None,
            true,
            "only a sha1 `shasum`",
        ),
        ("no integrity at all", None, false, "records no `integrity`"),
        (
            "sha1-only integrity",
            Some(json!("sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk=")),
            true,
            "has no sha512 hash, only sha1",
        ),
    ];
    for (name, integrity, shasum, why) in cases {
        let env = npm_env();
        let mut published = Published::new(&env.server, "1.0.0").dist("integrity", integrity);
        if !shasum {
            published = published.dist("shasum", None);
        }
        npm_registry::publish(&env.server, "1.0.0", &[&published]);
        let outcome = env.prepare(&[]);
        let message = outcome.assert_error(5, "checksum_mismatch");
        assert!(
            message.starts_with("refusing to install `gemini` 1.0.0: "),
            "{name}: {message}"
        );
        assert!(message.contains(why), "{name}: {message}");
        assert_eq!(
            env.server.hits(&published.path),
            0,
            "{name}: not downloaded"
        );
        env.assert_nothing_published("1.0.0");
    }
}

#[test]
fn npm_hostile_tarball_entries_are_refused() {
    let env = npm_env();
    let marker = "npm-hostile-marker";
    let outside = env.outside.to_string_lossy().into_owned();
    let file = |path: String| Entry::file(&path, 0o644, "evil");
    let cases: Vec<(&str, Entry)> = vec![
        ("parent", file(format!("package/../../{marker}-up"))),
        ("absolute", file(format!("{outside}/{marker}-absolute"))),
        (
            "symlink-out",
            Entry::symlink("package/bundle/out", "../../../outside"),
        ),
        (
            "hard-link",
            Entry::HardLink {
                path: format!("package/{marker}-hard"),
                target: format!("{outside}/secret"),
            },
        ),
    ];
    for (name, extra) in cases {
        let mut entries = npm_registry::package_entries("1.0.0");
        entries.push(extra);
        let published = Published::with_entries(&env.server, "1.0.0", &entries);
        npm_registry::publish(&env.server, "1.0.0", &[&published]);
        let outcome = env.prepare(&[]);
        let message = outcome.assert_error(6, "unsafe_archive");
        assert!(
            message.starts_with("refused the `gemini` 1.0.0 archive from "),
            "{name}: {message}"
        );
        env.assert_nothing_published("1.0.0");
        let planted: Vec<_> = crate::support::walk(&env.base())
            .into_iter()
            .filter(|path| path.to_string_lossy().contains(marker))
            .collect();
        assert!(planted.is_empty(), "{name}: planted {planted:?}");
    }
}

#[test]
fn npm_a_bin_outside_the_package_or_missing_is_refused() {
    let env = npm_env();
    for (name, bin, why) in [
        (
            "escaping",
            json!({ "gemini": "../../evil.js" }),
            "leaves the package",
        ),
        (
            "other command",
            json!({ "other": "x.js" }),
            "a `bin.gemini`",
        ),
    ] {
        let published = Published::new(&env.server, "1.0.0").field("bin", bin);
        npm_registry::publish(&env.server, "1.0.0", &[&published]);
        let outcome = env.prepare(&[]);
        let message = outcome.assert_error(7, "no_usable_cli");
        assert!(
            message.starts_with("the `gemini` 1.0.0 archive holds none of ")
                && message.contains(why),
            "{name}: {message}"
        );
        assert_eq!(env.server.hits(&published.path), 0, "{name}");
        env.assert_nothing_published("1.0.0");
    }
}

#[test]
fn npm_a_bad_package_document_is_a_clear_error() {
    let env = npm_env();
    let published = Published::new(&env.server, "1.0.0");
    for (name, body, why) in [
        (
            "html",
            b"<html>proxy login</html>".to_vec(),
            "is not valid JSON",
        ),
        (
            "latest not listed",
            npm_registry::document("2.0.0", &[&published]),
            "`dist-tags.latest` `2.0.0` is not a version the document lists",
        ),
    ] {
        env.server
            .route(DOCUMENT_PATH, crate::support::server::Route::ok(body));
        let outcome = env.prepare(&[]);
        outcome.assert_error(4, "network");
        let text = outcome.all_text();
        assert!(
            text.contains(&format!(
                "failed to read the npm package document `{}`",
                env.server.url(DOCUMENT_PATH)
            )) && text.contains(why),
            "{name}: {text}"
        );
        assert!(text.contains("ONEWORKS_NPM_REGISTRY"), "{name}: {text}");
        env.assert_nothing_published("1.0.0");
    }
}

#[test]
fn npm_a_pin_naming_another_host_is_refused() {
    let env = npm_env();
    let published = Published::new(&env.server, "1.0.0");
    npm_registry::publish(&env.server, "1.0.0", &[&published]);
    // A cloned project's lock file pointing at a host of its choosing,
    // with an integrity that matches what that host serves.
    std::fs::write(
        env.kiro_lock(),
        serde_json::to_vec(&json!({
            "version": "1.0.0",
            "npm": {
                "package": npm_registry::PACKAGE,
                "tarball": "http://127.0.0.1:9/evil.tgz",
                "integrity": npm_registry::sri(&published.bytes),
                "bin": npm_registry::BIN,
            }
        }))
        .expect("pin json"),
    )
    .expect("write pin");
    let outcome = env.prepare(&["--locked"]);
    let message = outcome.assert_error(4, "network");
    assert_eq!(
        message,
        format!(
            "the download `http://127.0.0.1:9/evil.tgz` leaves the download base `{}`",
            env.server.url("/")
        )
    );
    assert_eq!(env.server.total_hits(), 0);
    env.assert_nothing_published("1.0.0");
}
