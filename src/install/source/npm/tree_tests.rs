//! Unit tests of the tree resolver.

use super::super::specifier::{parent_path, valid_path};
use super::*;
use crate::install::source::npm::package_document::PackageDocument;

#[derive(Debug)]
enum TestError {
    Tree(TreeError),
}
impl From<TreeError> for TestError {
    fn from(error: TreeError) -> Self {
        TestError::Tree(error)
    }
}

/// A registry of `name → [(version, dependencies json)]`.
fn registry(packages: &[(&str, &[(&str, &str)])]) -> HashMap<String, Vec<u8>> {
    packages
        .iter()
        .map(|(name, versions)| {
            let mut map = serde_json::Map::new();
            let mut latest = String::new();
            for (version, extra) in *versions {
                let mut doc: serde_json::Value = serde_json::from_str(extra).expect("json");
                doc["dist"] = serde_json::json!({"tarball": format!("http://r.test/{name}-{version}.tgz"), "integrity": "sha512-x"});
                map.insert((*version).to_owned(), doc);
                latest = (*version).to_owned();
            }
            let document = serde_json::json!({"dist-tags": {"latest": latest}, "versions": map});
            ((*name).to_owned(), serde_json::to_vec(&document).expect("json"))
        })
        .collect()
}

/// The registry's documents, as the resolver fetches them.
fn fetch_from(
    documents: &HashMap<String, Vec<u8>>,
) -> impl Fn(&str) -> Result<Option<PackageDocument>, TestError> + Sync + '_ {
    |name: &str| {
        Ok(documents
            .get(name)
            .map(|bytes| PackageDocument::parse(bytes).expect("parse")))
    }
}

/// `root` 1.0.0 from the registry's documents (pinned, not `latest`).
fn root_1_0_0(documents: &HashMap<String, Vec<u8>>) -> VersionDoc {
    PackageDocument::parse(&documents["root"])
        .expect("root")
        .version("1.0.0", "root", "")
        .expect("ok")
        .expect("1.0.0")
}

fn run(
    packages: &[(&str, &[(&str, &str)])],
    root: &str,
    host: &NpmHost,
) -> Result<Vec<(String, String)>, TestError> {
    let documents = registry(packages);
    let root = PackageDocument::parse(&documents[root])
        .expect("root")
        .pick(&crate::config::VersionRequest::Latest, root, "")
        .expect("pick")
        .expect("latest");
    let fetch = fetch_from(&documents);
    let platform_of = ["root".to_owned()];
    let options = TreeOptions {
        host,
        platform_of: &platform_of,
        prefer: &[],
        peers: &[],
    };
    let tree = resolve("root", root, &fetch, &options)?;
    let mut placed: Vec<(String, String)> = tree
        .packages()
        .iter()
        .map(|node| (node.path.clone(), node.doc.version.to_string()))
        .collect();
    placed.sort();
    Ok(placed)
}

fn glibc() -> NpmHost {
    NpmHost {
        os: "linux".to_owned(),
        cpu: "x64".to_owned(),
        libc: Some("glibc".to_owned()),
        lacks: Vec::new(),
    }
}

#[test]
fn hoists_dedupes_and_nests_conflicts() {
    let placed = run(
        &[
            (
                "root",
                &[("1.0.0", r#"{"dependencies": {"a": "^1.0.0", "b": "1.x"}}"#)],
            ),
            (
                "a",
                &[
                    ("1.0.0", "{}"),
                    ("1.2.0", r#"{"dependencies": {"c": "^2"}}"#),
                    ("2.0.0", "{}"),
                ],
            ),
            (
                "b",
                &[(
                    "1.0.0",
                    r#"{"dependencies": {"c": "^1.1", "a": ">=1.1.0 <2"}}"#,
                )],
            ),
            (
                "c",
                &[
                    ("1.1.0", "{}"),
                    ("1.5.0", "{}"),
                    ("2.3.0", "{}"),
                    ("3.0.0-rc.1", "{}"),
                ],
            ),
        ],
        "root",
        &glibc(),
    )
    .expect("resolves");
    // a hoisted once (b's range is met by the hoisted 1.2.0); c@2 hoisted
    // for a, c@1 nested beneath b.
    assert_eq!(
        placed,
        [
            ("node_modules/a".to_owned(), "1.2.0".to_owned()),
            ("node_modules/b".to_owned(), "1.0.0".to_owned()),
            (
                "node_modules/b/node_modules/c".to_owned(),
                "1.5.0".to_owned()
            ),
            ("node_modules/c".to_owned(), "2.3.0".to_owned()),
        ]
    );
}

#[test]
fn cycles_end_and_specifiers_are_checked() {
    let placed = run(
        &[
            ("root", &[("1.0.0", r#"{"dependencies": {"a": "*"}}"#)]),
            (
                "a",
                &[("1.0.0", r#"{"dependencies": {"b": "*", "root": "^1"}}"#)],
            ),
            ("b", &[("1.0.0", r#"{"dependencies": {"a": "^1"}}"#)]),
        ],
        "root",
        &glibc(),
    )
    .expect("a cycle resolves");
    assert_eq!(placed.len(), 2, "{placed:?}");
    let error = run(
        &[(
            "root",
            &[(
                "1.0.0",
                r#"{"dependencies": {"a": "git+https://x.test/a.git"}}"#,
            )],
        )],
        "root",
        &glibc(),
    )
    .expect_err("git");
    assert!(
        matches!(error, TestError::Tree(TreeError::Specifier { .. })),
        "{error:?}"
    );
    let error = run(
        &[("root", &[("1.0.0", r#"{"dependencies": {"gone": "^1"}}"#)])],
        "root",
        &glibc(),
    )
    .expect_err("missing");
    assert!(
        matches!(error, TestError::Tree(TreeError::Missing { .. })),
        "{error:?}"
    );
}

#[test]
fn one_platform_package_and_aliases() {
    let packages: &[(&str, &[(&str, &str)])] = &[
        (
            "root",
            &[
                (
                    "1.0.0",
                    r#"{"optionalDependencies": {"root-linux-x64": "npm:root@1.0.0-linux-x64", "p-musl": "1.0.0", "p-arm": "1.0.0", "keytar": "^7"}}"#,
                ),
                (
                    "1.0.0-linux-x64",
                    r#"{"os": ["linux"], "cpu": ["x64"], "libc": ["glibc"]}"#,
                ),
            ],
        ),
        (
            "p-musl",
            &[(
                "1.0.0",
                r#"{"os": ["linux"], "cpu": ["x64"], "libc": ["musl"]}"#,
            )],
        ),
        (
            "p-arm",
            &[("1.0.0", r#"{"os": ["linux"], "cpu": ["arm64"]}"#)],
        ),
        ("keytar", &[("7.0.0", "{}")]),
    ];
    // `latest` of root is its platform build here: pin the root instead.
    let documents = registry(packages);
    let root = root_1_0_0(&documents);
    let fetch = fetch_from(&documents);
    let host = glibc();
    let platform_of = ["root".to_owned()];
    let options = TreeOptions {
        host: &host,
        platform_of: &platform_of,
        prefer: &[],
        peers: &[],
    };
    let tree = resolve("root", root.clone(), &fetch, &options).expect("resolves");
    let packages: Vec<(&str, &str, bool)> = tree
        .packages()
        .iter()
        .map(|node| (node.path.as_str(), node.name.as_str(), node.platform))
        .collect();
    assert_eq!(packages, [("node_modules/root-linux-x64", "root", true)]);
    let arm = NpmHost {
        cpu: "arm64".to_owned(),
        ..glibc()
    };
    let options = TreeOptions {
        host: &arm,
        platform_of: &platform_of,
        prefer: &[],
        peers: &[],
    };
    let tree = resolve("root", root.clone(), &fetch, &options).expect("resolves");
    assert_eq!(tree.packages()[0].path, "node_modules/p-arm");
    let mac = NpmHost {
        os: "darwin".to_owned(),
        cpu: "arm64".to_owned(),
        libc: None,
        lacks: Vec::new(),
    };
    let options = TreeOptions {
        host: &mac,
        platform_of: &platform_of,
        prefer: &[],
        peers: &[],
    };
    let error = resolve("root", root.clone(), &fetch, &options).expect_err("no platform");
    let TestError::Tree(error) = error;
    assert_eq!(
        error.to_string(),
        "no platform package of `root` fits this host (darwin/arm64); it offers: p-arm (linux/arm64), p-musl (linux/x64 (musl)), root-linux-x64 (linux/x64 (glibc))"
    );
    // A package the data does not name: its optional packages are not
    // installed, and none is even asked for.
    let options = TreeOptions {
        host: &mac,
        platform_of: &[],
        prefer: &[],
        peers: &[],
    };
    let tree = resolve("root", root, &fetch, &options).expect("resolves");
    assert!(tree.packages().is_empty());
}

#[test]
fn pin_paths_are_checked() {
    assert!(valid_path("node_modules/a"));
    assert!(valid_path("node_modules/@s/a/node_modules/b"));
    assert!(!valid_path("node_modules/../x"));
    assert!(!valid_path("node_modules/a/../../x"));
    assert!(!valid_path("x/node_modules/a"));
    assert!(!valid_path("node_modules/"));
    assert!(!valid_path("node_modules/@s"));
    assert!(!valid_path(""));
    assert_eq!(
        parent_path("node_modules/a/node_modules/b"),
        "node_modules/a"
    );
    assert_eq!(parent_path("node_modules/a"), "");
    assert_eq!(
        parse_spec("x", "npm:@openai/codex@0.1.0-linux-x64"),
        Spec::Registry {
            name: "@openai/codex".to_owned(),
            range: "0.1.0-linux-x64".to_owned()
        }
    );
    assert_eq!(parse_spec("x", "user/repo"), Spec::Foreign);
}

#[test]
fn names_are_npm_package_names_before_anything_is_asked() {
    for good in ["a", "@s/a", "a.b", "a-b_c~d", "@types/node"] {
        assert!(super::super::specifier::valid_name(good), "{good}");
    }
    for bad in [
        "\\\\127.0.0.1:9\\beacon",
        "..",
        "a..b",
        "@s/..",
        "a%2fb",
        "a/b",
        "@s/a/b",
        "@/a",
        "A",
        "a\u{7}",
        ".a",
        "",
        "@s",
    ] {
        assert!(!super::super::specifier::valid_name(bad), "{bad:?}");
        assert_eq!(parse_spec(bad, "^1"), Spec::BadName(bad.to_owned()));
    }
    assert_eq!(parse_spec("x", "npm:..@1"), Spec::BadName("..".to_owned()));
    // A required or an optional dependency with such a name is an error
    // naming it, and its document is never asked for.
    for field in ["dependencies", "optionalDependencies"] {
        let asked = std::sync::Mutex::new(Vec::new());
        let root = PackageDocument::parse(
            format!(
                r#"{{"dist-tags": {{"latest": "1.0.0"}}, "versions": {{"1.0.0": {{
                    "dist": {{"tarball": "http://r.test/r.tgz"}},
                    "{field}": {{"\\\\127.0.0.1:9\\beacon": "^1"}}}}}}}}"#
            )
            .as_bytes(),
        )
        .expect("root")
        .pick(&crate::config::VersionRequest::Latest, "root", "")
        .expect("pick")
        .expect("latest");
        let fetch = |name: &str| -> Result<Option<PackageDocument>, TestError> {
            asked.lock().expect("lock").push(name.to_owned());
            Ok(None)
        };
        let platform_of = ["root".to_owned()];
        let options = TreeOptions {
            host: &glibc(),
            platform_of: &platform_of,
            prefer: &[],
            peers: &[],
        };
        let error = resolve("root", root, &fetch, &options).expect_err(field);
        assert!(
            matches!(&error, TestError::Tree(error @ TreeError::Name { .. })
                if error.to_string().contains("127.0.0.1:9")),
            "{field}: {error:?}"
        );
        assert!(asked.lock().expect("lock").is_empty(), "{field}");
    }
}

#[test]
fn a_cpu_without_avx2_gets_the_baseline_build_the_data_names_for_it() {
    let documents = registry(&[
        (
            "root",
            &[(
                "1.0.0",
                r#"{"optionalDependencies": {"p-linux-x64": "1.0.0", "p-linux-x64-baseline": "1.0.0"}}"#,
            )],
        ),
        (
            "p-linux-x64",
            &[("1.0.0", r#"{"os": ["linux"], "cpu": ["x64"]}"#)],
        ),
        (
            "p-linux-x64-baseline",
            &[("1.0.0", r#"{"os": ["linux"], "cpu": ["x64"]}"#)],
        ),
    ]);
    let root = root_1_0_0(&documents);
    let fetch = fetch_from(&documents);
    let prefer: Vec<crate::adapter::data::PlatformPrefer> = serde_yaml_ng::from_str(
        "[{name: 'p-{os}-{cpu}-baseline', cpuLacks: avx2}, 'p-{os}-{cpu}']",
    )
    .expect("data");
    let platform_of = ["root".to_owned()];
    for (lacks, expected) in [
        (vec![], "node_modules/p-linux-x64"),
        (vec!["avx2".to_owned()], "node_modules/p-linux-x64-baseline"),
    ] {
        let host = NpmHost { lacks, ..glibc() };
        let options = TreeOptions {
            host: &host,
            platform_of: &platform_of,
            prefer: &prefer,
            peers: &[],
        };
        let tree = resolve("root", root.clone(), &fetch, &options).expect("resolves");
        assert_eq!(tree.packages()[0].path, expected, "{host:?}");
    }
}
