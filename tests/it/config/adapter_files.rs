//! Adapter files are validated when loaded: a file in
//! `ONEWORKS_ADAPTERS_DIR` that does not parse, or whose values oneworks
//! cannot use (a version, a path leaving the home, a quirk set it does not
//! ship, a missing section), is reported with its file, line and column
//! and key; `adapter list` skips it (exit 0, a warning) and lists the
//! others; a command naming it fails with the same message and leaves
//! nothing behind.

use serde_json::Value;

use crate::support::adapter_yaml::AdapterYaml;
use crate::support::{walk, TestEnv};

/// The built-in Kiro file as adapter `name`, with `change` applied.
fn adapter_file(name: &str, change: impl FnOnce(&mut AdapterYaml)) -> String {
    let mut data = AdapterYaml::builtin("kiro");
    data.set("id", name);
    change(&mut data);
    data.text()
}

/// A world whose adapter folder holds a good `other.yaml` and `files`.
fn world(files: &[(&str, String)]) -> TestEnv {
    let mut env = TestEnv::new();
    let dir = env.base().join("adapters");
    std::fs::create_dir_all(&dir).expect("adapters dir");
    AdapterYaml::builtin("kiro")
        .set("id", "other")
        .write(&dir.join("other.yaml"));
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("write adapter file");
    }
    env.set_env("ONEWORKS_ADAPTERS_DIR", &dir.to_string_lossy());
    env
}

/// `adapter list --json` succeeds, lists the good adapters and skips
/// `broken` with a problem naming its file; returns the problem.
#[track_caller]
fn listed_without(env: &TestEnv, broken: &str) -> String {
    let outcome = env.run(&["adapter", "list", "--json"]);
    outcome.assert_success();
    let document = outcome.json();
    let names: Vec<&str> = document["adapters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|adapter| adapter["adapter"].as_str())
        .collect();
    for good in ["gemini", "kiro", "other"] {
        assert!(
            names.contains(&good),
            "{good} missing\n{}",
            outcome.describe()
        );
    }
    assert!(!names.contains(&broken), "{}", outcome.describe());
    let skipped = document["skipped"].as_array().cloned().unwrap_or_default();
    assert_eq!(skipped.len(), 1, "{}", outcome.describe());
    assert_eq!(skipped[0]["adapter"], broken);
    let problem = skipped[0]["problem"]
        .as_str()
        .expect("a problem")
        .to_owned();
    assert!(
        problem.contains(&format!("{broken}.yaml")),
        "the file is named: {problem}"
    );
    assert!(
        outcome.stderr.contains("warning: skipped the adapter")
            && outcome.stderr.contains(&format!("{broken}.yaml")),
        "{}",
        outcome.describe()
    );
    // Human output lists the others too.
    let human = env.run(&["adapter", "list"]);
    human.assert_success();
    human.assert_stderr_contains("other (Kiro CLI)");
    problem
}

/// A command naming `broken` fails (exit 3) with `problem`'s message and
/// creates nothing for it.
#[track_caller]
fn naming_it_fails(env: &TestEnv, broken: &str, expected: &str) {
    let outcome = env.run(&["adapter", "prepare", broken, "--json"]);
    let message = outcome.assert_error(3, "config");
    assert!(
        message.contains(expected),
        "{message}\n{}",
        outcome.describe()
    );
    let left: Vec<_> = walk(&env.base())
        .into_iter()
        .filter(|path| {
            !path.starts_with(env.base().join("adapters"))
                && path.to_string_lossy().contains(broken)
        })
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// `file.yaml:LINE:COLUMN` in `text`.
#[track_caller]
fn location_of(text: &str, file: &str) -> (usize, usize) {
    let at = text
        .find(&format!("{file}:"))
        .unwrap_or_else(|| panic!("no `{file}:LINE:COLUMN` in {text}"));
    let rest = &text[at + file.len() + 1..];
    let mut parts = rest.splitn(3, |c: char| !c.is_ascii_digit());
    let line = parts.next().and_then(|n| n.parse().ok()).expect("a line");
    let column = parts.next().and_then(|n| n.parse().ok()).expect("a column");
    (line, column)
}

/// The 1-based line of the first line of `text` holding `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|line| line.contains(needle))
        .map(|index| index + 1)
        .unwrap_or_else(|| panic!("`{needle}` not in the file"))
}

#[test]
fn a_file_that_is_not_yaml_is_skipped_by_list_and_fails_the_command_naming_it() {
    let text = "id: broken\ndisplayName: [unclosed\nbinary: {}\n".to_owned();
    let env = world(&[("broken.yaml", text)]);
    let problem = listed_without(&env, "broken");
    let (line, _) = location_of(&problem, "broken.yaml");
    assert!(line >= 2, "{problem}");
    naming_it_fails(&env, "broken", "broken.yaml:");
}

#[test]
fn a_version_that_is_not_one_is_reported_at_its_line_and_column() {
    let text = adapter_file("badver", |data| {
        data.set("tui.recorderSince", "2.4");
    });
    let line = line_of(&text, "recorderSince:");
    let env = world(&[("badver.yaml", text)]);
    let problem = listed_without(&env, "badver");
    assert_eq!(location_of(&problem, "badver.yaml"), (line, 3), "{problem}");
    assert!(problem.contains("`tui.recorderSince`"), "{problem}");
    assert!(problem.contains("`2.4` is not a version"), "{problem}");
    naming_it_fails(&env, "badver", &format!("badver.yaml:{line}:3"));
}

#[test]
fn a_path_that_leaves_the_home_is_refused() {
    for (name, path, why) in [
        (
            "climbs",
            "../../outside/settings.json",
            "climbs out of the agent's home",
        ),
        ("absolute", "/etc/oneworks-settings.json", "is absolute"),
    ] {
        let text = adapter_file(name, |data| {
            data.set("session.settings.path", path);
        });
        let line = line_of(&text, &format!("path: {path}"));
        let env = world(&[(&format!("{name}.yaml"), text)]);
        let problem = listed_without(&env, name);
        assert!(problem.contains("`session.settings.path`"), "{problem}");
        assert!(problem.contains(why), "{problem}");
        assert_eq!(
            location_of(&problem, &format!("{name}.yaml")).0,
            line,
            "{problem}"
        );
        naming_it_fails(&env, name, why);
    }
}

#[test]
fn an_unknown_quirk_set_is_refused_naming_the_known_ones() {
    let text = adapter_file("quirky", |data| {
        data.set("acp.quirks", "kiroo");
    });
    let line = line_of(&text, "quirks: kiroo");
    let env = world(&[("quirky.yaml", text)]);
    let problem = listed_without(&env, "quirky");
    assert_eq!(location_of(&problem, "quirky.yaml"), (line, 3), "{problem}");
    assert!(problem.contains("unknown quirk set `kiroo`"), "{problem}");
    assert!(problem.contains("gemini"), "{problem}");
    naming_it_fails(&env, "quirky", "unknown quirk set `kiroo`");
}

#[test]
fn a_missing_section_or_a_bad_program_name_is_refused() {
    let without_probes = adapter_file("noprobes", |data| {
        data.remove("probes");
    });
    let bad_program = adapter_file("badprog", |data| {
        data.set("acp.command.0.program", "../../bin/sh");
    });
    let env = world(&[
        ("noprobes.yaml", without_probes),
        ("badprog.yaml", bad_program.clone()),
    ]);
    let outcome = env.run(&["adapter", "list", "--json"]);
    outcome.assert_success();
    let document = outcome.json();
    let skipped: Vec<(String, String)> = document["skipped"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|entry| {
            (
                entry["adapter"].as_str().unwrap_or_default().to_owned(),
                entry["problem"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let problem = |name: &str| {
        skipped
            .iter()
            .find(|(adapter, _)| adapter == name)
            .map(|(_, problem)| problem.clone())
            .unwrap_or_else(|| panic!("{name} not skipped\n{}", outcome.describe()))
    };
    assert!(
        problem("noprobes").contains("missing field `probes`"),
        "{}",
        problem("noprobes")
    );
    let bad = problem("badprog");
    assert!(bad.contains("`acp.command[0].program`"), "{bad}");
    assert!(bad.contains("not a bare program name"), "{bad}");
    // The list item's line, or (for a list written without indentation
    // under its key, as the YAML emitter writes it) the key's line above.
    let item = line_of(&bad_program, "program: ../../bin/sh");
    let reported = location_of(&bad, "badprog.yaml").0;
    assert!(
        reported == item || (reported == item - 1 && line_of(&bad_program, "command:") == reported),
        "{bad}"
    );
    let names: Vec<&str> = document["adapters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|adapter| adapter["adapter"].as_str())
        .collect();
    // Every good file is listed (the built-ins and `other`), neither broken one.
    for listed in ["gemini", "kiro", "other"] {
        assert!(names.contains(&listed), "{listed}: {}", outcome.describe());
    }
    for broken in ["noprobes", "badprog"] {
        assert!(!names.contains(&broken), "{broken}: {}", outcome.describe());
    }
    naming_it_fails(&env, "noprobes", "missing field `probes`");
    naming_it_fails(&env, "badprog", "not a bare program name");
}

#[test]
fn a_good_adapter_beside_a_broken_one_still_runs_its_commands() {
    let env = world(&[("broken.yaml", "id: [".to_owned())]);
    // `other` is a Kiro-shaped adapter: its status is reported (no
    // network is needed for that), not a config error.
    let outcome = env.run(&["adapter", "status", "other", "--json"]);
    outcome.assert_success();
    let document: Value = outcome.json();
    assert!(
        document.get("candidates").is_some(),
        "{}",
        outcome.describe()
    );
}

/// The files named by `ONEWORKS_KIRO_ADAPTER_FILE` and a `file://` manifest
/// URL follow the config file's rule: a device is refused, not drained, and
/// a FIFO is refused, not waited on.
#[test]
fn special_files_named_by_the_environment_are_refused_not_read() {
    let mut env = TestEnv::new();
    let fifo = env.outside.join("manifest.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success(), "mkfifo");

    env.set_env("ONEWORKS_KIRO_ADAPTER_FILE", "/dev/zero");
    let refusal =
        "refusing to read adapter data file `/dev/zero`: it is a device, not a regular file";
    // `adapter list` skips it with the refusal (tests/it/adapter_files.rs);
    // a command naming the adapter fails with it.
    let outcome = env.run(&["adapter", "list", "--json"]);
    outcome.assert_success();
    assert_eq!(outcome.json()["skipped"][0]["problem"], refusal);
    let outcome = env.run(&["adapter", "status", "kiro", "--json"]);
    let message = outcome.assert_error(3, "config");
    assert_eq!(message, refusal);

    env.set_env(
        "ONEWORKS_KIRO_ADAPTER_FILE",
        fifo.to_str().expect("utf-8 path"),
    );
    let outcome = env.run(&["adapter", "list", "--json"]);
    outcome.assert_success();
    env.run(&["adapter", "status", "kiro", "--json"])
        .assert_error(3, "config");

    env.env.remove("ONEWORKS_KIRO_ADAPTER_FILE");
    env.set_env("ONEWORKS_TEST_BACKOFF_MS", "0");
    let url = format!("file://{}", fifo.display());
    env.set_env("ONEWORKS_KIRO_MANIFEST_URL", &url);
    let outcome = env.prepare(&[]);
    let message = outcome.assert_error(4, "network");
    assert_eq!(
        message,
        format!("reading `{url}` failed: it is a FIFO, not a regular file")
    );
    env.assert_nothing_published("2.15.1");
}
