//! Failures between oneworks and the download host: HTTP errors, truncated
//! bodies, malformed manifests, checksum mismatches, sizes other than the
//! manifest's, missing platforms; `retries` (what a retry must absorb, one
//! line per retry) and `mirrors` (mirrors, `file://` and the download base)
//! below.

use serde_json::{json, Value};

use crate::support::archive::{self, Format};
use crate::support::manifest::{self, Libc, ARCH};
use crate::support::server::Route;
use crate::support::{assert_prepared, Artifact, TestEnv, MANIFEST_PATH};

mod mirrors;
mod retries;

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
