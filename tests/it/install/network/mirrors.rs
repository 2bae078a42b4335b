//! Where downloads come from: a download-base override (a mirror), a
//! `file://` manifest URL and mirror, a download path that cannot leave its
//! base, and the hints when no connection is made or a download is
//! refused.

use super::*;

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
