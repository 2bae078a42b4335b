//! An agent's pinned npm tree as the test cache holds it ([`Snapshot`]):
//! loaded once per run and checked against the integrity its committed
//! `package-lock.json` pins, served by a loopback npm registry, or
//! extracted as a `source: path` install.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde_json::{json, Map, Value};

use crate::support::npm_registry::sri;
use crate::support::server::{Route, Server};

use super::{cache_dir, fetch_hint, repo};

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
    pub(super) fn load_from(agent: &str, cache: &Path) -> Snapshot {
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
