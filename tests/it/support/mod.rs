//! Test support: a private world per test ([`TestEnv`]: temp HOME, XDG
//! folders, `ONEWORKS_HOME`, a project with `.oneworks/`, a local manifest
//! server) and the one way a test runs the real `oneworks` binary in it:
//! `env.oneworks().args([..]).env(k, v).stdin(bytes).run()` ([`Invocation`]
//! in `invocation`), which owns the environment every command of the test
//! gets and returns an [`Outcome`] with typed assertions (`assert_code`,
//! `assert_error`, `assert_stderr_contains`, `json`…); `.start()` and
//! `.spawn()` for a command that keeps running, `.terminal()` for one on a
//! pseudo-terminal. The per-feature harnesses (`AcpEnv`, `Session`,
//! `Serve`…) are thin layers that build their commands through it.
//!
//! This file holds the world; beside it, each helper by concern:
//! `invocation` (the builder), `process` (a started process, signalling
//! one), `outcome` (what a run left), `release` (a served Kiro release),
//! `prepared` (the `prepare --json` document), `files` (folders left
//! behind); every item is re-exported here, so tests name them
//! `crate::support::…`.

pub mod adapter_yaml;
pub mod archive;
pub mod fake;
pub mod fake_model;
pub mod heavy;
pub mod manifest;
pub mod node_mirror;
pub mod npm_registry;
pub mod server;
pub mod wait;

mod files;
mod invocation;
mod outcome;
mod prepared;
mod process;
mod release;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use archive::Format;
use manifest::Libc;
use server::{Route, Server};

pub use files::{assert_empty_or_missing, assert_no_files, set_mode, walk};
pub use invocation::Invocation;
pub use outcome::Outcome;
pub use prepared::{assert_prepared, path_of, reused};
pub use process::{
    alive, capture_stdout, oneworks_line, run_binary, shell_quote, signal, stopped, Running,
};
pub use release::{Artifact, Release};

pub const ONEWORKS: &str = env!("CARGO_BIN_EXE_oneworks");

/// How long one `oneworks` run may take before the test gives up on it.
/// Generous: a loaded 2-core machine, retries with backoff.
pub const RUN_DEADLINE: Duration = Duration::from_secs(180);

/// The path of the stable manifest on the test server.
pub const MANIFEST_PATH: &str = "/stable/latest/manifest.json";

/// An insta filter for a test's folder (`TestEnv::new`'s `ow-it-` temp
/// folder) under whatever temporary directory the run uses.
pub const TEMP_FOLDER_FILTER: (&str, &str) = (r"(?:/[\w.-]+)*/ow-it-[A-Za-z0-9]+", "[TEMP]");

pub struct TestEnv {
    /// Owns the temp folder: everything below is removed on drop.
    _temp: tempfile::TempDir,
    pub server: Server,
    pub home: PathBuf,
    pub bin: PathBuf,
    pub project: PathBuf,
    pub oneworks_home: PathBuf,
    pub cache: PathBuf,
    pub config_home: PathBuf,
    pub data_home: PathBuf,
    pub cache_home: PathBuf,
    pub runtime_dir: PathBuf,
    /// An absolute folder outside every managed path (attack target).
    pub outside: PathBuf,
    /// Extra variables for every command (e.g. `ONEWORKS_KIRO_FORMATS`).
    pub env: BTreeMap<String, String>,
}

impl TestEnv {
    pub fn new() -> TestEnv {
        let root = tempfile::Builder::new()
            .prefix("ow-it-") // TEMP_FOLDER_FILTER matches it
            .tempdir()
            .expect("temp dir");
        // Canonical, so paths printed by oneworks compare equal.
        let base = root.path().canonicalize().expect("canonical temp dir");
        let folder = |name: &str| {
            let path = base.join(name);
            std::fs::create_dir_all(&path).expect("create test folder");
            path
        };
        let project = folder("project");
        std::fs::create_dir_all(project.join(".oneworks")).expect("create .oneworks");
        let runtime_dir = folder("runtime");
        set_mode(&runtime_dir, 0o700);
        let outside = folder("outside");
        std::fs::write(outside.join("secret"), "secret\n").expect("write secret");
        TestEnv {
            server: Server::start(),
            home: folder("home"),
            bin: folder("bin"),
            project,
            oneworks_home: base.join("oneworks-home"),
            cache: base.join("cache"),
            config_home: folder("xdg-config"),
            data_home: folder("xdg-data"),
            cache_home: folder("xdg-cache"),
            runtime_dir,
            outside,
            env: BTreeMap::new(),
            _temp: root,
        }
    }

    pub fn base(&self) -> PathBuf {
        self.home.parent().expect("base").to_path_buf()
    }

    pub fn manifest_url(&self) -> String {
        self.server.url(MANIFEST_PATH)
    }

    pub fn set_env(&mut self, name: &str, value: &str) {
        self.env.insert(name.to_owned(), value.to_owned());
    }

    /// Only this format is acceptable to the installer.
    pub fn force_format(&mut self, format: Format) {
        self.set_env("ONEWORKS_KIRO_FORMATS", format.file_type());
    }

    /// `adapter prepare kiro --json EXTRA…`.
    pub fn prepare(&self, extra: &[&str]) -> Outcome {
        let mut args = vec!["adapter", "prepare", "kiro", "--json"];
        args.extend_from_slice(extra);
        self.run(&args)
    }

    /// `adapter status kiro --json`.
    pub fn status(&self) -> Outcome {
        self.run(&["adapter", "status", "kiro", "--json"])
    }

    pub fn config_path(&self) -> PathBuf {
        self.project.join(".oneworks").join("config.yaml")
    }

    /// Writes the project's config as a file the person trusted:
    /// the trust record `oneworks config trust` would make is
    /// written beside it, so every key applies.
    pub fn write_config(&self, yaml: &str) {
        self.write_untrusted_config(yaml);
        let real = self.config_path().canonicalize().expect("real config path");
        let record = serde_json::json!({
            "version": 1,
            "path": real,
            "sha256": manifest::sha256_hex(yaml.as_bytes()),
            "trustedAt": "2026-01-01T00:00:00Z",
        });
        let dir = self.oneworks_home.join("trusted-configs");
        std::fs::create_dir_all(&dir).expect("create trust folder");
        std::fs::write(
            dir.join(format!(
                "{}.json",
                manifest::sha256_hex(real.as_os_str().as_encoded_bytes())
            )),
            record.to_string(),
        )
        .expect("write trust record");
    }

    /// Writes the project's config as it arrives with a clone: untrusted.
    pub fn write_untrusted_config(&self, yaml: &str) {
        std::fs::write(self.config_path(), yaml).expect("write config");
    }

    pub fn kiro_lock(&self) -> PathBuf {
        self.project.join(".oneworks").join("kiro.lock")
    }

    /// `$ONEWORKS_HOME/adapters/kiro`.
    pub fn kiro_root(&self) -> PathBuf {
        self.oneworks_home.join("adapters").join("kiro")
    }

    pub fn versions_dir(&self) -> PathBuf {
        self.kiro_root().join("versions")
    }

    pub fn version_dir(&self, version: &str) -> PathBuf {
        self.versions_dir().join(version)
    }

    pub fn staging_dir(&self) -> PathBuf {
        self.kiro_root().join(".staging")
    }

    pub fn install_lock(&self) -> PathBuf {
        self.kiro_root().join(".install.lock")
    }

    /// Where the managed binary of `version` lives.
    pub fn managed_binary(&self, version: &str) -> PathBuf {
        self.version_dir(version)
            .join("kirocli")
            .join("bin")
            .join("kiro-cli")
    }

    /// Builds a Kiro release `version` in `formats`, gnu and musl, serves
    /// every artifact and a manifest naming them (plus entries for other
    /// platforms that must be skipped).
    pub fn publish(&self, version: &str, formats: &[Format]) -> Release {
        let release = self.stage_release(version, formats);
        self.serve_manifest(&release.manifest());
        release
    }

    /// Like `publish`, but serves only the artifacts, not the manifest.
    pub fn stage_release(&self, version: &str, formats: &[Format]) -> Release {
        let mut artifacts = Vec::new();
        for &format in formats {
            for libc in [Libc::Gnu, Libc::Musl] {
                let mut entries = archive::kiro_entries(version);
                if libc == Libc::Musl {
                    entries.push(archive::Entry::file("kirocli/MUSL", 0o644, "musl build\n"));
                }
                let bytes = archive::pack(format, &entries);
                let artifact = Artifact::new(version, format, libc, bytes);
                self.server.route(
                    &artifact.server_path,
                    Route::Ok(artifact.bytes.clone().into()),
                );
                artifacts.push(artifact);
            }
        }
        Release {
            version: version.to_owned(),
            artifacts,
        }
    }

    pub fn serve_manifest(&self, document: &[u8]) {
        self.server.route(MANIFEST_PATH, Route::ok(document));
    }

    pub fn manifest_hits(&self) -> usize {
        self.server.hits(MANIFEST_PATH)
    }

    #[track_caller]
    /// Asserts that no version folder, staging content or zip spool was
    /// left behind by a failed install.
    pub fn assert_nothing_published(&self, version: &str) {
        let version_dir = self.version_dir(version);
        assert!(
            std::fs::symlink_metadata(&version_dir).is_err(),
            "{} must not exist after a failed install",
            version_dir.display()
        );
        if let Ok(entries) = std::fs::read_dir(self.versions_dir()) {
            let names: Vec<_> = entries.flatten().map(|entry| entry.file_name()).collect();
            assert!(
                names.is_empty(),
                "versions/ must be empty after a failed install, holds {names:?}"
            );
        }
        self.assert_no_leftovers();
    }

    /// No staging content and no zip spool remain.
    #[track_caller]
    pub fn assert_no_leftovers(&self) {
        assert_empty_or_missing(&self.staging_dir(), "the staging folder");
        assert_no_files(&self.cache, "the zip spool folder");
    }
}

impl Default for TestEnv {
    fn default() -> Self {
        TestEnv::new()
    }
}

impl TestEnv {
    /// Session `name`'s supervisor record
    /// (`.oneworks/sessions/<name>/supervisor.json`), when it is there, a
    /// regular file (a test may put a FIFO there: never waited on) and
    /// reads as JSON.
    pub fn session_record(&self, name: &str) -> Option<Value> {
        let path = self
            .project
            .join(".oneworks/sessions")
            .join(name)
            .join("supervisor.json");
        if !std::fs::symlink_metadata(&path).ok()?.is_file() {
            return None;
        }
        serde_json::from_slice(&std::fs::read(path).ok()?).ok()
    }
}

impl Drop for TestEnv {
    /// A test that ends early (a failed assertion, a timeout) leaves no
    /// session running: each session of the project whose supervisor or
    /// kept session owner is still alive gets `session stop`, its outcome
    /// ignored. Before, a
    /// failed real-agent TUI test left its tmux, its agent and its
    /// supervisor running for the rest of the test run, and after it.
    fn drop(&mut self) {
        let Ok(sessions) = std::fs::read_dir(self.project.join(".oneworks/sessions")) else {
            return;
        };
        for session in sessions.flatten() {
            let Some(name) = session.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            // A supervisor's record, or a kept session owner's.
            let kept = std::fs::read(session.path().join("kept.json"))
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
            let running = self
                .session_record(&name)
                .into_iter()
                .chain(kept)
                .filter_map(|record| record["pid"].as_u64())
                .filter_map(|pid| u32::try_from(pid).ok())
                .any(alive);
            if running {
                // Its outcome is ignored: a raw command, run to its end.
                let _ = self
                    .oneworks()
                    .args(["session", "stop", &name])
                    .command()
                    .output();
            }
        }
    }
}

/// A tool a test needs (Chromium, Node, tmux) is missing: the test FAILS
/// — CI must have it (`.ci/run` installs it) — unless
/// `ONEWORKS_TEST_ALLOW_SKIP` is set (a developer's machine), where it
/// returns after a loud note and the caller skips.
pub fn missing(what: &str) {
    let allowed = std::env::var_os("ONEWORKS_TEST_ALLOW_SKIP").is_some_and(|v| !v.is_empty());
    assert!(
        allowed,
        "{what} (`.ci/run` installs it; set ONEWORKS_TEST_ALLOW_SKIP=1 to skip such tests on a developer's machine)"
    );
    eprintln!("!!! SKIPPED (ONEWORKS_TEST_ALLOW_SKIP): {what} !!!");
}

#[test]
fn a_missing_tool_fails_the_test_unless_skipping_is_allowed() {
    let allowed = std::env::var_os("ONEWORKS_TEST_ALLOW_SKIP").is_some_and(|v| !v.is_empty());
    let outcome = std::panic::catch_unwind(|| missing("a tool this test made up is missing"));
    assert_eq!(
        outcome.is_err(),
        !allowed,
        "missing() must fail where skipping is not allowed"
    );
}
