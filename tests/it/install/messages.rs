//! The human text of installer failures, as a user reads it on stderr
//! (insta snapshots; temp paths, ports, digests and the host filtered).

use crate::support::archive::{self, Format};
use crate::support::manifest::{self, Libc};
use crate::support::server::Route;
use crate::support::{Artifact, Outcome, TestEnv};

const VERSION: &str = "2.15.1";

fn human_prepare(env: &TestEnv, extra: &[&str]) -> Outcome {
    let mut args = vec!["adapter", "prepare", "kiro"];
    args.extend_from_slice(extra);
    env.run(&args)
}

fn filters() -> Vec<(&'static str, &'static str)> {
    vec![
        crate::support::TEMP_FOLDER_FILTER,
        (r"127\.0\.0\.1:[0-9]+", "[SERVER]"),
        (r"\b[0-9a-f]{64}\b", "[SHA256]"),
        (r"(x86_64|aarch64)", "[ARCH]"),
        (r"\(glibc [0-9.]+\)|\(musl\)", "([LIBC])"),
    ]
}

#[test]
fn human_installer_errors() {
    // A checksum mismatch.
    let env = TestEnv::new();
    let good = archive::kiro_archive(Format::TarGz, VERSION);
    let artifact = Artifact::new(VERSION, Format::TarGz, Libc::Gnu, good);
    env.server.route(
        &artifact.server_path,
        Route::Ok(artifact.bytes.clone().into()),
    );
    let damaged = manifest::with_field(
        &artifact.entry,
        "sha256",
        Some(serde_json::json!(manifest::sha256_hex(b"another file"))),
    );
    env.serve_manifest(&manifest::document(VERSION, &[damaged]));
    let checksum = human_prepare(&env, &[]);
    checksum.assert_code(5);

    // Nothing installed and --offline.
    let offline = human_prepare(&TestEnv::new(), &["--offline"]);
    offline.assert_code(7);

    // No package for this host.
    let env = TestEnv::new();
    env.serve_manifest(&manifest::document(
        VERSION,
        &manifest::foreign_entries(VERSION),
    ));
    let no_package = human_prepare(&env, &[]);
    no_package.assert_code(7);

    insta::with_settings!({ filters => filters() }, {
        insta::assert_snapshot!("checksum_mismatch", checksum.stderr);
        insta::assert_snapshot!("offline_miss", offline.stderr);
        insta::assert_snapshot!("no_package", no_package.stderr);
    });
}
