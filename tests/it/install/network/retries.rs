//! Transient failures a retry must absorb, and the bound on retries: 5xx
//! and 429 (with `Retry-After`), stalls before the headers, in the body
//! and of the manifest, each retry announced on one line, a bounded number
//! of requests when the host keeps failing, and a slow download that still
//! completes.

use super::*;

#[test]
fn artifact_500_is_retried_then_a_network_error() {
    let env = fast(TestEnv::new());
    let artifact = serve_single(&env, Format::TarGz, |entry| entry);
    env.server.route(&artifact.server_path, Route::Status(500));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    let url = env.server.url(&artifact.server_path);
    assert_eq!(message, format!("`{url}` answered HTTP 500"));
    assert_eq!(hint(&outcome), FAILING_HOST_HINT);
    assert_eq!(
        env.server.hits(&artifact.server_path),
        3,
        "a 5xx is transient: 3 attempts"
    );
    for attempt in [2, 3] {
        assert!(
            outcome.stderr.contains(&format!(
                "`{url}` answered HTTP 500; retrying in 0.0s (attempt {attempt} of 3)\n"
            )),
            "each retry says why on stderr\n{}",
            outcome.describe()
        );
    }
    env.assert_nothing_published(VERSION);
}

#[test]
fn artifact_503_then_200_is_retried_and_succeeds() {
    let env = fast(TestEnv::new());
    let artifact = serve_single(&env, Format::TarGz, |entry| entry);
    env.server.route(
        &artifact.server_path,
        Route::fail_then(1, 503, None, Route::Ok(artifact.bytes.clone().into())),
    );
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert_eq!(env.server.hits(&artifact.server_path), 2);
    env.assert_no_leftovers();
}

#[test]
fn retry_after_is_honoured_for_429() {
    let env = TestEnv::new();
    let artifact = serve_single(&env, Format::Zip, |entry| entry);
    env.server.route(
        &artifact.server_path,
        Route::fail_then(1, 429, Some(1), Route::Ok(artifact.bytes.clone().into())),
    );
    let outcome = env.prepare(&[]);
    assert_prepared(&outcome, "managed", VERSION);
    assert_eq!(env.server.hits(&artifact.server_path), 2);
    assert!(
        outcome.stderr.contains(&format!(
            "`{}` answered HTTP 429; retrying in 1.0s (attempt 2 of 3)\n",
            env.server.url(&artifact.server_path)
        )),
        "Retry-After: 1 sets the wait\n{}",
        outcome.describe()
    );
    env.assert_no_leftovers();
}

#[test]
fn manifest_503_then_200_is_retried_and_succeeds() {
    let env = fast(TestEnv::new());
    let release = env.stage_release(VERSION, &[Format::TarGz]);
    env.server.route(
        MANIFEST_PATH,
        Route::fail_then(2, 503, None, Route::ok(release.manifest())),
    );
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert_eq!(env.manifest_hits(), 3);
}

#[test]
fn slow_download_completes() {
    let env = TestEnv::new();
    let bytes = archive::pack(
        Format::TarZst,
        &archive::kiro_entries_with_padding(VERSION, 256 * 1024),
    );
    let artifact = Artifact::new(VERSION, Format::TarZst, Libc::Gnu, bytes);
    env.server.route(
        &artifact.server_path,
        Route::Slow {
            body: artifact.bytes.clone().into(),
            chunk: 16 * 1024,
            delay_ms: 5,
        },
    );
    env.serve_manifest(&manifest::document(
        VERSION,
        std::slice::from_ref(&artifact.entry),
    ));
    let document = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert_eq!(document["sha256"].as_str(), Some(artifact.sha256.as_str()));
    let padding = env.version_dir(VERSION).join("kirocli/share/padding.bin");
    assert_eq!(
        std::fs::metadata(&padding).map(|meta| meta.len()).ok(),
        Some(256 * 1024),
        "every byte of a slow body arrives"
    );
}

#[test]
fn an_always_failing_artifact_is_requested_a_bounded_number_of_times() {
    let env = fast(TestEnv::new());
    let artifact = serve_single(&env, Format::TarGz, |entry| entry);
    env.server.route(&artifact.server_path, Route::Status(503));
    env.prepare(&[]).assert_error(4, "network");
    // One retry loop (3 attempts), not a loop of loops.
    assert_eq!(env.server.hits(&artifact.server_path), 3);
}

#[test]
fn an_always_failing_manifest_is_requested_a_bounded_number_of_times() {
    let env = fast(TestEnv::new());
    env.server.route(MANIFEST_PATH, Route::Status(503));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert!(message.contains("503"), "{}", outcome.describe());
    assert_eq!(
        env.manifest_hits(),
        3,
        "one retry loop, not a loop of loops"
    );
}

#[test]
fn a_stalled_manifest_fails_naming_the_url_and_announcing_each_retry() {
    let mut env = fast(TestEnv::new());
    env.set_env("ONEWORKS_HTTP_TIMEOUT", "1");
    let release = env.stage_release(VERSION, &[Format::TarGz]);
    env.server.route(
        MANIFEST_PATH,
        Route::Stall {
            body: release.manifest().into(),
            after_bytes: 10,
            release: env.base().join("never-released"),
        },
    );
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    let url = env.manifest_url();
    assert_eq!(message, format!("`{url}` stalled: no data for 1s"));
    assert_eq!(
        hint(&outcome),
        "the server stopped sending: try again, raise ONEWORKS_HTTP_TIMEOUT (seconds) on a slow link, or use a mirror"
    );
    for attempt in [2, 3] {
        outcome.assert_stderr_contains(format!(
            "`{url}` stalled: no data for 1s; retrying in 0.0s (attempt {attempt} of 3)\n"
        ));
    }
    assert_eq!(env.server.stalled(MANIFEST_PATH), 3);
    env.assert_nothing_published(VERSION);
}

#[test]
fn a_stalled_artifact_fails_naming_the_url() {
    let mut env = fast(TestEnv::new());
    env.set_env("ONEWORKS_HTTP_TIMEOUT", "1");
    let artifact = serve_single(&env, Format::TarGz, |entry| entry);
    env.server.route(
        &artifact.server_path,
        Route::Stall {
            body: artifact.bytes.clone().into(),
            after_bytes: artifact.bytes.len() / 2,
            release: env.base().join("never-released"),
        },
    );
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert_eq!(
        message,
        format!(
            "`{}` stalled: no data for 1s",
            env.server.url(&artifact.server_path)
        )
    );
    assert_eq!(env.server.stalled(&artifact.server_path), 3);
    env.assert_nothing_published(VERSION);
}

#[test]
fn a_server_silent_before_its_headers_is_asked_three_times_in_all() {
    let mut env = fast(TestEnv::new());
    env.set_env("ONEWORKS_HTTP_TIMEOUT", "1");
    let artifact = serve_single(&env, Format::TarGz, |entry| entry);
    env.server.route(
        &artifact.server_path,
        Route::Silent {
            release: env.base().join("never-released"),
        },
    );
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert_eq!(
        message,
        format!(
            "`{}` stalled: no data for 1s",
            env.server.url(&artifact.server_path)
        )
    );
    assert_eq!(
        env.server.hits(&artifact.server_path),
        3,
        "one retry loop around request and body"
    );
    env.assert_nothing_published(VERSION);
}

#[test]
fn each_retry_prints_one_line() {
    let mut env = TestEnv::new();
    env.set_env("ONEWORKS_TEST_BACKOFF_MS", "0");
    let artifact = Artifact::new(
        "2.15.1",
        Format::TarGz,
        Libc::Gnu,
        archive::kiro_archive(Format::TarGz, "2.15.1"),
    );
    env.server.route(&artifact.server_path, Route::Status(500));
    env.serve_manifest(&manifest::document(
        "2.15.1",
        std::slice::from_ref(&artifact.entry),
    ));
    let outcome = env.prepare(&[]);
    outcome.assert_error(4, "network");
    let url = env.server.url(&artifact.server_path);
    let expected = format!(
        "`{url}` answered HTTP 500; retrying in 0.0s (attempt 2 of 3)\n\
         `{url}` answered HTTP 500; retrying in 0.0s (attempt 3 of 3)\n\
         error: `{url}` answered HTTP 500\n"
    );
    assert!(
        outcome.stderr.starts_with(&expected),
        "one line per retry\n{}",
        outcome.describe()
    );
    assert_eq!(outcome.stderr.matches("retrying").count(), 2);
}
