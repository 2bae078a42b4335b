//! Test support: a private world per test (temp HOME, XDG folders,
//! `ONEWORKS_HOME`, a project with `.oneworks/`, a local manifest server)
//! and helpers to run the real `oneworks` binary in it with a deadline.

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

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use archive::Format;
use manifest::Libc;
use server::{Route, Server};

pub const ONEWORKS: &str = env!("CARGO_BIN_EXE_oneworks");

/// How long one `oneworks` run may take before the test gives up on it.
/// Generous: a loaded 2-core machine, retries with backoff.
pub const RUN_DEADLINE: Duration = Duration::from_secs(180);

/// The path of the stable manifest on the test server.
pub const MANIFEST_PATH: &str = "/stable/latest/manifest.json";

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
            .prefix("ow-it-")
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

    /// `oneworks ARGS` with a cleared, fully controlled environment, run in
    /// the project folder.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut command = Command::new(ONEWORKS);
        command
            .args(args)
            .env_clear()
            .env("HOME", &self.home)
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", self.bin.to_string_lossy()),
            )
            .env("LANG", "C.UTF-8")
            .env("XDG_CONFIG_HOME", &self.config_home)
            .env("XDG_DATA_HOME", &self.data_home)
            .env("XDG_CACHE_HOME", &self.cache_home)
            .env("XDG_RUNTIME_DIR", &self.runtime_dir)
            .env("ONEWORKS_HOME", &self.oneworks_home)
            .env("ONEWORKS_CACHE_DIR", &self.cache)
            .env("ONEWORKS_KIRO_MANIFEST_URL", self.manifest_url())
            // No test reaches nodejs.org: a managed Node comes from here.
            .env("ONEWORKS_NODE_MIRROR", self.server.url(node_mirror::PREFIX))
            .env("ONEWORKS_LOCK_TIMEOUT", "120")
            .envs(&self.env)
            .current_dir(&self.project)
            .stdin(Stdio::null());
        command
    }

    pub fn run(&self, args: &[&str]) -> Outcome {
        run(self.cmd(args))
    }

    /// Runs oneworks with a terminal on its standard streams (through
    /// util-linux `script`, which gives the child a pty): stdout and stderr
    /// arrive merged in `stdout`.
    pub fn run_on_terminal(&self, args: &[&str]) -> Outcome {
        run(self.terminal_cmd(args))
    }

    /// The command [`run_on_terminal`](Self::run_on_terminal) runs.
    pub fn terminal_cmd(&self, args: &[&str]) -> Command {
        self.terminal_shell(&oneworks_line(args))
    }

    /// A shell `line` run on a pseudo-terminal (util-linux `script`) with
    /// this environment; `script` exits with the line's exit code.
    pub fn terminal_shell(&self, line: &str) -> Command {
        let mut command = self.cmd(&[]);
        let mut script = Command::new("script");
        script
            .args(["-qefc", line, "/dev/null"])
            .env_clear()
            .envs(command.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .env("SHELL", "/bin/sh")
            .current_dir(command.get_current_dir().unwrap_or(&self.project))
            .stdin(Stdio::null());
        // `command` only served as the template of the environment.
        command.stdin(Stdio::null());
        script
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

    /// Writes the project's config as a file the person trusted (SPEC
    /// §2.1): the trust record `oneworks config trust` would make is
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

/// The state letter of `pid` in `/proc/PID/stat` (`R`, `S`, `T`, `Z`…),
/// `None` when there is no such process.
fn process_state(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The state follows the command's closing parenthesis.
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().next().map(str::to_owned)
}

/// Whether `pid` runs (a zombie does not).
pub fn alive(pid: u32) -> bool {
    process_state(pid).is_some_and(|state| state != "Z")
}

/// Whether `pid` is stopped (SIGSTOP).
pub fn stopped(pid: u32) -> bool {
    process_state(pid).is_some_and(|state| state == "T")
}

/// Sends `signal` (`-INT`, `-STOP`, `-CONT`…) to `pid`.
pub fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill {signal} {pid}");
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
                let _ = self
                    .cmd(&["session", "stop", &name])
                    .stdin(Stdio::null())
                    .output();
            }
        }
    }
}

/// One served artifact.
#[derive(Debug, Clone)]
pub struct Artifact {
    pub format: Format,
    pub libc: Libc,
    pub bytes: Vec<u8>,
    pub sha256: String,
    /// Path on the server: `/stable/<download>`.
    pub server_path: String,
    pub entry: Value,
}

impl Artifact {
    pub fn new(version: &str, format: Format, libc: Libc, bytes: Vec<u8>) -> Artifact {
        let entry = manifest::entry(version, format, libc, &bytes);
        Artifact {
            format,
            libc,
            sha256: manifest::sha256_hex(&bytes),
            server_path: format!("/stable/{}", manifest::download_path(version, format, libc)),
            bytes,
            entry,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Release {
    pub version: String,
    pub artifacts: Vec<Artifact>,
}

impl Release {
    pub fn artifact(&self, format: Format, libc: Libc) -> &Artifact {
        self.artifacts
            .iter()
            .find(|artifact| artifact.format == format && artifact.libc == libc)
            .expect("artifact of this release")
    }

    /// The gnu artifact of `format` (what a glibc host installs).
    pub fn gnu(&self, format: Format) -> &Artifact {
        self.artifact(format, Libc::Gnu)
    }

    pub fn entries(&self) -> Vec<Value> {
        self.artifacts
            .iter()
            .map(|artifact| artifact.entry.clone())
            .collect()
    }

    /// The manifest document: this release's entries and foreign ones.
    pub fn manifest(&self) -> Vec<u8> {
        let mut packages = self.entries();
        packages.extend(manifest::foreign_entries(&self.version));
        manifest::document(&self.version, &packages)
    }

    /// Requests for any artifact of this release.
    pub fn artifact_hits(&self, server: &Server) -> usize {
        self.artifacts
            .iter()
            .map(|artifact| server.hits(&artifact.server_path))
            .sum()
    }
}

/// What a finished `oneworks` run left.
#[derive(Debug)]
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    pub fn describe(&self) -> String {
        format!(
            "exit code {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Outcome {
        assert_eq!(
            self.code,
            Some(code),
            "expected exit code {code}\n{}",
            self.describe()
        );
        self
    }

    #[track_caller]
    pub fn assert_success(&self) -> &Outcome {
        self.assert_code(0)
    }

    /// stdout as one JSON document.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|error| {
            panic!(
                "stdout is not one JSON document ({error})\n{}",
                self.describe()
            )
        })
    }

    /// Asserts a `--json` failure: exit `code`, `{"error":{"kind":KIND,…}}`
    /// on stdout with a non-empty message; returns the message.
    #[track_caller]
    pub fn assert_error(&self, code: i32, kind: &str) -> String {
        self.assert_code(code);
        let document = self.json();
        let error = document
            .get("error")
            .unwrap_or_else(|| panic!("no `error` object\n{}", self.describe()));
        assert_eq!(
            error.get("kind").and_then(Value::as_str),
            Some(kind),
            "error kind\n{}",
            self.describe()
        );
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("error without a message\n{}", self.describe()));
        assert!(
            !message.trim().is_empty(),
            "empty error message\n{}",
            self.describe()
        );
        assert!(
            !self.stderr.trim().is_empty(),
            "a --json failure also prints the human message on stderr\n{}",
            self.describe()
        );
        message.to_owned()
    }

    /// The error message and hint plus stderr, for checks on fragments
    /// that may be in either.
    pub fn all_text(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// A started `oneworks` whose output is collected in the background.
pub struct Running {
    child: Child,
    stdout: mpsc::Receiver<Vec<u8>>,
    stderr: mpsc::Receiver<Vec<u8>>,
}

impl Running {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL (what `Child::kill` sends on Unix) and reap.
    pub fn kill(mut self) -> Outcome {
        let _ = self.child.kill();
        self.finish()
    }

    pub fn wait(self) -> Outcome {
        self.wait_for(RUN_DEADLINE)
    }

    pub fn wait_for(mut self, deadline: Duration) -> Outcome {
        let start = Instant::now();
        loop {
            match self.child.try_wait().expect("try_wait") {
                Some(_) => return self.finish(),
                None if start.elapsed() > deadline => {
                    let _ = self.child.kill();
                    let outcome = self.finish();
                    panic!(
                        "oneworks did not finish within {deadline:?}\n{}",
                        outcome.describe()
                    );
                }
                None => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }

    fn finish(mut self) -> Outcome {
        let status = self.child.wait().expect("wait");
        // A grandchild that kept the pipe open must not hang the test.
        let collect = |receiver: &mpsc::Receiver<Vec<u8>>| {
            receiver
                .recv_timeout(Duration::from_secs(10))
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .unwrap_or_else(|_| "<output not closed within 10 s>".to_owned())
        };
        Outcome {
            code: status.code(),
            stdout: collect(&self.stdout),
            stderr: collect(&self.stderr),
        }
    }
}

pub fn spawn(mut command: Command) -> Running {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().expect("spawn oneworks");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            let _ = sender.send(bytes);
        });
        receiver
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout pipe")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr pipe")));
    Running {
        child,
        stdout,
        stderr,
    }
}

/// Quotes one word for `sh -c`.
pub fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

pub fn run(command: Command) -> Outcome {
    spawn(command).wait()
}

pub fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Every path under `dir` (not following symlinks), `dir` excluded.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().map(|kind| kind.is_dir()).unwrap_or(false) {
                pending.push(path.clone());
            }
            found.push(path);
        }
    }
    found.sort();
    found
}

#[track_caller]
pub fn assert_empty_or_missing(dir: &Path, what: &str) {
    let left = walk(dir);
    assert!(
        left.is_empty(),
        "{what} ({}) must hold nothing, holds {left:#?}",
        dir.display()
    );
}

/// Like `assert_empty_or_missing` but tolerates empty folders.
#[track_caller]
pub fn assert_no_files(dir: &Path, what: &str) {
    let left: Vec<PathBuf> = walk(dir)
        .into_iter()
        .filter(|path| {
            std::fs::symlink_metadata(path)
                .map(|meta| !meta.is_dir())
                .unwrap_or(false)
        })
        .collect();
    assert!(
        left.is_empty(),
        "{what} ({}) must hold no files, holds {left:#?}",
        dir.display()
    );
}

/// The `prepare --json` success document, checked for the SPEC §1.3 shape.
#[track_caller]
pub fn assert_prepared(outcome: &Outcome, source: &str, version: &str) -> Value {
    outcome.assert_success();
    let document = outcome.json();
    let text = |field: &str| {
        document
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("`{field}` missing or not a string\n{}", outcome.describe()))
            .to_owned()
    };
    assert_eq!(text("adapter"), "kiro", "{}", outcome.describe());
    assert_eq!(text("source"), source, "{}", outcome.describe());
    assert_eq!(text("version"), version, "{}", outcome.describe());
    let path = PathBuf::from(text("path"));
    assert!(
        path.is_absolute(),
        "path must be absolute\n{}",
        outcome.describe()
    );
    assert!(
        document.get("reused").and_then(Value::as_bool).is_some(),
        "`reused` missing or not a boolean\n{}",
        outcome.describe()
    );
    if source == "managed" {
        let sha = text("sha256");
        assert!(
            sha.len() == 64 && sha.chars().all(|c| c.is_ascii_hexdigit()),
            "sha256 must be 64 hex digits\n{}",
            outcome.describe()
        );
    } else {
        assert!(
            document.get("sha256").is_none_or(Value::is_null),
            "sha256 is for managed installs only\n{}",
            outcome.describe()
        );
    }
    document
}

pub fn reused(document: &Value) -> bool {
    document
        .get("reused")
        .and_then(Value::as_bool)
        .expect("reused")
}

pub fn path_of(document: &Value) -> PathBuf {
    PathBuf::from(document.get("path").and_then(Value::as_str).expect("path"))
}

/// Runs `binary ARGS` and returns its stdout (for "the installed binary
/// answers `--version`").
pub fn run_binary(binary: &Path, args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(binary)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|error| panic!("run {}: {error}", binary.display()));
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// `oneworks ARGS…` as one shell line, every word quoted.
pub fn oneworks_line(args: &[&str]) -> String {
    std::iter::once(ONEWORKS)
        .chain(args.iter().copied())
        .map(shell_quote)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Collects everything `child` writes on its (piped) stdout, as it comes,
/// on a thread of its own.
pub fn capture_stdout(
    child: &mut std::process::Child,
) -> std::sync::Arc<std::sync::Mutex<Vec<u8>>> {
    use std::io::Read;
    let mut stdout = child.stdout.take().expect("stdout piped");
    let output = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&output);
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(read) = stdout.read(&mut buffer) {
            if read == 0 {
                break;
            }
            sink.lock()
                .expect("lock")
                .extend_from_slice(&buffer[..read]);
        }
    });
    output
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
