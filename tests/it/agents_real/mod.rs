//! The real agents, offline, through the binary (issue 20 item 4): each
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

mod claude;
pub mod codex;
mod copilot;
pub mod opencode;
mod qwen;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use crate::support::fake_model::FakeModel;
use crate::support::npm_registry::sri;
use crate::support::server::{Route, Server};
use crate::support::TestEnv;

/// How long one turn of a real agent may take.
const TURN_DEADLINE: Duration = Duration::from_secs(180);

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

fn escaped(name: &str) -> String {
    name.replace('/', "%2f")
}

/// One package of a snapshot.
#[derive(Debug, Clone)]
pub struct Package {
    pub name: String,
    pub version: String,
    pub integrity: String,
    /// Its tarball, verified; `None` for a platform package of another host.
    pub tarball: Option<std::sync::Arc<[u8]>>,
}

/// An agent's pinned tree, as the cache holds it.
pub struct Snapshot {
    pub agent: String,
    /// The root package (the lock's one direct dependency).
    pub root: Package,
    pub packages: Vec<Package>,
    /// Registry documents by package name, as fetched.
    pub documents: BTreeMap<String, Value>,
}

impl Snapshot {
    /// The snapshot of `agent`, loaded and verified once per test run.
    /// Panics (the test FAILS) when the cache lacks it.
    pub fn get(agent: &'static str) -> &'static Snapshot {
        static ALL: OnceLock<Mutex<BTreeMap<&'static str, &'static Snapshot>>> = OnceLock::new();
        let all = ALL.get_or_init(|| Mutex::new(BTreeMap::new()));
        let mut all = all
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        all.entry(agent)
            .or_insert_with(|| Box::leak(Box::new(Snapshot::load(agent))))
    }

    fn load(agent: &str) -> Snapshot {
        Snapshot::load_from(agent, &cache_dir())
    }

    /// The snapshot of `agent` in the cache folder `cache`.
    fn load_from(agent: &str, cache: &Path) -> Snapshot {
        let lock_path = repo()
            .join("tests/fixtures/agents")
            .join(agent)
            .join("package-lock.json");
        let lock: Value = serde_json::from_slice(
            &std::fs::read(&lock_path).unwrap_or_else(|e| panic!("{}: {e}", lock_path.display())),
        )
        .expect("lock json");
        let npm = cache.join("npm");
        let complete = npm.join(format!("{agent}.complete"));
        assert!(
            complete.is_file(),
            "the real {agent} packages are not in {}: {}",
            npm.display(),
            fetch_hint()
        );
        let fetched = std::fs::read_to_string(&complete).expect("read the complete list");
        let packages_json = lock["packages"].as_object().expect("lock packages");
        let root_name = packages_json[""]["dependencies"]
            .as_object()
            .and_then(|deps| deps.keys().next().cloned())
            .expect("the lock's root dependency");
        let mut packages = Vec::new();
        let mut documents = BTreeMap::new();
        for (key, entry) in packages_json {
            if key.is_empty() {
                continue;
            }
            let name = entry["name"]
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| {
                    key.rsplit("node_modules/")
                        .next()
                        .expect("entry name")
                        .to_owned()
                });
            let version = entry["version"].as_str().expect("version").to_owned();
            let integrity = entry["integrity"].as_str().expect("integrity").to_owned();
            if !documents.contains_key(&name) {
                let path = npm
                    .join("documents")
                    .join(format!("{}.json", escaped(&name)));
                let bytes = std::fs::read(&path)
                    .unwrap_or_else(|_| panic!("{} is missing: {}", path.display(), fetch_hint()));
                let document: Value = serde_json::from_slice(&bytes).expect("document json");
                documents.insert(name.clone(), document);
            }
            let tarball = if fetched.lines().any(|l| l == format!("{name}@{version}")) {
                let path = npm
                    .join("tarballs")
                    .join(format!("{}-{version}.tgz", escaped(&name)));
                let bytes = std::fs::read(&path)
                    .unwrap_or_else(|_| panic!("{} is missing: {}", path.display(), fetch_hint()));
                let computed = sri(&bytes);
                assert_eq!(
                    computed,
                    integrity,
                    "{} is not {name}@{version}: {}",
                    path.display(),
                    fetch_hint()
                );
                Some(bytes.into())
            } else {
                None
            };
            packages.push(Package {
                name,
                version,
                integrity,
                tarball,
            });
        }
        let root = packages
            .iter()
            .find(|p| p.name == root_name)
            .cloned()
            .expect("the root package in the lock");
        assert!(root.tarball.is_some(), "the root package has no tarball");
        Snapshot {
            agent: agent.to_owned(),
            root,
            packages,
            documents,
        }
    }

    /// The package `name` of the snapshot.
    pub fn package(&self, name: &str) -> &Package {
        self.packages
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("{name} is not in the {} snapshot", self.agent))
    }

    /// Serves the snapshot on `server`: each document with its `versions`
    /// trimmed to the snapshot's (so oneworks' resolver sees a consistent
    /// registry), `dist.tarball` pointed at the loopback, `latest` the
    /// snapshot's version; each tarball this host needs.
    pub fn serve(&self, server: &Server) {
        for (name, document) in &self.documents {
            let present: Vec<&Package> = self.packages.iter().filter(|p| &p.name == name).collect();
            let mut versions = Map::new();
            for package in &present {
                let mut version = document["versions"][&package.version].clone();
                assert_eq!(
                    version["dist"]["integrity"],
                    package.integrity,
                    "{name}@{}: the cached document differs from the lock: {}",
                    package.version,
                    fetch_hint()
                );
                let base = name.rsplit('/').next().expect("base name");
                let path = format!("/{name}/-/{base}-{}.tgz", package.version);
                version["dist"]["tarball"] = json!(server.url(&path));
                versions.insert(package.version.clone(), version);
                if let Some(bytes) = &package.tarball {
                    server.route(&path, Route::Ok(bytes.clone()));
                }
            }
            let latest = present
                .iter()
                .filter_map(|p| semver::Version::parse(&p.version).ok())
                .max()
                .map(|v| v.to_string())
                .expect("a version");
            let trimmed = json!({
                "name": name,
                "dist-tags": {"latest": latest},
                "versions": versions,
            });
            server.route(
                &format!("/{}", escaped(name)),
                Route::ok(serde_json::to_vec(&trimmed).expect("document")),
            );
        }
    }

    /// Extracts the verified tarball of `name` into `dir` (its `package/`
    /// prefix dropped) and returns the folder: a `source: path` install
    /// made from the snapshot, without npm and without install scripts
    /// (for an agent whose package shape `adapter prepare` cannot install
    /// yet; every built-in agent is prepared today).
    #[allow(dead_code)]
    pub fn extract(&self, name: &str, dir: &Path) -> PathBuf {
        let package = self.package(name);
        let bytes = package.tarball.as_ref().expect("a tarball for this host");
        let target = dir.join(escaped(name));
        std::fs::create_dir_all(&target).expect("extract folder");
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
        for entry in archive.entries().expect("tar entries") {
            let mut entry = entry.expect("tar entry");
            let path = entry.path().expect("entry path").into_owned();
            let relative = path.strip_prefix("package").unwrap_or(&path).to_owned();
            assert!(
                relative
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))),
                "{name}: a hostile entry {}",
                path.display()
            );
            if entry.header().entry_type().is_dir() {
                continue;
            }
            let out = target.join(&relative);
            std::fs::create_dir_all(out.parent().expect("parent")).expect("mkdir");
            let mode = entry.header().mode().unwrap_or(0o644);
            let mut data = Vec::new();
            entry.read_to_end(&mut data).expect("entry data");
            std::fs::write(&out, data).expect("write entry");
            crate::support::set_mode(&out, mode & 0o777);
        }
        target
    }
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

/// What one turn showed.
pub struct Turn {
    /// From spawning `oneworks run` to its exit.
    pub elapsed: Duration,
    /// From the `turn_end` event to the exit of `oneworks run` (how long
    /// stopping the agent took).
    pub stopping: Option<Duration>,
    pub events: Vec<Value>,
    pub requests: Vec<Value>,
    pub stderr: String,
}

impl Turn {
    pub fn types(&self) -> Vec<&str> {
        self.events
            .iter()
            .filter_map(|e| e["type"].as_str())
            .collect()
    }

    pub fn text(&self) -> String {
        self.events
            .iter()
            .filter(|e| e["type"] == "agent_message_chunk")
            .filter_map(|e| e["text"].as_str())
            .collect()
    }

    pub fn stop_reason(&self) -> Option<&str> {
        self.events
            .iter()
            .rev()
            .find(|e| e["type"] == "turn_end")
            .and_then(|e| e["stopReason"].as_str())
    }
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

    /// The user's own config file (trusted, SPEC §2.1).
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

    /// One `oneworks run <agent> --json` turn asking for `touch file`;
    /// every permission request is answered with `reply` (a label `run`
    /// offers, e.g. "Allow once").
    pub fn turn(&self, file: &str, reply: &str) -> Turn {
        self.turn_with(file, reply, &[])
    }

    /// [`Self::turn`] whatever `run` exits with (an agent that ends its
    /// turn `cancelled` when a command is rejected: exit 10).
    pub fn turn_ending(&self, file: &str, reply: &str) -> (Turn, std::process::ExitStatus) {
        self.turn_ending_with(file, reply, &[])
    }

    /// [`Self::turn`] with more arguments for `run` (`--session`, `--keep`).
    pub fn turn_with(&self, file: &str, reply: &str, extra: &[&str]) -> Turn {
        let (turn, status) = self.turn_ending_with(file, reply, extra);
        assert!(
            status.success(),
            "{status}: {:?}\n{:#?}\nstderr:\n{}\nmodel:\n{}",
            turn.types(),
            turn.events,
            turn.stderr,
            self.model.describe()
        );
        turn
    }

    fn turn_ending_with(
        &self,
        file: &str,
        reply: &str,
        extra: &[&str],
    ) -> (Turn, std::process::ExitStatus) {
        let answer = |event: &Value, stdin: &mut std::process::ChildStdin| {
            let answer = json!({"id": event["id"], "reply": reply});
            writeln!(stdin, "{answer}").expect("reply");
        };
        self.turn_answered_by(file, &answer, extra)
    }

    /// A turn whose permission requests `answer` answers (on the run's
    /// stdin, or anywhere else).
    pub fn turn_answered_by(
        &self,
        file: &str,
        answer: &dyn Fn(&Value, &mut std::process::ChildStdin),
        extra: &[&str],
    ) -> (Turn, std::process::ExitStatus) {
        self.model.set_command(&format!("touch {file}"));
        self.model.set_trigger(Some(file));
        let prompt = format!("Create the file {file} with the shell tool.");
        let mut args = vec!["run", self.agent, "--prompt", &prompt, "--json"];
        args.extend_from_slice(extra);
        let mut command = self.env.cmd(&args);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let started = Instant::now();
        let mut child = command.spawn().expect("spawn oneworks run");
        let mut stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut stderr_pipe = child.stderr.take().expect("stderr");
        let stderr_reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr_pipe.read_to_string(&mut text);
            text
        });
        let (lines_tx, lines_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if lines_tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + TURN_DEADLINE;
        let mut events = Vec::new();
        let mut requests = Vec::new();
        let mut ended = None;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines_rx.recv_timeout(left) {
                Ok(line) => {
                    let event: Value = serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("not an event ({e}): {line}"));
                    if event["type"] == "permission_request" {
                        answer(&event, &mut stdin);
                        requests.push(event.clone());
                    }
                    if event["type"] == "turn_end" {
                        ended = Some(Instant::now());
                    }
                    events.push(event);
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "the {} turn did not end within {TURN_DEADLINE:?}: {events:#?}\nmodel:\n{}",
                        self.agent,
                        self.model.describe()
                    );
                }
            }
        }
        drop(stdin);
        let status = child.wait().expect("wait");
        let stderr = stderr_reader.join().unwrap_or_default();
        let turn = Turn {
            elapsed: started.elapsed(),
            stopping: ended.map(|at| at.elapsed()),
            events,
            requests,
            stderr,
        };
        (turn, status)
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
