//! The real agents, offline, through the binary: each
//! agent's real npm packages — fetched once per CI run by
//! `tests/fixtures/fetch.sh` into `target/test-cache/npm/` and
//! checked against the integrity its committed `package-lock.json` pins —
//! are served by a loopback npm registry (each document trimmed to the
//! versions the snapshot holds, its tarballs pointed at the loopback), and
//! talk to a loopback fake model API ([`FakeModel`]). The common turn:
//! `oneworks run <agent> --json` with a prompt whose model answer is a call
//! to the agent's own shell tool for `touch FILE`; the agent's real
//! `session/request_permission` is answered through `run`'s JSON reply
//! channel — allow-once: the file appears and the turn ends `end_turn`;
//! reject-once in a second turn: no file. The model saw the credential;
//! no file under the test's folders holds it.
//!
//! A missing cache FAILS the test with the command that fetches it.
//!
//! This file holds an agent's world ([`RealAgent`]) and the two turns every
//! agent must pass; beside it, `snapshot` (the pinned packages and their
//! loopback registry) and `turn` (one `run` turn driven), and a file per
//! agent.

mod claude;
pub mod codex;
mod copilot;
pub mod opencode;
mod qwen;

mod snapshot;
mod turn;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::fake_model::FakeModel;
use crate::support::server::Server;
use crate::support::TestEnv;

// `Package` stays nameable where it was before the split (tests reach it
// through `Snapshot::package`, none names it today).
#[allow(unused_imports)]
pub use snapshot::Package;
pub use snapshot::Snapshot;
pub use turn::Turn;

/// The credential every real-agent test hands the agent, by environment
/// only; it must reach the fake model and never a file.
pub const SECRET: &str = "sk-oneworks-offline-4f1c9a7e2b6d8053";

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `target/test-cache` (or `ONEWORKS_TEST_CACHE`).
pub fn cache_dir() -> PathBuf {
    match std::env::var_os("ONEWORKS_TEST_CACHE") {
        Some(dir) => PathBuf::from(dir),
        None => repo().join("target/test-cache"),
    }
}

/// Where the tests that need an agent installed, rather than a proof of
/// how it installs, keep it: [`RealAgent::sharing_installs`].
pub fn shared_installs() -> PathBuf {
    cache_dir().join("installs")
}

fn fetch_hint() -> String {
    format!(
        "run `bash tests/fixtures/fetch.sh` (`.ci/run` does) to fetch the real agents' packages into {}",
        cache_dir().display()
    )
}

/// The files (path, text) named `name` under `dir`, for assertions on
/// what oneworks materialized.
pub fn files_named(dir: &Path, name: &str) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => stack.push(path),
                Ok(kind) if kind.is_file() && entry.file_name() == name => {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    found.push((path, text));
                }
                _ => {}
            }
        }
    }
    found
}

#[test]
fn a_missing_cache_fails_with_the_command_that_fetches_it() {
    let empty = tempfile::tempdir().expect("temp dir");
    let failed = std::panic::catch_unwind(|| Snapshot::load_from("qwen", empty.path()).agent);
    let message = failed.expect_err("an empty cache must fail");
    let text = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        text.contains("tests/fixtures/fetch.sh") && text.contains("not in"),
        "{text}"
    );
}

/// One agent's world: the test env, the loopback registry serving its
/// snapshot, the fake model.
pub struct RealAgent {
    pub agent: &'static str,
    pub env: TestEnv,
    pub registry: Server,
    pub model: FakeModel,
}

impl RealAgent {
    /// A world for `agent` whose fake model calls the tool matching
    /// `shell_tool` (a regex over the whole name).
    pub fn new(agent: &'static str, shell_tool: &str) -> RealAgent {
        let snapshot = Snapshot::get(agent);
        let registry = Server::start();
        snapshot.serve(&registry);
        let mut env = TestEnv::new();
        env.set_env("ONEWORKS_NPM_REGISTRY", &registry.url("/"));
        let model = FakeModel::start(shell_tool, "touch never-asked.txt");
        RealAgent {
            agent,
            env,
            registry,
            model,
        }
    }

    /// Installs into [`shared_installs`] rather than this world's own
    /// folders (`ONEWORKS_HOME`: the managed installs and Node.js;
    /// `ONEWORKS_CACHE_DIR`: Node's code cache): the first test of a run
    /// that prepares the agent installs it, the next ones find it
    /// published — under oneworks' own install lock, which tests running
    /// at once meet as two people preparing together would. For the tests
    /// that need a prepared agent; each agent's own test of this module
    /// proves the download (the registry's hits) in folders of its own.
    pub fn sharing_installs(mut self) -> RealAgent {
        let shared = shared_installs();
        self.env.oneworks_home = shared.join("home");
        self.env.cache = shared.join("cache");
        self
    }

    /// The user's own config file (trusted).
    pub fn write_user_config(&self, yaml: &str) {
        let dir = self.env.config_home.join("oneworks");
        std::fs::create_dir_all(&dir).expect("config dir");
        std::fs::write(dir.join("config.yaml"), yaml).expect("write config");
    }

    /// `oneworks adapter prepare <agent> --json` from the loopback registry.
    pub fn prepare(&self) -> Value {
        let outcome = self.env.run(&["adapter", "prepare", self.agent, "--json"]);
        outcome.assert_success();
        outcome.json()
    }

    /// The two turns every real agent must pass: allow-once runs the real
    /// `touch`, reject-once leaves no file; the model got the credential;
    /// no file under the test's folders holds it.
    pub fn allow_then_reject(&self) {
        let allowed = "probe-allowed.txt";
        let turn = self.turn(allowed, "Allow once");
        let describe = |turn: &Turn| {
            format!(
                "{:?}\n{:#?}\nstderr:\n{}\nmodel:\n{}",
                turn.types(),
                turn.events,
                turn.stderr,
                self.model.describe()
            )
        };
        assert_eq!(
            turn.requests.len(),
            1,
            "one real permission request: {}",
            describe(&turn)
        );
        let request = turn.requests[0].to_string();
        assert!(request.contains(&format!("touch {allowed}")), "{request}");
        assert!(
            self.env.project.join(allowed).is_file(),
            "the allowed touch did not run: {}",
            describe(&turn)
        );
        assert_eq!(turn.stop_reason(), Some("end_turn"), "{}", describe(&turn));
        assert!(
            turn.text().contains(crate::support::fake_model::DONE_TEXT),
            "the model's closing text never arrived: {}",
            describe(&turn)
        );
        assert!(
            self.model.requests().iter().any(|r| r.carries(SECRET)),
            "the model never saw the credential:\n{}",
            self.model.describe()
        );

        let first = (turn.elapsed, turn.stopping);
        let rejected = "probe-rejected.txt";
        let turn = self.turn(rejected, "Reject once");
        assert_eq!(turn.requests.len(), 1, "{}", describe(&turn));
        assert!(
            turn.requests[0]
                .to_string()
                .contains(&format!("touch {rejected}")),
            "{}",
            describe(&turn)
        );
        assert!(
            !self.env.project.join(rejected).exists(),
            "a rejected touch ran: {}",
            describe(&turn)
        );
        assert!(
            matches!(turn.stop_reason(), Some("end_turn")),
            "{}",
            describe(&turn)
        );
        self.assert_no_file_holds_the_secret();
        eprintln!(
            "{}: allow-once turn (whole, stopping) {first:?}, reject-once turn {:?}; the model saw\n{}",
            self.agent,
            (turn.elapsed, turn.stopping),
            self.model.describe()
        );
    }

    /// Every file under the test's folders (homes, project, oneworks'
    /// data and caches) is read: none holds [`SECRET`].
    pub fn assert_no_file_holds_the_secret(&self) {
        let finder = memchr::memmem::Finder::new(SECRET.as_bytes());
        let mut stack = vec![self.env.base()];
        let mut seen = 0;
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    stack.push(path);
                } else if kind.is_file() {
                    seen += 1;
                    if let Ok(bytes) = std::fs::read(&path) {
                        assert!(
                            finder.find(&bytes).is_none(),
                            "{} holds the credential",
                            path.display()
                        );
                    }
                }
            }
        }
        assert!(seen > 0, "no files were looked at");
    }
}
