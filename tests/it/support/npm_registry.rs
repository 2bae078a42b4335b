//! A loopback npm registry for the npm managed source, on the
//! same [`Server`] as the manifest tests: a package document with
//! `dist-tags` and `versions`, gzip tarballs whose entries live under
//! `package/`, and every way a registry can be wrong — a wrong, missing or
//! sha1-only `integrity`, hostile tarball entries, 404/500/slow answers
//! (the server's routes). Digests are computed from the bytes served,
//! never typed in. An adapter data file points oneworks at it: the
//! built-in Kiro data with its vendor-manifest sections swapped for an
//! `npm` one (the lead's `ONEWORKS_ADAPTERS_DIR` will let it carry its own
//! id).

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha512};

use super::adapter_yaml::{yaml, AdapterYaml};
use super::archive::{self, Entry};
use super::server::{Route, Server};

/// The fake package and its command.
pub const PACKAGE: &str = "@fake/gemini-cli";
pub const COMMAND: &str = "gemini";
/// Where the bin sits in the package (`bin.gemini`).
pub const BIN: &str = "bundle/gemini.js";
/// The package document's path on the server (`/` as `%2f`).
pub const DOCUMENT_PATH: &str = "/@fake%2fgemini-cli";

/// `sha512-<base64>` of `bytes`.
pub fn sri(bytes: &[u8]) -> String {
    format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode(Sha512::digest(bytes))
    )
}

/// The bin: a "JavaScript" file that the fake `node` runs with `sh`
/// (the `#!` line is a comment to it). It answers `--version` with the
/// bare version, as `gemini --version` does.
pub fn bin_script(version: &str) -> String {
    format!(
        "#!/usr/bin/env node\n\
         case \"$1\" in\n\
         \x20 --version) echo \"{version}\"; exit 0 ;;\n\
         \x20 *) exit 0 ;;\n\
         esac\n"
    )
}

/// The entries of a well-formed package: npm tarballs put everything
/// under `package/` and usually carry no folder entries; the bin is not
/// executable in the tarball (npm makes it so when it links it).
pub fn package_entries(version: &str) -> Vec<Entry> {
    vec![
        Entry::file(
            "package/package.json",
            0o644,
            json!({ "name": PACKAGE, "version": version, "bin": { COMMAND: BIN } }).to_string(),
        ),
        Entry::file(&format!("package/{BIN}"), 0o644, bin_script(version)),
        Entry::file("package/README.md", 0o644, "a fake gemini\n"),
    ]
}

/// A gzip tarball of `entries`.
pub fn tarball(entries: &[Entry]) -> Vec<u8> {
    archive::gzip(&archive::tar(entries))
}

/// One published version: its tarball and how the document describes it.
#[derive(Debug, Clone)]
pub struct Published {
    /// The registry's name of the package.
    pub name: String,
    pub version: String,
    pub bytes: Vec<u8>,
    /// The tarball's path on the server.
    pub path: String,
    /// `versions[v]` of the document.
    pub doc: Value,
}

impl Published {
    /// A version with a well-formed package, `engines.node` `>=20`.
    pub fn new(server: &Server, version: &str) -> Published {
        Published::with_entries(server, version, &package_entries(version))
    }

    pub fn with_entries(server: &Server, version: &str, entries: &[Entry]) -> Published {
        let bytes = tarball(entries);
        let path = format!("/@fake/gemini-cli/-/gemini-cli-{version}.tgz");
        let doc = json!({
            "name": PACKAGE,
            "version": version,
            "bin": { COMMAND: BIN },
            "engines": { "node": ">=20" },
            "dist": {
                "tarball": server.url(&path),
                "integrity": sri(&bytes),
                "shasum": "0000000000000000000000000000000000000000",
            },
        });
        Published {
            name: PACKAGE.to_owned(),
            version: version.to_owned(),
            bytes,
            path,
            doc,
        }
    }

    /// A version of any package `name` (a dependency, a platform
    /// package): `package/package.json` naming it, plus `files` (path
    /// below `package/`, mode, text); `extra` fields join its version
    /// document (`dependencies`, `os`, `cpu`, `libc`, …).
    pub fn package(
        server: &Server,
        name: &str,
        version: &str,
        extra: Value,
        files: &[(&str, u32, &str)],
    ) -> Published {
        let mut manifest = json!({ "name": name, "version": version });
        let mut entries = vec![];
        for (path, mode, text) in files {
            entries.push(Entry::file(&format!("package/{path}"), *mode, *text));
        }
        if let Value::Object(fields) = &extra {
            for (field, value) in fields {
                manifest[field] = value.clone();
            }
        }
        entries.insert(
            0,
            Entry::file("package/package.json", 0o644, manifest.to_string()),
        );
        Published::named(server, name, version, extra, &entries)
    }

    /// A version of `name` whose tarball holds `entries` as given.
    pub fn named(
        server: &Server,
        name: &str,
        version: &str,
        extra: Value,
        entries: &[Entry],
    ) -> Published {
        let bytes = tarball(entries);
        let base = name.rsplit('/').next().unwrap_or(name);
        let path = format!("/{name}/-/{base}-{version}.tgz");
        let mut doc = json!({
            "name": name,
            "version": version,
            "dist": {
                "tarball": server.url(&path),
                "integrity": sri(&bytes),
            },
        });
        if let Value::Object(fields) = extra {
            for (field, value) in fields {
                doc[field] = value;
            }
        }
        Published {
            name: name.to_owned(),
            version: version.to_owned(),
            bytes,
            path,
            doc,
        }
    }

    /// Sets (or, with `None`, removes) `field` of `dist`.
    pub fn dist(mut self, field: &str, value: Option<Value>) -> Published {
        let dist = self.doc["dist"].as_object_mut().expect("dist");
        match value {
            Some(value) => {
                dist.insert(field.to_owned(), value);
            }
            None => {
                dist.remove(field);
            }
        }
        self
    }

    /// Sets a top-level field of the version document.
    pub fn field(mut self, field: &str, value: Value) -> Published {
        self.doc[field] = value;
        self
    }
}

/// The package document naming `versions`, `latest` its dist-tag.
pub fn document(latest: &str, versions: &[&Published]) -> Vec<u8> {
    let mut map = Map::new();
    for published in versions {
        map.insert(published.version.clone(), published.doc.clone());
    }
    serde_json::to_vec(&json!({
        "name": PACKAGE,
        "dist-tags": { "latest": latest },
        "versions": map,
    }))
    .expect("document json")
}

/// The document path of package `name` (`/` as `%2f`).
pub fn document_path(name: &str) -> String {
    format!("/{}", name.replace('/', "%2f"))
}

/// Serves the versions of one package (any name; `latest` the last one)
/// and their tarballs.
pub fn publish_package(server: &Server, versions: &[&Published]) {
    let name = &versions[0].name;
    let mut map = Map::new();
    for published in versions {
        server.route(&published.path, Route::Ok(published.bytes.clone().into()));
        map.insert(published.version.clone(), published.doc.clone());
    }
    let latest = &versions[versions.len() - 1].version;
    let document = json!({ "name": name, "dist-tags": { "latest": latest }, "versions": map });
    server.route(
        &document_path(name),
        Route::ok(serde_json::to_vec(&document).expect("document json")),
    );
}

/// Serves each version's tarball and a document with `latest`.
pub fn publish(server: &Server, latest: &str, versions: &[&Published]) {
    for published in versions {
        server.route(&published.path, Route::Ok(published.bytes.clone().into()));
    }
    server.route(DOCUMENT_PATH, Route::ok(document(latest, versions)));
}

/// The built-in Kiro data with its vendor manifest source replaced by the
/// fake npm package: binary `gemini`, a version probe only.
pub fn adapter_data() -> String {
    adapter_data_with("")
}

/// [`adapter_data`] with more keys in its `npm` section (`extra` is a
/// YAML flow-mapping body: `platformBin: bin/real, executables: [x]`).
pub fn adapter_data_with(extra: &str) -> String {
    let mut data = AdapterYaml::builtin("kiro");
    for section in ["manifest", "platforms", "archive"] {
        data.remove(section);
    }
    data.set("displayName", "Fake Gemini CLI");
    data.insert(
        "npm",
        yaml(&format!(
            "{{package: '{PACKAGE}', binCommand: {COMMAND}{}}}",
            if extra.is_empty() {
                String::new()
            } else {
                format!(", {extra}")
            }
        )),
    );
    data.set(
        "binary",
        yaml(r"{name: gemini, aliases: [], identifies: '^\d+\.\d+\.\d+', versionPattern: '(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)'}"),
    );
    data.set(
        "probes",
        yaml("{version: ['--version'], timeoutSeconds: 15}"),
    );
    data.text()
}

/// A fake `node` in `dir` that reports `version` and runs a script with
/// `sh` (the bin's `#!/usr/bin/env node` line finds it first on PATH).
pub fn install_node(dir: &Path, version: &str) -> PathBuf {
    let node = dir.join("node");
    std::fs::write(
        &node,
        format!(
            "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo \"{version}\"; exit 0; fi\nexec /bin/sh \"$@\"\n"
        ),
    )
    .expect("write fake node");
    super::set_mode(&node, 0o755);
    node
}
