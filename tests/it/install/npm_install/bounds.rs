//! What a registry document or tarball may make oneworks do before the
//! tarball is verified: a dependency name is an npm package
//! name before it becomes a request (a required or an optional one), a
//! tarball comes from the registry's own origin, and extraction is bounded
//! by `dist.unpackedSize` × the adapter's `maxExpansion` (also without
//! `Content-Length`) and by a number of entries.

use super::*;
use crate::support::server::{Route, Server};

/// [`npm_env`] with more keys in the adapter data's `npm` section.
fn npm_env_with(extra: &str) -> TestEnv {
    let mut env = npm_env();
    let data = env.base().join("npm-adapter-extra.yaml");
    std::fs::write(&data, npm_registry::adapter_data_with(extra)).expect("write adapter data");
    env.set_env("ONEWORKS_KIRO_ADAPTER_FILE", &data.to_string_lossy());
    env
}

#[test]
fn npm_a_dependency_name_that_is_not_a_package_name_is_never_asked_for() {
    let beacon = Server::start();
    let address = beacon.url("").trim_start_matches("http://").to_owned();
    let name = format!("\\\\{address}\\beacon");
    let shown = name.escape_debug().to_string();
    for field in ["dependencies", "optionalDependencies"] {
        // Optional dependencies are looked at for the packages the data
        // names as having platform packages.
        let env = npm_env_with(&format!("platformPackages: ['{}']", npm_registry::PACKAGE));
        let main = Published::new(&env.server, "1.0.0").field(field, json!({ &name: "^1" }));
        npm_registry::publish(&env.server, "1.0.0", &[&main]);
        let outcome = env.prepare(&[]);
        let message = outcome.assert_error(4, "network");
        assert_eq!(
            message,
            format!(
                "`{}` needs a dependency named `{shown}`, which is not an npm package name",
                npm_registry::PACKAGE
            ),
            "{field}"
        );
        assert_eq!(beacon.total_hits(), 0, "{field}: the beacon was asked");
        assert_eq!(env.server.hits(&main.path), 0, "{field}: downloaded");
        env.assert_nothing_published("1.0.0");
    }
}

#[test]
fn npm_a_tarball_on_another_origin_is_never_asked_for() {
    let env = npm_env();
    let elsewhere = Server::start();
    let published = Published::new(&env.server, "1.0.0");
    let moved = elsewhere.url(&published.path);
    elsewhere.route(&published.path, Route::Ok(published.bytes.clone().into()));
    let main = published.dist("tarball", Some(json!(moved)));
    npm_registry::publish(&env.server, "1.0.0", &[&main]);
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert_eq!(
        message,
        format!(
            "the download `{moved}` leaves the download base `{}`",
            env.server.url("/")
        )
    );
    assert_eq!(elsewhere.total_hits(), 0);
    env.assert_nothing_published("1.0.0");
}

/// A well-formed package plus `zeros` bytes of zeros (a gzip of them is
/// small).
fn bomb(env: &TestEnv, zeros: usize) -> Published {
    let mut entries = npm_registry::package_entries("1.0.0");
    entries.push(Entry::file("package/zeros", 0o644, vec![0u8; zeros]));
    Published::with_entries(&env.server, "1.0.0", &entries)
}

#[test]
fn npm_extraction_before_verification_is_bounded_without_content_length() {
    const MIB: usize = 1024 * 1024;
    let env = npm_env();
    // The document declares 2 KiB: 2 × that (at least 1 MiB) may be
    // extracted before the integrity is checked, whatever the server
    // announces — here nothing.
    let published = bomb(&env, 4 * MIB).dist("unpackedSize", Some(json!(2048)));
    assert!(published.bytes.len() < 64 * 1024, "the bomb is small");
    npm_registry::publish(&env.server, "1.0.0", &[&published]);
    env.server.route(
        &published.path,
        Route::NoLength(published.bytes.clone().into()),
    );
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(6, "unsafe_archive");
    assert!(
        message.starts_with("refused the `gemini` 1.0.0 archive from "),
        "{message}"
    );
    assert!(
        outcome
            .all_text()
            .contains("archive expands past the size bound of 1048576 bytes"),
        "{}",
        outcome.describe()
    );
    env.assert_nothing_published("1.0.0");

    // The same tarball, its real size declared: installed.
    let honest = bomb(&env, 4 * MIB).dist("unpackedSize", Some(json!(4 * MIB + 1024)));
    npm_registry::publish(&env.server, "1.0.0", &[&honest]);
    env.server
        .route(&honest.path, Route::NoLength(honest.bytes.clone().into()));
    assert_prepared(&env.prepare(&[]), "managed", "1.0.0");
    env.assert_no_leftovers();
}

#[test]
fn npm_a_tarball_with_too_many_entries_is_refused() {
    let env = npm_env();
    let mut entries = npm_registry::package_entries("1.0.0");
    // More than the 100 000 entries the extraction takes (the largest
    // real agent package holds under 4 000 files). Every entry counts,
    // a file or a pax global header that makes none: most are headers
    // (writing 100 000 files took this test 26 s of CPU), and the files
    // last, so the entry over the limit is a file.
    let headers = 100_000 - entries.len() - 10;
    entries.extend((0..headers).map(|index| Entry::PaxGlobal {
        path: format!("pax_global_header.{index}"),
    }));
    entries.extend((0..20).map(|index| Entry::file(&format!("package/f/{index}"), 0o644, "")));
    let published = Published::with_entries(&env.server, "1.0.0", &entries);
    npm_registry::publish(&env.server, "1.0.0", &[&published]);
    let outcome = env.prepare(&[]);
    outcome.assert_error(6, "unsafe_archive");
    assert!(
        outcome
            .all_text()
            .contains("archive holds more than 100000 entries"),
        "{}",
        outcome.describe()
    );
    env.assert_nothing_published("1.0.0");
}
