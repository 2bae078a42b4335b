//! A real Verdaccio (tests/fixtures/verdaccio, fetched once by
//! `tests/fixtures/fetch.sh`) with htpasswd auth and no uplink: every
//! package needs a logged-in user, nothing is fetched from npmjs. The fake
//! Gemini package (tests/fakes/gemini-cli) is published to it with the real
//! `npm publish`. Optionally a TLS endpoint in front of it, whose
//! certificate a test CA signs.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

/// How long Verdaccio may take to start on a loaded machine.
const START_DEADLINE: Duration = Duration::from_secs(60);

fn modules() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-cache/verdaccio/node_modules")
}

pub struct Verdaccio {
    child: Child,
    /// Held open: Verdaccio exits when it closes.
    _stdin: ChildStdin,
    pub http: u16,
    pub https: Option<u16>,
    _dir: tempfile::TempDir,
}

impl Drop for Verdaccio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Verdaccio {
    /// Starts Verdaccio; with `tls` (certificate and key PEM files), its
    /// TLS endpoint too. `None` when it is missing and skipping is allowed.
    pub fn start(tls: Option<(&Path, &Path)>) -> Option<Verdaccio> {
        if !modules().join("verdaccio/package.json").is_file() {
            crate::support::missing(
                "the real Verdaccio is missing: run `bash tests/fixtures/fetch.sh` (tests/fixtures/verdaccio/fetch.sh)",
            );
            return None;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let config = dir.path().join("config.yaml");
        let yaml = format!(
            "storage: {storage}\nauth:\n  htpasswd:\n    file: {htpasswd}\n    max_users: 10\nuplinks: {{}}\npackages:\n  '@*/*':\n    access: $authenticated\n    publish: $authenticated\n  '**':\n    access: $authenticated\n    publish: $authenticated\nlog: {{ type: stdout, format: json, level: error }}\n",
            storage = dir.path().join("storage").display(),
            htpasswd = dir.path().join("htpasswd").display(),
        );
        std::fs::write(&config, yaml).expect("verdaccio config");
        let mut command = Command::new("node");
        command
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verdaccio/serve.js"))
            .arg(modules())
            .arg(&config);
        if let Some((cert, key)) = tls {
            command.arg(cert).arg(key);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start node with Verdaccio");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (send, ports) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = send.send(line);
        });
        let line = ports
            .recv_timeout(START_DEADLINE)
            .expect("Verdaccio started in time");
        let ports: Value = serde_json::from_str(&line).expect("Verdaccio's ports");
        Some(Verdaccio {
            child,
            _stdin: stdin,
            http: ports["http"].as_u64().expect("http port") as u16,
            https: ports["https"].as_u64().map(|port| port as u16),
            _dir: dir,
        })
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.http)
    }

    /// Registers `user` (htpasswd) and returns the token Verdaccio issues.
    pub fn add_user(&self, user: &str, password: &str) -> String {
        let response = reqwest::blocking::Client::new()
            .put(format!("{}-/user/org.couchdb.user:{user}", self.url()))
            .header("content-type", "application/json")
            .body(json!({ "name": user, "password": password }).to_string())
            .send()
            .expect("add a user");
        let answer: Value = serde_json::from_slice(&response.bytes().expect("body")).expect("json");
        answer["token"].as_str().expect("a token").to_owned()
    }

    /// Publishes the fake Gemini package (its `private` flag dropped)
    /// with the real npm and `token`.
    pub fn publish_fake_gemini(&self, token: &str) {
        let work = tempfile::tempdir().expect("tempdir");
        let package = work.path().join("gemini-cli");
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/gemini-cli");
        std::fs::create_dir_all(package.join("bundle")).expect("package dir");
        for file in ["README.md", "bundle/gemini.js"] {
            std::fs::copy(source.join(file), package.join(file)).expect("copy");
        }
        let mut manifest: Value =
            serde_json::from_slice(&std::fs::read(source.join("package.json")).expect("read"))
                .expect("package.json");
        manifest.as_object_mut().expect("object").remove("private");
        std::fs::write(package.join("package.json"), manifest.to_string()).expect("write");
        let npmrc = work.path().join("publish.npmrc");
        std::fs::write(
            &npmrc,
            format!("//127.0.0.1:{}/:_authToken={token}\n", self.http),
        )
        .expect("npmrc");
        let output = Command::new("npm")
            .args(["publish", "--registry", &self.url(), "--userconfig"])
            .arg(&npmrc)
            .current_dir(&package)
            .env("npm_config_cache", work.path().join("npm-cache"))
            .output()
            .expect("npm publish");
        assert!(
            output.status.success(),
            "npm publish: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
