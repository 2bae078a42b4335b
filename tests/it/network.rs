//! Failures between oneworks and the download host: HTTP errors, truncated
//! bodies, malformed manifests, checksum mismatches, missing platforms, and
//! transient failures that a retry must absorb, with one line per retry.

use serde_json::{json, Value};

use crate::support::archive::{self, Format};
use crate::support::manifest::{self, Libc, ARCH};
use crate::support::server::Route;
use crate::support::{assert_prepared, Artifact, TestEnv, MANIFEST_PATH};

const VERSION: &str = "2.15.1";

const FAILING_HOST_HINT: &str = "the download host is failing: try again later, or set ONEWORKS_KIRO_MANIFEST_URL / ONEWORKS_KIRO_DOWNLOAD_BASE to a mirror";
const BROKE_OFF_HINT: &str =
    "the connection broke off; nothing was installed: try again, or use a mirror";
const WRONG_FILE_HINT: &str =
    "the server sends another file than the manifest describes: check the mirror's contents";

/// `env` with retries that do not wait (`ONEWORKS_TEST_BACKOFF_MS`, a
/// test-only knob): failure tests need the attempts, not the delays.
fn fast(mut env: TestEnv) -> TestEnv {
    env.set_env("ONEWORKS_TEST_BACKOFF_MS", "0");
    env
}

/// The `hint` of a `--json` error document.
#[track_caller]
fn hint(outcome: &crate::support::Outcome) -> String {
    outcome.json()["error"]["hint"]
        .as_str()
        .unwrap_or_else(|| panic!("no hint\n{}", outcome.describe()))
        .to_owned()
}

/// Serves one gnu artifact of `format` and a manifest naming it (through
/// `edit`, which may damage the entry).
fn serve_single(env: &TestEnv, format: Format, edit: impl FnOnce(Value) -> Value) -> Artifact {
    let artifact = Artifact::new(
        VERSION,
        format,
        Libc::Gnu,
        archive::kiro_archive(format, VERSION),
    );
    env.server.route(
        &artifact.server_path,
        Route::Ok(artifact.bytes.clone().into()),
    );
    env.serve_manifest(&manifest::document(
        VERSION,
        &[edit(artifact.entry.clone())],
    ));
    artifact
}

#[test]
fn manifest_404_is_a_network_error() {
    let env = TestEnv::new();
    env.server.route(MANIFEST_PATH, Route::Status(404));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert!(message.contains("404"), "{}", outcome.describe());
    assert!(
        message.contains(&env.manifest_url()),
        "name the URL\n{}",
        outcome.describe()
    );
    env.assert_nothing_published(VERSION);
}

#[test]
fn artifact_404_is_a_network_error() {
    let env = TestEnv::new();
    let artifact = serve_single(&env, Format::TarGz, |entry| entry);
    env.server.route(&artifact.server_path, Route::Status(404));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert!(message.contains("404"), "{}", outcome.describe());
    assert!(
        message.contains(&env.server.url(&artifact.server_path)),
        "name the URL\n{}",
        outcome.describe()
    );
    env.assert_nothing_published(VERSION);
}

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
fn truncated_body_is_a_network_error() {
    for format in [Format::TarGz, Format::Zip] {
        let env = fast(TestEnv::new());
        let artifact = serve_single(&env, format, |entry| entry);
        env.server.route(
            &artifact.server_path,
            Route::Truncate {
                body: artifact.bytes.clone().into(),
                send: artifact.bytes.len() / 2,
            },
        );
        let outcome = env.prepare(&[]);
        let message = outcome.assert_error(4, "network");
        assert_eq!(
            message,
            format!(
                "`{}` ended after {} of {} bytes",
                env.server.url(&artifact.server_path),
                artifact.bytes.len() / 2,
                artifact.bytes.len()
            ),
            "{format:?}"
        );
        assert_eq!(hint(&outcome), BROKE_OFF_HINT);
        env.assert_nothing_published(VERSION);
    }
}

#[test]
fn malformed_manifest_is_a_clear_error() {
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "not json",
            b"{\"version\": \"2.15.1\", \"packages\": [".to_vec(),
        ),
        ("html", b"<html><body>Service moved</body></html>".to_vec()),
        (
            "no version",
            serde_json::to_vec(&json!({ "packages": [] })).expect("json"),
        ),
        (
            "packages not a list",
            serde_json::to_vec(&json!({ "version": VERSION, "packages": {} })).expect("json"),
        ),
    ];
    for (name, document) in cases {
        let env = TestEnv::new();
        env.serve_manifest(&document);
        let outcome = env.prepare(&[]);
        assert_eq!(outcome.code, Some(4), "case {name}\n{}", outcome.describe());
        let message = outcome.assert_error(4, "network");
        assert!(
            message.starts_with(&format!(
                "failed to read the Kiro CLI manifest `{}`: ",
                env.manifest_url()
            )),
            "case {name}: the message names the manifest URL\n{}",
            outcome.describe()
        );
        assert_eq!(
            hint(&outcome),
            "the server did not send a valid Kiro CLI manifest: check that ONEWORKS_KIRO_MANIFEST_URL points at Kiro CLI's manifest or a faithful mirror",
            "case {name}"
        );
        env.assert_nothing_published(VERSION);
    }
}

#[test]
fn malformed_entry_fields_are_clear_errors() {
    let cases: Vec<(&str, &str, Option<Value>)> = vec![
        ("sha256 too short", "sha256", Some(json!("abc123"))),
        ("sha256 not hex", "sha256", Some(json!("z".repeat(64)))),
        ("sha256 missing", "sha256", None),
        ("download missing", "download", None),
        ("size not a number", "size", Some(json!("big"))),
    ];
    for (name, field, value) in cases {
        let env = TestEnv::new();
        let artifact = serve_single(&env, Format::TarGz, |entry| {
            manifest::with_field(&entry, field, value.clone())
        });
        let outcome = env.prepare(&[]);
        assert_eq!(outcome.code, Some(4), "case {name}\n{}", outcome.describe());
        let message = outcome.assert_error(4, "network");
        assert!(
            message.contains(field),
            "case {name}: name the field\n{}",
            outcome.describe()
        );
        assert_eq!(
            env.server.hits(&artifact.server_path),
            0,
            "case {name}: nothing to download from a bad entry"
        );
        env.assert_nothing_published(VERSION);
    }
}

#[test]
fn no_package_for_this_platform_lists_what_the_manifest_offers() {
    let env = TestEnv::new();
    env.serve_manifest(&manifest::document(
        VERSION,
        &manifest::foreign_entries(VERSION),
    ));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    let other_arch = if ARCH == "x86_64" {
        "aarch64"
    } else {
        "x86_64"
    };
    assert!(
        message.contains(other_arch),
        "the message should list the offered packages\n{}",
        outcome.describe()
    );
    env.assert_nothing_published(VERSION);
}

#[test]
fn checksum_mismatch_is_exit_5_with_both_digests_and_the_url() {
    for format in [Format::TarGz, Format::Zip] {
        let env = TestEnv::new();
        let expected = manifest::sha256_hex(b"a different artifact");
        let artifact = serve_single(&env, format, |entry| {
            manifest::with_field(&entry, "sha256", Some(json!(expected)))
        });
        let outcome = env.prepare(&[]);
        let message = outcome.assert_error(5, "checksum_mismatch");
        let url = env.server.url(&artifact.server_path);
        for (what, fragment) in [
            ("expected digest", expected.as_str()),
            ("computed digest", artifact.sha256.as_str()),
            ("URL", url.as_str()),
        ] {
            assert!(
                message.to_lowercase().contains(fragment),
                "{format:?}: the message must show the {what}\n{}",
                outcome.describe()
            );
        }
        assert_eq!(
            env.server.hits(&artifact.server_path),
            1,
            "{format:?}: a checksum mismatch is never retried"
        );
        env.assert_nothing_published(VERSION);
    }
}

#[test]
fn uppercase_sha256_in_the_manifest_is_accepted() {
    let env = TestEnv::new();
    let artifact = serve_single(&env, Format::TarGz, |entry| {
        let upper = entry["sha256"].as_str().expect("sha").to_ascii_uppercase();
        manifest::with_field(&entry, "sha256", Some(json!(upper)))
    });
    let document = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert_eq!(
        document["sha256"].as_str().map(str::to_ascii_lowercase),
        Some(artifact.sha256.clone())
    );
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
fn download_base_override_fetches_artifacts_from_the_mirror() {
    let mut env = TestEnv::new();
    let release = env.publish(VERSION, &[Format::TarGz]);
    let artifact = release.gnu(Format::TarGz);
    let mirror_path = artifact
        .server_path
        .replacen("/stable/", "/mirror/kiro/", 1);
    env.server
        .route(&mirror_path, Route::Ok(artifact.bytes.clone().into()));
    env.set_env(
        "ONEWORKS_KIRO_DOWNLOAD_BASE",
        &env.server.url("/mirror/kiro/"),
    );
    let document = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert_eq!(document["sha256"].as_str(), Some(artifact.sha256.as_str()));
    assert_eq!(env.server.hits(&mirror_path), 1);
    assert_eq!(
        release.artifact_hits(&env.server),
        0,
        "the default base was used"
    );
}

#[test]
fn file_manifest_url_is_supported() {
    let mut env = TestEnv::new();
    let release = env.stage_release(VERSION, &[Format::TarGz]);
    let manifest_file = env.base().join("mirror").join("manifest.json");
    std::fs::create_dir_all(manifest_file.parent().expect("parent")).expect("mirror dir");
    std::fs::write(&manifest_file, release.manifest()).expect("write manifest");
    env.set_env(
        "ONEWORKS_KIRO_MANIFEST_URL",
        &format!("file://{}", manifest_file.display()),
    );
    env.set_env("ONEWORKS_KIRO_DOWNLOAD_BASE", &env.server.url("/stable/"));
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert_eq!(env.manifest_hits(), 0);
    assert_eq!(release.artifact_hits(&env.server), 1);
}

#[test]
fn file_mirror_serves_manifest_and_artifacts() {
    let mut env = TestEnv::new();
    let release = env.stage_release(VERSION, &[Format::TarZst]);
    let mirror = env.base().join("air-gapped");
    let artifact = release.gnu(Format::TarZst);
    let relative = artifact.server_path.trim_start_matches("/stable/");
    std::fs::create_dir_all(mirror.join(relative).parent().expect("parent")).expect("mirror");
    std::fs::write(mirror.join(relative), &artifact.bytes).expect("write artifact");
    std::fs::create_dir_all(mirror.join("latest")).expect("latest");
    std::fs::write(mirror.join("latest/manifest.json"), release.manifest()).expect("manifest");
    env.set_env(
        "ONEWORKS_KIRO_MANIFEST_URL",
        &format!("file://{}/latest/manifest.json", mirror.display()),
    );
    let document = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert_eq!(document["sha256"].as_str(), Some(artifact.sha256.as_str()));
    assert_eq!(env.server.total_hits(), 0, "a file mirror needs no server");
    env.assert_no_leftovers();
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
fn a_download_path_cannot_leave_the_download_base() {
    let env = TestEnv::new();
    let artifact = serve_single(&env, Format::TarGz, |entry| entry);
    // One slash: `Url::join` would read it as an absolute URL.
    let elsewhere = env
        .server
        .url("/elsewhere.tar.gz")
        .replacen("http://", "http:/", 1);
    env.server.route(
        "/elsewhere.tar.gz",
        Route::Ok(artifact.bytes.clone().into()),
    );
    for download in [
        elsewhere.as_str(),
        "file:/etc/passwd",
        "2.15.1/x?y=1",
        "/abs/path.tar.gz",
    ] {
        env.serve_manifest(&manifest::document(
            VERSION,
            &[manifest::with_field(
                &artifact.entry,
                "download",
                Some(json!(download)),
            )],
        ));
        let outcome = env.prepare(&[]);
        outcome.assert_error(4, "network");
        assert!(
            outcome.all_text().contains("download"),
            "{download}: {}",
            outcome.describe()
        );
    }
    assert_eq!(
        env.server.hits("/elsewhere.tar.gz"),
        0,
        "nothing fetched outside the base"
    );
    env.assert_nothing_published(VERSION);
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
        assert!(
            outcome.stderr.contains(&format!(
                "`{url}` stalled: no data for 1s; retrying in 0.0s (attempt {attempt} of 3)\n"
            )),
            "{}",
            outcome.describe()
        );
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
fn no_connection_names_the_manifest_variable_a_mirror_and_offline() {
    let mut env = fast(TestEnv::new());
    // Nothing listens on port 1.
    let url = "http://127.0.0.1:1/stable/latest/manifest.json";
    env.set_env("ONEWORKS_KIRO_MANIFEST_URL", url);
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert!(
        message.starts_with(&format!("request to `{url}` failed: ")),
        "{}",
        outcome.describe()
    );
    assert_eq!(
        hint(&outcome),
        "check the network and HTTPS_PROXY/NO_PROXY/SSL_CERT_FILE, point ONEWORKS_KIRO_MANIFEST_URL at a reachable mirror, or use `--offline` with an installed version"
    );
    env.assert_nothing_published(VERSION);
}

#[test]
fn a_refused_download_gets_a_hint() {
    let env = fast(TestEnv::new());
    let artifact = serve_single(&env, Format::TarGz, |entry| entry);
    env.server.route(&artifact.server_path, Route::Status(403));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert_eq!(
        message,
        format!(
            "`{}` answered HTTP 403",
            env.server.url(&artifact.server_path)
        )
    );
    assert_eq!(
        hint(&outcome),
        "the server refused access: check the mirror's credentials and ONEWORKS_KIRO_MANIFEST_URL / ONEWORKS_KIRO_DOWNLOAD_BASE"
    );
    assert_eq!(
        env.server.hits(&artifact.server_path),
        1,
        "a 403 is not retried"
    );
    env.assert_nothing_published(VERSION);
}

#[test]
fn a_content_length_other_than_the_manifest_size_is_refused() {
    let env = fast(TestEnv::new());
    let artifact = serve_single(&env, Format::TarGz, |entry| {
        let size = entry["size"].as_u64().expect("size");
        manifest::with_field(&entry, "size", Some(json!(size + 10)))
    });
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert_eq!(
        message,
        format!(
            "`{}` announces {} bytes but the manifest says {}",
            env.server.url(&artifact.server_path),
            artifact.bytes.len(),
            artifact.bytes.len() + 10
        )
    );
    assert_eq!(hint(&outcome), WRONG_FILE_HINT);
    env.assert_nothing_published(VERSION);
}

#[test]
fn a_body_longer_than_the_manifest_size_is_refused() {
    for format in [Format::TarGz, Format::Zip] {
        let env = fast(TestEnv::new());
        let artifact = serve_single(&env, format, |entry| {
            let size = entry["size"].as_u64().expect("size");
            manifest::with_field(&entry, "size", Some(json!(size - 10)))
        });
        // No Content-Length: only the body itself can tell.
        env.server.route(
            &artifact.server_path,
            Route::NoLength(artifact.bytes.clone().into()),
        );
        let outcome = env.prepare(&[]);
        let message = outcome.assert_error(4, "network");
        assert_eq!(
            message,
            format!(
                "`{}` sent more than the {} bytes the manifest announces",
                env.server.url(&artifact.server_path),
                artifact.bytes.len() - 10
            ),
            "{format:?}"
        );
        assert_eq!(hint(&outcome), WRONG_FILE_HINT);
        env.assert_nothing_published(VERSION);
    }
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
