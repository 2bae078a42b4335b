//! Launch resolution, called in-process the way `adapter login`,
//! `run` and `session start` call it: with a usable version installed it
//! makes no request at all (the local server counts every hit); with none
//! installed it prepares first; a broken install is refused.

use std::path::Path;

use oneworks::cli::{AdapterCommand, AdapterName, Command, GlobalArgs};
use oneworks::config::SourceKind;
use oneworks::env_options::environment::Environment;
use oneworks::error::{Error, ErrorKind};
use oneworks::launch::resolve::{resolve_for_launch, ResolvedCli};
use oneworks::settings::Settings;

use crate::support::archive::Format;
use crate::support::TestEnv;

/// `resolve_for_launch` with exactly the environment `env.oneworks()` gives
/// the binary, in the project folder.
fn launch(env: &TestEnv) -> Result<ResolvedCli, Error> {
    let pairs: Vec<(String, String)> = env
        .oneworks()
        .environment()
        .into_iter()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect();
    let global = GlobalArgs {
        config: None,
        quiet: true,
        verbose: 0,
        no_progress: true,
    };
    // `adapter login` resolves its CLI as every launch does.
    let login = Command::Adapter(AdapterCommand::Login {
        adapter: AdapterName("kiro".to_owned()),
        session: "default".to_owned(),
    });
    let settings = Settings::resolve_in(
        Environment::from_pairs(pairs),
        &env.project,
        &global,
        &login,
    )?;
    Ok(resolve_for_launch(&oneworks::commands::resolver(
        settings.adapter()?,
    ))?)
}

fn installed(env: &TestEnv, version: &str) -> ResolvedCli {
    let release = env.publish(version, &[Format::TarGz]);
    let document = env.prepare(&[]).assert_success().json();
    ResolvedCli {
        source: SourceKind::Managed,
        version: version.to_owned(),
        path: env.managed_binary(version),
        sha256: Some(release.gnu(Format::TarGz).sha256.clone()),
        reused: document["reused"].as_bool() == Some(true),
        runtime_path: None,
    }
}

#[test]
fn an_installed_version_is_used_without_any_request() {
    let env = TestEnv::new();
    let expected = installed(&env, "2.15.1");
    let before = env.server.total_hits();
    let resolved = launch(&env).expect("launch resolution");
    assert_eq!(
        resolved,
        ResolvedCli {
            reused: true,
            runtime_path: None,
            ..expected
        }
    );
    assert_eq!(env.server.total_hits(), before, "no request at all");
}

#[test]
fn with_nothing_installed_launch_prepares_first() {
    let env = TestEnv::new();
    let release = env.publish("2.15.1", &[Format::TarGz]);
    let resolved = launch(&env).expect("launch resolution");
    assert_eq!(
        resolved,
        ResolvedCli {
            source: SourceKind::Managed,
            version: "2.15.1".to_owned(),
            path: env.managed_binary("2.15.1"),
            sha256: Some(release.gnu(Format::TarGz).sha256.clone()),
            reused: false,
            runtime_path: None,
        }
    );
    assert_eq!(env.manifest_hits(), 1);
    assert_eq!(release.artifact_hits(&env.server), 1);
    assert!(env.kiro_lock().is_file(), "the prepare wrote kiro.lock");
}

#[test]
fn the_locked_version_wins_else_the_newest_installed() {
    let env = TestEnv::new();
    installed(&env, "2.15.1");
    let old_pin = std::fs::read(env.kiro_lock()).expect("kiro.lock of 2.15.1");
    installed(&env, "2.16.0");
    let before = env.server.total_hits();
    // kiro.lock now records 2.16.0.
    assert_eq!(launch(&env).expect("launch").version, "2.16.0");
    std::fs::write(env.kiro_lock(), &old_pin).expect("pin 2.15.1");
    assert_eq!(launch(&env).expect("launch").version, "2.15.1");
    // A pinned version that is not installed: the newest installed one.
    let pinned_elsewhere = String::from_utf8(old_pin)
        .expect("utf-8")
        .replace("2.15.1", "2.17.0");
    std::fs::write(env.kiro_lock(), pinned_elsewhere).expect("pin 2.17.0");
    assert_eq!(launch(&env).expect("launch").version, "2.16.0");
    std::fs::remove_file(env.kiro_lock()).expect("no pin");
    assert_eq!(launch(&env).expect("launch").version, "2.16.0");
    assert_eq!(env.server.total_hits(), before, "no request at all");
}

/// What a broken managed binary is replaced with.
pub const BROKEN: &str = "#!/bin/sh\nexit 1\n";

/// Replaces the managed binary `binary` with [`BROKEN`].
pub fn break_binary(binary: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::remove_file(binary).expect("remove the binary");
    std::fs::write(binary, BROKEN).expect("write the broken binary");
    std::fs::set_permissions(binary, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn a_broken_install_is_refused_not_reused() {
    let env = TestEnv::new();
    installed(&env, "2.15.1");
    let binary = env.managed_binary("2.15.1");
    break_binary(&binary);
    let before = env.server.total_hits();
    let error = launch(&env).expect_err("a broken install must not be used");
    assert_eq!(error.kind(), ErrorKind::NoUsableCli);
    assert_eq!(
        error.message(),
        format!(
            "the installed `kiro-cli` 2.15.1 at `{}` is broken: its binary changed since it was installed ({} bytes, recorded {}), and it fails its probe: `--version` exited with status 1",
            binary.display(),
            BROKEN.len(),
            crate::support::archive::kiro_script("2.15.1").len()
        )
    );
    assert_eq!(
        error.hint(),
        Some("reinstall it with `oneworks adapter prepare kiro --force`")
    );
    assert_eq!(env.server.total_hits(), before, "no request at all");
}

#[test]
fn the_system_source_is_probed_like_prepare_without_any_request() {
    let env = TestEnv::new();
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
    let kiro = crate::support::fake::install_fake(
        &env.bin,
        "kiro-cli",
        &crate::support::fake::kiro_script("2.15.1"),
    );
    let resolved = launch(&env).expect("launch resolution");
    assert_eq!(
        resolved,
        ResolvedCli {
            source: SourceKind::System,
            version: "2.15.1".to_owned(),
            path: kiro,
            sha256: None,
            reused: true,
            runtime_path: None,
        }
    );
    assert_eq!(env.server.total_hits(), 0);
}

#[test]
fn a_symlinked_dot_oneworks_is_refused_by_launch_too() {
    let env = TestEnv::new();
    installed(&env, "2.15.1");
    let elsewhere = env.outside.join("dot-oneworks");
    let dot = env.project.join(".oneworks");
    std::fs::rename(&dot, &elsewhere).expect("move .oneworks");
    std::os::unix::fs::symlink(&elsewhere, &dot).expect("symlink");
    let error = launch(&env).expect_err("refused");
    assert_eq!(error.kind(), ErrorKind::UnsafeArchive);
    assert_eq!(
        error.message(),
        format!(
            "refusing to use `{}`: it is a symbolic link (oneworks never follows links inside its managed folders)",
            dot.display()
        )
    );
}
