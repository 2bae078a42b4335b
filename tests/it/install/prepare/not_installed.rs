//! Downloads that are not installed: an archive whose binary fails its
//! probe is not published (a good one then installs), and package types
//! this host cannot install yet (dmg, msi, AppImage) are refused with a
//! hint.

use crate::support::archive::Format;
use crate::support::manifest::Libc;
use crate::support::{assert_prepared, Artifact, TestEnv};

use super::VERSION;

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
