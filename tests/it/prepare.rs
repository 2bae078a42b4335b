//! `oneworks adapter prepare kiro` with the managed source: cold installs in
//! every archive format, reuse, `--offline`, `--force`, `--locked`, and the
//! version policy of SPEC §4.4.

use serde_json::Value;

use crate::support::archive::Format;
use crate::support::manifest::Libc;
use crate::support::{assert_prepared, path_of, reused, run_binary, Artifact, TestEnv};

const VERSION: &str = "2.15.1";

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("read {}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not JSON ({error}):\n{text}", path.display()))
}

/// Every field of the install record (SPEC §4.3) describes `artifact`.
fn assert_install_record(env: &TestEnv, artifact: &Artifact) {
    let record = read_json(&env.version_dir(VERSION).join("install.json"));
    assert_eq!(record["version"], VERSION, "install.json: {record:#}");
    assert_eq!(
        record["sha256"].as_str().map(str::to_ascii_lowercase),
        Some(artifact.sha256.clone()),
        "install.json: {record:#}"
    );
    assert_eq!(
        record["url"],
        env.server.url(&artifact.server_path),
        "install.json: {record:#}"
    );
    assert_eq!(
        record["size"].as_u64(),
        Some(artifact.bytes.len() as u64),
        "install.json: {record:#}"
    );
    assert!(
        record["installedAt"]
            .as_str()
            .is_some_and(|time| !time.is_empty()),
        "install.json needs installedAt: {record:#}"
    );
}

/// `.oneworks/kiro.lock` names the version and, for every archive entry of
/// the manifest's version, the platform keys, download, sha256 and size.
fn assert_kiro_lock(env: &TestEnv, version: &str, entries: &[Value]) {
    let lock = read_json(&env.kiro_lock());
    assert_eq!(lock["version"], version, "kiro.lock: {lock:#}");
    let packages = lock["packages"]
        .as_array()
        .unwrap_or_else(|| panic!("kiro.lock needs a packages array: {lock:#}"));
    for entry in entries {
        let found = packages
            .iter()
            .find(|package| package["download"] == entry["download"])
            .unwrap_or_else(|| panic!("kiro.lock lacks {}: {lock:#}", entry["download"]));
        for key in [
            "sha256",
            "size",
            "fileType",
            "targetTriple",
            "os",
            "architecture",
            "variant",
        ] {
            assert_eq!(found[key], entry[key], "kiro.lock `{key}` of {found:#}");
        }
    }
}

fn cold_install(format: Format) {
    let mut env = TestEnv::new();
    env.force_format(format);
    let release = env.publish(VERSION, &Format::ALL);

    let outcome = env.prepare(&[]);
    let document = assert_prepared(&outcome, "managed", VERSION);
    let artifact = release.gnu(format);
    assert!(
        !reused(&document),
        "a cold install is not reused\n{}",
        outcome.describe()
    );
    assert_eq!(document["sha256"].as_str(), Some(artifact.sha256.as_str()));
    assert_eq!(path_of(&document), env.managed_binary(VERSION));
    assert_eq!(
        document.as_object().map(|object| {
            let mut keys: Vec<_> = object.keys().cloned().collect();
            keys.sort();
            keys
        }),
        Some(
            ["adapter", "path", "reused", "sha256", "source", "version"]
                .map(String::from)
                .to_vec()
        ),
        "prepare --json fields (SPEC §1.3)"
    );

    // Exactly the glibc artifact of the forced format was downloaded, once.
    assert_eq!(env.server.hits(&artifact.server_path), 1);
    assert_eq!(release.artifact_hits(&env.server), 1);
    assert_eq!(
        env.server
            .hits(&release.artifact(format, Libc::Musl).server_path),
        0
    );

    let (code, output) = run_binary(&path_of(&document), &["--version"]);
    assert_eq!(code, Some(0));
    assert_eq!(output.trim(), format!("kiro-cli {VERSION}"));
    assert!(
        std::fs::symlink_metadata(env.version_dir(VERSION).join("kirocli").join("MUSL")).is_err(),
        "the musl build was installed on a glibc host"
    );
    assert_install_record(&env, artifact);
    assert_kiro_lock(&env, VERSION, &release.entries());
    env.assert_no_leftovers();
    assert!(env.install_lock().exists(), "the install lock file is kept");
}

#[test]
fn cold_install_tar_gz() {
    cold_install(Format::TarGz);
}

#[test]
fn cold_install_tar_xz() {
    cold_install(Format::TarXz);
}

#[test]
fn cold_install_tar_zst() {
    cold_install(Format::TarZst);
}

#[test]
fn cold_install_zip() {
    cold_install(Format::Zip);
}

#[test]
fn default_format_preference_picks_one_supported_archive() {
    let env = TestEnv::new();
    let release = env.publish(VERSION, &Format::ALL);
    let document = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert_eq!(release.artifact_hits(&env.server), 1);
    let chosen = release
        .artifacts
        .iter()
        .find(|artifact| env.server.hits(&artifact.server_path) == 1)
        .expect("one artifact was downloaded");
    assert_eq!(chosen.libc, Libc::Gnu, "a glibc host takes the gnu build");
    assert_eq!(
        chosen.format,
        Format::TarZst,
        "the documented default preference starts with tarZst"
    );
    assert_eq!(document["sha256"].as_str(), Some(chosen.sha256.as_str()));
}

#[test]
fn second_prepare_downloads_nothing_and_reports_reused() {
    let env = TestEnv::new();
    let release = env.publish(VERSION, &[Format::TarGz]);
    let first = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert!(!reused(&first));
    assert_eq!(release.artifact_hits(&env.server), 1);

    let outcome = env.prepare(&[]);
    let second = assert_prepared(&outcome, "managed", VERSION);
    assert!(
        reused(&second),
        "second prepare must reuse\n{}",
        outcome.describe()
    );
    assert_eq!(path_of(&second), path_of(&first));
    assert_eq!(second["sha256"], first["sha256"]);
    assert_eq!(
        release.artifact_hits(&env.server),
        1,
        "no second artifact download"
    );
}

#[test]
fn offline_uses_the_installed_version_without_any_request() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let first = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    let requests = env.server.total_hits();

    let outcome = env.prepare(&["--offline"]);
    let offline = assert_prepared(&outcome, "managed", VERSION);
    assert!(reused(&offline), "{}", outcome.describe());
    assert_eq!(path_of(&offline), path_of(&first));
    assert_eq!(
        env.server.total_hits(),
        requests,
        "--offline made a request"
    );
}

#[test]
fn offline_without_an_installed_version_is_exit_7_without_requests() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let outcome = env.prepare(&["--offline"]);
    outcome.assert_error(7, "no_usable_cli");
    assert_eq!(env.server.total_hits(), 0, "--offline made a request");
    env.assert_nothing_published(VERSION);
}

#[test]
fn force_reinstalls() {
    let env = TestEnv::new();
    let release = env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    // A damaged install is what --force is for.
    std::fs::write(env.managed_binary(VERSION), "#!/bin/sh\nexit 1\n").expect("damage binary");

    let outcome = env.prepare(&["--force"]);
    let document = assert_prepared(&outcome, "managed", VERSION);
    assert!(
        !reused(&document),
        "--force is a fresh install\n{}",
        outcome.describe()
    );
    assert_eq!(release.artifact_hits(&env.server), 2);
    let (code, output) = run_binary(&path_of(&document), &["--version"]);
    assert_eq!((code, output.trim()), (Some(0), "kiro-cli 2.15.1"));
    env.assert_no_leftovers();
}

#[test]
fn locked_reinstalls_the_locked_artifact_after_the_manifest_moved_on() {
    let env = TestEnv::new();
    let old = env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    assert!(env.kiro_lock().exists(), "kiro.lock written by prepare");

    // Upstream moves to 2.16.0; the 2.15.1 artifacts stay downloadable.
    let new = env.publish("2.16.0", &[Format::TarGz]);
    std::fs::remove_dir_all(env.versions_dir()).expect("remove versions");
    let manifest_requests = env.manifest_hits();

    let outcome = env.prepare(&["--locked"]);
    let document = assert_prepared(&outcome, "managed", VERSION);
    assert!(!reused(&document));
    assert_eq!(path_of(&document), env.managed_binary(VERSION));
    assert_eq!(
        document["sha256"].as_str(),
        Some(old.gnu(Format::TarGz).sha256.as_str())
    );
    assert_eq!(
        env.manifest_hits(),
        manifest_requests,
        "--locked consulted the manifest"
    );
    assert_eq!(old.artifact_hits(&env.server), 2);
    assert_eq!(new.artifact_hits(&env.server), 0);
    let lock = read_json(&env.kiro_lock());
    assert_eq!(lock["version"], VERSION, "--locked must not move the pin");
}

#[test]
fn locked_without_kiro_lock_is_a_config_error() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let outcome = env.prepare(&["--locked"]);
    let message = outcome.assert_error(3, "config");
    assert!(message.contains("kiro.lock"), "{}", outcome.describe());
    assert_eq!(env.server.total_hits(), 0);
    env.assert_nothing_published(VERSION);
}

#[test]
fn locked_verifies_the_recorded_sha256() {
    let env = TestEnv::new();
    let release = env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    std::fs::remove_dir_all(env.versions_dir()).expect("remove versions");

    let mut lock = read_json(&env.kiro_lock());
    let forged = "0".repeat(64);
    for package in lock["packages"].as_array_mut().expect("packages") {
        package["sha256"] = Value::String(forged.clone());
    }
    std::fs::write(
        env.kiro_lock(),
        serde_json::to_vec_pretty(&lock).expect("json"),
    )
    .expect("write kiro.lock");

    let outcome = env.prepare(&["--locked"]);
    let message = outcome.assert_error(5, "checksum_mismatch");
    assert!(
        message.contains(&forged),
        "expected digest missing\n{}",
        outcome.describe()
    );
    assert!(
        message.contains(&release.gnu(Format::TarGz).sha256),
        "computed digest missing\n{}",
        outcome.describe()
    );
    env.assert_nothing_published(VERSION);
}

#[test]
fn exact_version_equal_to_the_manifest_installs() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    env.write_config(
        "adapters:\n  kiro:\n    cli:\n      source: managed\n      version: 2.15.1\n",
    );
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
}

#[test]
fn other_exact_version_is_refused_before_any_download() {
    let env = TestEnv::new();
    let release = env.publish(VERSION, &Format::ALL);
    env.write_config("adapters:\n  kiro:\n    cli:\n      version: 2.0.0\n");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(message.contains("2.0.0"), "{}", outcome.describe());
    assert!(
        message.contains(VERSION),
        "should name the manifest's version\n{}",
        outcome.describe()
    );
    assert_eq!(
        release.artifact_hits(&env.server),
        0,
        "refused only after downloading"
    );
    env.assert_nothing_published("2.0.0");
    env.assert_nothing_published(VERSION);
}

#[test]
fn pinned_version_fails_once_latest_moves_on_without_a_lock() {
    let env = TestEnv::new();
    let release = env.publish("2.16.0", &[Format::TarGz]);
    env.write_config("adapters:\n  kiro:\n    cli:\n      version: 2.15.1\n");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(message.contains(VERSION), "{}", outcome.describe());
    assert_eq!(release.artifact_hits(&env.server), 0);
}

#[test]
fn pinned_version_recorded_in_kiro_lock_is_accepted_after_latest_moved_on() {
    let env = TestEnv::new();
    let old = env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    env.publish("2.16.0", &[Format::TarGz]);
    std::fs::remove_dir_all(env.versions_dir()).expect("remove versions");
    env.write_config("adapters:\n  kiro:\n    cli:\n      version: 2.15.1\n");

    let outcome = env.prepare(&[]);
    let document = assert_prepared(&outcome, "managed", VERSION);
    assert_eq!(
        document["sha256"].as_str(),
        Some(old.gnu(Format::TarGz).sha256.as_str())
    );
}

#[test]
fn nonsense_version_is_a_config_error_with_its_line() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    env.write_config("adapters:\n  kiro:\n    cli:\n      version: nonsense\n");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(3, "config");
    assert!(
        message.contains("config.yaml:4:7"),
        "the message must name line 4, column 7 (the `version` key)\n{}",
        outcome.describe()
    );
    assert!(
        message.contains("invalid version"),
        "{}",
        outcome.describe()
    );
    assert!(
        !outcome.all_text().contains("nonsense"),
        "the value is not echoed (it could be a pasted secret)\n{}",
        outcome.describe()
    );
    assert_eq!(
        env.server.total_hits(),
        0,
        "a config error comes before the network"
    );
}

#[test]
fn status_reports_the_managed_install() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    let prepared = assert_prepared(&env.prepare(&[]), "managed", VERSION);
    let outcome = env.status();
    outcome.assert_success();
    let status = outcome.json();
    assert_eq!(status["adapter"], "kiro", "{}", outcome.describe());
    let selected = &status["selected"];
    assert_eq!(selected["source"], "managed", "{}", outcome.describe());
    assert_eq!(selected["version"], VERSION, "{}", outcome.describe());
    assert_eq!(selected["path"], prepared["path"], "{}", outcome.describe());
    assert_eq!(
        selected["sha256"],
        prepared["sha256"],
        "{}",
        outcome.describe()
    );
    assert!(status["candidates"].is_array(), "{}", outcome.describe());
}

#[test]
fn prune_keeps_the_newest_and_the_locked_version() {
    let env = TestEnv::new();
    env.publish("2.15.1", &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", "2.15.1");
    let locked_at_2_15_1 = std::fs::read(env.kiro_lock()).expect("kiro.lock");
    for version in ["2.16.0", "2.17.0"] {
        env.publish(version, &[Format::TarGz]);
        assert_prepared(&env.prepare(&[]), "managed", version);
    }
    // The project still pins 2.15.1.
    std::fs::write(env.kiro_lock(), locked_at_2_15_1).expect("restore kiro.lock");

    let outcome = env.run(&["adapter", "prune", "kiro", "--keep", "1"]);
    outcome.assert_success();
    let mut left: Vec<String> = std::fs::read_dir(env.versions_dir())
        .expect("versions")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["2.15.1", "2.17.0"],
        "keep the newest and the locked version\n{}",
        outcome.describe()
    );
    env.assert_no_leftovers();
    assert!(
        env.install_lock().exists(),
        "the lock file is never deleted"
    );
}

#[test]
fn offline_locked_without_kiro_lock_is_still_a_config_error() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
    std::fs::remove_file(env.kiro_lock()).expect("remove kiro.lock");
    let requests = env.server.total_hits();
    env.prepare(&["--offline", "--locked"])
        .assert_error(3, "config");
    assert_eq!(
        env.server.total_hits(),
        requests,
        "--offline made a request"
    );
}

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
fn a_downloaded_binary_failing_its_probe_is_not_published() {
    use crate::support::archive::{self, Entry};
    use crate::support::server::Route;
    let env = TestEnv::new();
    // The archive verifies, but its kiro-cli does not speak ACP.
    let mut entries: Vec<Entry> = archive::kiro_entries(VERSION)
        .into_iter()
        .filter(|entry| entry.path() != "kirocli/bin/kiro-cli")
        .collect();
    entries.push(Entry::file(
        "kirocli/bin/kiro-cli",
        0o755,
        format!("#!/bin/sh\ncase \"$1\" in\n  --version) echo 'kiro-cli {VERSION}' ;;\n  *) echo 'no acp here' >&2; exit 2 ;;\nesac\n"),
    ));
    let artifact = Artifact::new(
        VERSION,
        Format::TarGz,
        Libc::Gnu,
        archive::pack(Format::TarGz, &entries),
    );
    env.server.route(
        &artifact.server_path,
        Route::Ok(artifact.bytes.clone().into()),
    );
    env.serve_manifest(&crate::support::manifest::document(
        VERSION,
        std::slice::from_ref(&artifact.entry),
    ));
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(
        message.contains("acp --help"),
        "the failed probe is named\n{}",
        outcome.describe()
    );
    assert!(
        message.contains("no acp here"),
        "its stderr is shown\n{}",
        outcome.describe()
    );
    env.assert_nothing_published(VERSION);
    env.assert_no_leftovers();

    // A good archive for the same version then installs.
    let good = Artifact::new(
        VERSION,
        Format::TarGz,
        Libc::Gnu,
        archive::kiro_archive(Format::TarGz, VERSION),
    );
    env.server
        .route(&good.server_path, Route::Ok(good.bytes.clone().into()));
    env.serve_manifest(&crate::support::manifest::document(
        VERSION,
        std::slice::from_ref(&good.entry),
    ));
    assert_prepared(&env.prepare(&[]), "managed", VERSION);
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

#[test]
fn dmg_and_msi_packages_are_not_supported_on_this_host_yet() {
    for file_type in ["dmg", "msi", "appImage"] {
        let mut env = TestEnv::new();
        let release = env.stage_release(VERSION, &[Format::TarGz]);
        let mut entry = release.gnu(Format::TarGz).entry.clone();
        let download = format!("{VERSION}/kirocli.{file_type}");
        entry["fileType"] = serde_json::json!(file_type);
        entry["download"] = serde_json::json!(download);
        env.serve_manifest(&crate::support::manifest::document(VERSION, &[entry]));
        env.set_env("ONEWORKS_KIRO_FORMATS", file_type);
        let outcome = env.prepare(&[]);
        let message = outcome.assert_error(7, "no_usable_cli");
        assert_eq!(
            message,
            format!("installing a `{file_type}` package is not supported on this host yet (selected `{download}`)")
        );
        assert_eq!(
            outcome.json()["error"]["hint"],
            "install Kiro CLI with its own installer and use `source: system`"
        );
        assert_eq!(env.server.total_hits(), 1, "only the manifest was fetched");
        env.assert_nothing_published(VERSION);
    }
}

#[test]
fn a_corrupt_kiro_lock_is_a_config_error_with_a_hint() {
    let env = TestEnv::new();
    env.publish(VERSION, &[Format::TarGz]);
    std::fs::write(env.kiro_lock(), "{ not json").expect("corrupt kiro.lock");
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(3, "config");
    assert!(
        message.starts_with(&format!(
            "`{}` is not a valid kiro.lock: ",
            env.kiro_lock().display()
        )),
        "{}",
        outcome.describe()
    );
    assert_eq!(
        outcome.json()["error"]["hint"],
        format!(
            "fix or delete `{}`; `oneworks adapter prepare kiro` writes it again",
            env.kiro_lock().display()
        )
    );
    assert_eq!(env.server.total_hits(), 0);
    assert_eq!(
        std::fs::read_to_string(env.kiro_lock()).expect("kiro.lock"),
        "{ not json",
        "left as it was"
    );
    env.assert_nothing_published(VERSION);
}
