//! Failures between oneworks and the download host: HTTP errors, truncated
//! bodies, malformed manifests, checksum mismatches, missing platforms, and
//! transient failures that a retry must absorb.

use serde_json::{json, Value};

use crate::support::archive::{self, Format};
use crate::support::manifest::{self, Libc, ARCH};
use crate::support::server::Route;
use crate::support::{assert_prepared, Artifact, TestEnv, MANIFEST_PATH};

const VERSION: &str = "2.15.1";

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
    let env = TestEnv::new();
    let artifact = serve_single(&env, Format::TarGz, |entry| entry);
    env.server.route(&artifact.server_path, Route::Status(500));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert!(message.contains("500"), "{}", outcome.describe());
    assert!(
        env.server.hits(&artifact.server_path) >= 2,
        "a 5xx is transient and must be retried"
    );
    env.assert_nothing_published(VERSION);
}

#[test]
fn truncated_body_is_a_network_error() {
    for format in [Format::TarGz, Format::Zip] {
        let env = TestEnv::new();
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
        assert!(
            message.contains(&artifact.server_path)
                && (message.contains("bytes") || message.contains("end of file")),
            "the message names the URL and the shortfall\n{}",
            outcome.describe()
        );
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
            message.contains("manifest") && message.contains(MANIFEST_PATH),
            "case {name}: the message names the manifest URL\n{}",
            outcome.describe()
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
    let env = TestEnv::new();
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
    let started = std::time::Instant::now();
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert_eq!(env.server.hits(&artifact.server_path), 2);
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(1),
        "Retry-After: 1 must delay the retry by at least a second"
    );
    env.assert_no_leftovers();
}

#[test]
fn manifest_503_then_200_is_retried_and_succeeds() {
    let env = TestEnv::new();
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
    let env = TestEnv::new();
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
    let env = TestEnv::new();
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
