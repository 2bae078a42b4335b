//! Platform packages in `optionalDependencies`, picked by
//! `os`/`cpu`/`libc` (the others never downloaded): the one for this
//! host installed, none for this host an exit 4, and named peers with the
//! preferred platform package.

use super::*;

/// Four platform packages and a non-platform optional one: the one
/// fitting this host's os/cpu/libc is installed and nothing else is
/// downloaded; its file is placed as the main package's bin.
#[test]
fn npm_tree_installs_the_one_platform_package_for_this_host() {
    let env = tree_env("platformPackages: ['@fake/gemini-cli'], platformBin: bin/real");
    let cpu = npm_cpu();
    let platform = |name: &str, os: &str, cpu: &str, libc: Option<&str>| {
        let mut fields = json!({ "os": [os], "cpu": [cpu] });
        if let Some(libc) = libc {
            fields["libc"] = json!([libc]);
        }
        let script = format!("#!/bin/sh\necho '1.0.0'\n# {name}\n");
        let published = Published::package(
            &env.server,
            name,
            "1.0.0",
            fields,
            &[("bin/real", 0o755, &script)],
        );
        npm_registry::publish_package(&env.server, &[&published]);
        published
    };
    let ours = platform(&format!("fake-linux-{cpu}"), "linux", cpu, Some(npm_libc()));
    let other_libc = platform(
        &format!("fake-linux-{cpu}-{}", other_libc()),
        "linux",
        cpu,
        Some(other_libc()),
    );
    let other_cpu = platform(
        &format!("fake-linux-{}", other_cpu()),
        "linux",
        other_cpu(),
        None,
    );
    let mac = platform("fake-darwin-arm64", "darwin", "arm64", None);
    let keytar = Published::package(&env.server, "keytar", "7.9.0", json!({}), &[]);
    npm_registry::publish_package(&env.server, &[&keytar]);
    // A dependency with platform packages of its own that the data does
    // not name: they are not installed, not even asked for.
    let helper_platform = Published::package(
        &env.server,
        &format!("helper-linux-{cpu}"),
        "1.0.0",
        json!({ "os": ["linux"], "cpu": [cpu] }),
        &[],
    );
    npm_registry::publish_package(&env.server, &[&helper_platform]);
    let helper = Published::package(
        &env.server,
        "helper",
        "1.0.0",
        json!({ "optionalDependencies": { helper_platform.name.clone(): "1.0.0" } }),
        &[],
    );
    npm_registry::publish_package(&env.server, &[&helper]);
    let mut optional = serde_json::Map::new();
    for published in [&ours, &other_libc, &other_cpu, &mac, &keytar] {
        optional.insert(published.name.clone(), json!(published.version));
    }
    // The main package's bin is a placeholder that fails, as opencode's
    // before its postinstall script ran.
    let placeholder = [
        Entry::file(
            "package/package.json",
            0o644,
            json!({"name": npm_registry::PACKAGE, "version": "1.0.0"}).to_string(),
        ),
        Entry::file(
            &format!("package/{}", npm_registry::BIN),
            0o644,
            "#!/bin/sh\necho 'placeholder: the postinstall script did not run' >&2\nexit 1\n",
        ),
    ];
    let main = Published::with_entries(&env.server, "1.0.0", &placeholder)
        .field("optionalDependencies", Value::Object(optional))
        .field("dependencies", json!({ "helper": "^1.0.0" }));
    npm_registry::publish(&env.server, "1.0.0", &[&main]);

    let outcome = env.prepare(&[]);
    let document = assert_prepared(&outcome, "managed", "1.0.0");
    let root = package_dir(&env, "1.0.0");
    assert_eq!(path_of(&document), root.join(npm_registry::BIN));
    assert_eq!(env.server.hits(&ours.path), 1);
    for skipped in [&other_libc, &other_cpu, &mac, &keytar] {
        assert_eq!(
            env.server.hits(&skipped.path),
            0,
            "{} is never downloaded",
            skipped.name
        );
        assert!(!root.join("node_modules").join(&skipped.name).exists());
    }
    assert!(root
        .join(format!("node_modules/fake-linux-{cpu}/bin/real"))
        .is_file());
    assert_eq!(env.server.hits(&helper.path), 1);
    assert_eq!(env.server.hits(&helper_platform.path), 0);
    assert_eq!(env.server.hits(&document_path(&helper_platform.name)), 0);
    // platformBin: the platform package's file is the bin now, executable.
    let bin = std::fs::read_to_string(root.join(npm_registry::BIN)).expect("bin");
    assert!(bin.contains(&format!("# fake-linux-{cpu}")), "{bin}");
    let (code, out) = crate::support::run_binary(&root.join(npm_registry::BIN), &["--version"]);
    assert_eq!((code, out.trim()), (Some(0), "1.0.0"));
    let lock = lock_json(&env);
    let packages = lock["npm"]["packages"].as_array().expect("packages");
    assert_eq!(packages.len(), 2, "{packages:?}");
    assert_eq!(packages[1]["path"], "node_modules/helper");
    assert!(packages[1].get("platform").is_none());
    assert_eq!(
        packages[0]["path"],
        format!("node_modules/fake-linux-{cpu}")
    );
    assert_eq!(packages[0]["platform"], true);
    assert_eq!(packages[0]["integrity"], npm_registry::sri(&ours.bytes));
    env.assert_no_leftovers();
}

/// No platform package fits: exit 4 naming those offered; nothing
/// downloaded, published or pinned.
#[test]
fn npm_tree_without_a_platform_for_this_host_is_exit_4() {
    let env = tree_env("platformPackages: ['@fake/gemini-cli']");
    let mut optional = serde_json::Map::new();
    let mut tarballs = Vec::new();
    for (name, os, cpu) in [
        ("fake-darwin-arm64", "darwin", "arm64"),
        ("fake-win32-x64", "win32", "x64"),
    ] {
        let published = Published::package(
            &env.server,
            name,
            "1.0.0",
            json!({ "os": [os], "cpu": [cpu] }),
            &[("bin/real", 0o755, "#!/bin/sh\n")],
        );
        npm_registry::publish_package(&env.server, &[&published]);
        optional.insert(name.to_owned(), json!("1.0.0"));
        tarballs.push(published.path.clone());
    }
    let main = main_package(
        &env,
        "1.0.0",
        json!({ "optionalDependencies": Value::Object(optional) }),
    );
    npm_registry::publish(&env.server, "1.0.0", &[&main]);
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(7, "no_usable_cli");
    assert!(
        message.starts_with(&format!(
            "no platform package of `{}` fits this host (linux/{}",
            npm_registry::PACKAGE,
            npm_cpu()
        )),
        "{message}"
    );
    assert!(
        message
            .ends_with("it offers: fake-darwin-arm64 (darwin/arm64), fake-win32-x64 (win32/x64)"),
        "{message}"
    );
    assert_eq!(env.server.hits(&main.path), 0, "nothing is downloaded");
    for path in &tarballs {
        assert_eq!(env.server.hits(path), 0);
    }
    env.assert_nothing_published("1.0.0");
    assert!(!env.kiro_lock().exists());
}

/// `peerDependencies` are installed only when the data names them; when
/// two platform packages fit, `platformPrefer` (with the host's values in
/// it) picks one and the other is never downloaded.
#[test]
fn npm_tree_named_peers_and_the_preferred_platform_package() {
    let env = tree_env(
        "platformPackages: ['@fake/gemini-cli'], platformPrefer: ['fake-{os}-{cpu}-baseline'], peerDependencies: [wanted]",
    );
    let cpu = npm_cpu();
    let mut optional = serde_json::Map::new();
    let mut fitting = Vec::new();
    for name in [
        format!("fake-linux-{cpu}"),
        format!("fake-linux-{cpu}-baseline"),
    ] {
        let published = Published::package(
            &env.server,
            &name,
            "1.0.0",
            json!({ "os": ["linux"], "cpu": [cpu] }),
            &[],
        );
        npm_registry::publish_package(&env.server, &[&published]);
        optional.insert(name, json!("1.0.0"));
        fitting.push(published);
    }
    let wanted = js_package(&env, "wanted", "1.1.0", json!({}), "wanted");
    let unwanted = js_package(&env, "unwanted", "1.0.0", json!({}), "unwanted");
    npm_registry::publish_package(&env.server, &[&wanted]);
    npm_registry::publish_package(&env.server, &[&unwanted]);
    let main = main_package(
        &env,
        "1.0.0",
        json!({
            "optionalDependencies": Value::Object(optional),
            "peerDependencies": { "wanted": "^1", "unwanted": "^1" },
        }),
    );
    npm_registry::publish(&env.server, "1.0.0", &[&main]);
    assert_prepared(&env.prepare(&[]), "managed", "1.0.0");
    let root = package_dir(&env, "1.0.0");
    assert_eq!(
        installed_version(&root.join("node_modules/wanted")),
        "1.1.0"
    );
    assert!(!root.join("node_modules/unwanted").exists());
    assert_eq!(env.server.hits(&unwanted.path), 0);
    assert_eq!(env.server.hits(&document_path("unwanted")), 0);
    // The shorter name would win without the preference.
    assert_eq!(env.server.hits(&fitting[0].path), 0);
    assert_eq!(env.server.hits(&fitting[1].path), 1);
    assert!(root
        .join(format!(
            "node_modules/fake-linux-{cpu}-baseline/package.json"
        ))
        .is_file());
    env.assert_no_leftovers();
}
