//! The real Gemini CLI, offline, through the binary:
//! the pinned `@google/gemini-cli` 0.61.0 — fetched once with `npm pack`
//! (by name) and checked against its known integrity — is served by a
//! loopback npm registry, installed by `oneworks adapter prepare gemini`,
//! and replays a whole turn from `tests/fixtures/gemini-shell-turn.jsonl`
//! (Gemini's own `--fake-responses-non-strict`): over ACP (`run gemini`:
//! a real permission request, a real `touch`) and in its TUI (`session
//! start gemini`: the real approval box becomes a card; accept runs the
//! `touch`, decline leaves no file). This is the only place the real
//! registry is used, and only by `npm pack`.
//!
//! `ONEWORKS_TEST_GEMINI_TGZ` names a copy of the tarball instead (it is
//! checked all the same).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::npm_registry::sri;
use crate::support::server::{Route, Server};
use crate::support::wait::{wait_card, wait_for_every};
use crate::support::TestEnv;

const PACKAGE: &str = "@google/gemini-cli";
const VERSION: &str = "0.61.0";
/// What the registry publishes for 0.61.0.
const INTEGRITY: &str = "sha512-dbQ9A0qBtFJNi6XBkHvfZ6Azpn6PNgH/P8h2MZ67RLlX8hSAVjup39CRWqdRxZv7YXIuhrFaytr8y0jKnkoxnQ==";
const SIZE: usize = 20_772_697;
const DOCUMENT_PATH: &str = "/@google%2fgemini-cli";
const TARBALL_PATH: &str = "/@google/gemini-cli/-/gemini-cli-0.61.0.tgz";
pub const PROBE: &str = "probe-created.txt";
const DEADLINE: Duration = Duration::from_secs(120);
/// How often a wait looks again (a look runs `oneworks` or tmux).
const PACE: Duration = Duration::from_millis(200);

/// The folder of a Node.js ≥ 20 with npm on this process's PATH (the
/// package's `engines.node`); without it the test fails
/// ([`crate::support::missing`]: `None` only where skipping is allowed).
fn node_dir() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let dir = std::env::split_paths(&path)
        .find(|dir| dir.join("node").is_file() && dir.join("npm").is_file());
    let Some(dir) = dir else {
        crate::support::missing("node/npm are not on PATH: the real Gemini CLI tests cannot run");
        return None;
    };
    let output = std::process::Command::new(dir.join("node"))
        .arg("--version")
        .output()
        .ok()?;
    let version = String::from_utf8_lossy(&output.stdout);
    let major: u64 = version
        .trim()
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|major| major.parse().ok())
        .unwrap_or(0);
    if major < 20 {
        crate::support::missing(&format!(
            "node {} is older than Gemini CLI's engines.node >=20: the real Gemini CLI tests cannot run",
            version.trim()
        ));
        return None;
    }
    Some(dir)
}

/// The pinned tarball's bytes, verified.
fn real_tarball() -> &'static [u8] {
    static TARBALL: OnceLock<Vec<u8>> = OnceLock::new();
    TARBALL.get_or_init(|| {
        let file = match std::env::var_os("ONEWORKS_TEST_GEMINI_TGZ") {
            Some(path) => PathBuf::from(path),
            None => fetch_once(),
        };
        let bytes = std::fs::read(&file).expect("read the gemini tarball");
        let computed = sri(&bytes);
        if computed != INTEGRITY {
            let _ = std::fs::remove_file(&file);
            panic!(
                "`{}` is not {PACKAGE}@{VERSION}: integrity {computed}, expected {INTEGRITY}",
                file.display()
            );
        }
        assert_eq!(bytes.len(), SIZE);
        bytes
    })
}

/// `npm pack @google/gemini-cli@0.61.0` into the test target folder, once
/// per checkout (later runs reuse the checked file).
fn fetch_once() -> PathBuf {
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("real-agents");
    let file = cache.join(format!("google-gemini-cli-{VERSION}.tgz"));
    if file.is_file() {
        return file;
    }
    let scratch = tempfile::Builder::new()
        .prefix("npm-pack-")
        .tempdir_in({
            std::fs::create_dir_all(&cache).expect("create the real-agents cache");
            &cache
        })
        .expect("scratch folder");
    let output = std::process::Command::new("npm")
        .args([
            "pack",
            &format!("{PACKAGE}@{VERSION}"),
            "--silent",
            "--pack-destination",
        ])
        .arg(scratch.path())
        .current_dir(scratch.path())
        .output()
        .expect("run `npm pack` (Node.js and npm are needed for the real-agent tests)");
    assert!(
        output.status.success(),
        "`npm pack {PACKAGE}@{VERSION}` failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let packed = scratch
        .path()
        .join(format!("google-gemini-cli-{VERSION}.tgz"));
    std::fs::rename(&packed, &file).expect("keep the packed tarball");
    file
}

/// The version document from the tarball's own `package.json` (its `bin`
/// and `engines`), with the loopback tarball URL and the integrity.
fn version_document(server: &Server, bytes: &[u8]) -> Value {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    let mut manifest = None;
    for entry in archive.entries().expect("tar entries") {
        let mut entry = entry.expect("tar entry");
        if entry.path().expect("entry path").as_os_str() == "package/package.json" {
            let mut text = String::new();
            entry.read_to_string(&mut text).expect("package.json");
            manifest = Some(serde_json::from_str::<Value>(&text).expect("package.json json"));
            break;
        }
    }
    let manifest = manifest.expect("package/package.json in the tarball");
    assert_eq!(manifest["version"], VERSION);
    json!({
        "name": PACKAGE,
        "version": VERSION,
        "bin": manifest["bin"],
        "engines": manifest["engines"],
        "dist": {
            "tarball": server.url(TARBALL_PATH),
            "integrity": INTEGRITY,
        },
    })
}

/// A project whose npm registry is a loopback server holding the real
/// package, and whose Gemini adapter file (in `ONEWORKS_ADAPTERS_DIR`, the
/// built-in one with the replay arguments added) replays the fixture.
pub struct RealGemini {
    pub env: TestEnv,
    registry: Server,
}

impl RealGemini {
    /// `None` (after a loud note) where Node.js ≥ 20 is missing.
    pub fn new() -> Option<RealGemini> {
        let node = node_dir()?;
        let bytes = real_tarball();
        let registry = Server::start();
        let document = json!({
            "name": PACKAGE,
            "dist-tags": {"latest": VERSION},
            "versions": {VERSION: version_document(&registry, bytes)},
        });
        registry.route(TARBALL_PATH, Route::Ok(bytes.to_vec().into()));
        registry.route(
            DOCUMENT_PATH,
            Route::ok(serde_json::to_vec(&document).expect("document")),
        );
        let mut env = TestEnv::new();
        // The real Node, wherever it is installed (`/usr/local/bin` on
        // the official images).
        env.set_env(
            "PATH",
            &format!("{}:{}:/usr/bin:/bin", env.bin.display(), node.display()),
        );
        env.set_env("ONEWORKS_NPM_REGISTRY", &registry.url("/"));
        env.set_env("GEMINI_API_KEY", "offline-fake-key-0123456789");
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini-shell-turn.jsonl");
        let replay = format!(
            "\"-m\", \"gemini-2.5-flash\", \"--fake-responses-non-strict\", \"{}\"",
            fixture.display()
        );
        let builtin = include_str!("../../../manifests/gemini.yaml");
        let data = builtin.replacen(
            "args: [\"--acp\"]",
            &format!("args: [\"--acp\", {replay}]"),
            1,
        );
        assert_ne!(data, builtin, "the ACP argv moved in manifests/gemini.yaml");
        let tui = data.replacen(
            "  command: []\n  # One process",
            &format!("  command: [{replay}, \"-i\", \"create the probe file\"]\n  # One process"),
            1,
        );
        assert_ne!(tui, data, "the TUI argv moved in manifests/gemini.yaml");
        let dir = env.base().join("adapters");
        std::fs::create_dir_all(&dir).expect("adapters dir");
        std::fs::write(dir.join("gemini.yaml"), tui).expect("write gemini.yaml");
        env.set_env("ONEWORKS_ADAPTERS_DIR", &dir.to_string_lossy());
        Some(RealGemini { env, registry })
    }

    pub fn prepare(&self) -> Value {
        let outcome = self.env.run(&["adapter", "prepare", "gemini", "--json"]);
        outcome.assert_success();
        outcome.json()
    }
}

#[test]
fn the_real_gemini_is_prepared_from_the_registry_and_runs_a_turn_over_acp() {
    let _share = crate::support::heavy::share();
    let Some(gemini) = RealGemini::new() else {
        return;
    };
    let prepared = gemini.prepare();
    assert_eq!(prepared["adapter"], "gemini");
    assert_eq!(prepared["source"], "managed");
    assert_eq!(prepared["version"], VERSION);
    assert_eq!(gemini.registry.hits(TARBALL_PATH), 1);
    // Warm: no download.
    gemini.prepare();
    assert_eq!(gemini.registry.hits(TARBALL_PATH), 1);

    // Stderr is inherited, as the test's own.
    let mut child = gemini
        .env
        .oneworks()
        .args([
            "run",
            "gemini",
            "--prompt",
            "create the probe file",
            "--json",
        ])
        .stderr_inherit()
        .spawn();
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut events = Vec::new();
    for line in stdout.lines() {
        let line = line.expect("event line");
        let event: Value = serde_json::from_str(&line).expect("event json");
        if event["type"] == "permission_request" {
            // A real request: Gemini's shell tool with the command.
            let text = event.to_string();
            assert!(text.contains("touch probe-created.txt"), "{text}");
            let reply = json!({"id": event["id"], "reply": "proceed_once"});
            writeln!(stdin, "{reply}").expect("reply");
        }
        events.push(event);
    }
    let status = child.wait().expect("wait");
    let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert!(status.success(), "{status}: {types:?}\n{events:#?}");
    assert!(types.contains(&"permission_request"), "{types:?}");
    assert_eq!(types.last(), Some(&"turn_end"), "{types:?}");
    assert!(
        gemini.env.project.join(PROBE).is_file(),
        "the real touch did not run"
    );
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "agent_message_chunk")
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert!(text.contains("All done"), "{text}");
}

impl RealGemini {
    pub fn session(&self, args: &[&str]) -> crate::support::Outcome {
        let mut all = vec!["session"];
        all.extend_from_slice(args);
        self.env.run(&all)
    }

    /// Waits for a card of session `name` that passes `test`.
    #[track_caller]
    fn wait_card(&self, name: &str, what: &str, test: impl Fn(&Value) -> bool) -> Value {
        let what = format!("{what} in session `{name}`");
        let cards = || {
            let outcome = self.session(&["approvals", name, "--json"]);
            outcome.assert_success();
            outcome.json().as_array().cloned().unwrap_or_default()
        };
        wait_card(PACE, &what, DEADLINE, cards, test, String::new)
    }

    /// The session's pane, as tmux shows it.
    pub fn pane(&self, name: &str) -> String {
        let record = self.env.session_record(name).expect("supervisor record");
        let output = std::process::Command::new("tmux")
            .arg("-S")
            .arg(record["tmux"].as_str().expect("tmux socket"))
            .args(["capture-pane", "-p", "-J"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Waits until the pane of session `name` shows `needle`.
    #[track_caller]
    pub fn wait_pane(&self, name: &str, what: &str, needle: &str) {
        wait_for_every(PACE, &format!("the pane shows {what}"), DEADLINE, || {
            let pane = self.pane(name);
            if pane.contains(needle) {
                Ok(())
            } else {
                Err(pane)
            }
        });
    }
}

#[test]
fn the_real_gemini_approval_box_becomes_a_card_that_accepts_or_declines() {
    let _share = crate::support::heavy::share();
    let Some(gemini) = RealGemini::new() else {
        return;
    };
    gemini.prepare();
    let probe = gemini.env.project.join(PROBE);

    // Decline first: the real box is answered No and no file appears.
    gemini
        .session(&["start", "gemini", "--detach", "--name", "decline"])
        .assert_success();
    let card = gemini.wait_card("decline", "pending", |card| card["state"] == "pending");
    assert_eq!(card["title"], "touch probe-created.txt");
    let id = card["id"].as_str().expect("card id").to_owned();
    assert!(id.starts_with("gemini_decline_"), "{id}");
    gemini
        .session(&["answer", "decline", &id, "decline"])
        .assert_success();
    gemini.wait_pane("decline", "the cancelled request", "Request cancelled");
    assert!(!probe.exists(), "a declined touch ran");
    gemini.session(&["stop", "decline"]).assert_success();

    // Accept: the real touch runs in the project.
    gemini
        .session(&["start", "gemini", "--detach", "--name", "accept"])
        .assert_success();
    let card = gemini.wait_card("accept", "pending", |card| card["state"] == "pending");
    assert_eq!(card["title"], "touch probe-created.txt");
    let id = card["id"].as_str().expect("card id").to_owned();
    gemini
        .session(&["answer", "accept", &id, "accept"])
        .assert_success();
    wait_for_every(PACE, "the accepted touch ran", DEADLINE, || {
        if probe.is_file() {
            Ok(())
        } else {
            Err(gemini.pane("accept"))
        }
    });
    gemini.wait_pane("accept", "the end of the turn", "All done");
    gemini.session(&["stop", "accept"]).assert_success();
}

#[test]
fn the_real_gemini_box_that_changes_between_two_keys_gets_no_further_key() {
    let _share = crate::support::heavy::share();
    let Some(gemini) = RealGemini::new() else {
        return;
    };
    gemini.prepare();
    gemini
        .session(&["start", "gemini", "--detach", "--name", "changed"])
        .assert_success();
    let card = gemini.wait_card("changed", "pending", |card| card["state"] == "pending");
    let title = card["title"].as_str().expect("card title");
    let tui = oneworks::adapter::registry::Registry::builtin()
        .load("gemini")
        .expect("gemini data")
        .tui;
    let record = gemini
        .env
        .session_record("changed")
        .expect("supervisor record");
    let socket = PathBuf::from(record["tmux"].as_str().expect("tmux socket"));
    // Down (the bridge's), Down (the person's): two rows here (this
    // project's folder is not trusted, no `Allow for this session`), so
    // the focus wraps back to `Allow once` — seen as `the focus is on …
    // instead of …` or, when both keys land before the bridge looks, as
    // a focus that never moved. Either way a focus refusal, no more keys.
    crate::tui_real::assert_refuses_a_box_changed_between_keys(&socket, &tui, title);
    // Nothing was chosen: the box is still up, the card pending.
    let pane = gemini.pane("changed");
    assert!(pane.contains("Allow execution of [Shell]?"), "{pane}");
    assert!(!pane.contains("Request cancelled"), "{pane}");
    gemini.wait_card("changed", "still pending", |c| {
        c["id"] == card["id"] && c["state"] == "pending"
    });
    assert!(!gemini.env.project.join(PROBE).exists());
    gemini.session(&["stop", "changed"]).assert_success();
}
