//! Trust (items 18–20 and follow-ups): what a cloned repository,
//! a hostile agent or a careless user cannot make oneworks do.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::run::acp_env::{events, options_full, types, AcpEnv};
use crate::support::manifest::sha256_hex;
use crate::support::TestEnv;

const PROMPT: &[&str] = &["--prompt", "Say hello"];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all: Vec<&str> = PROMPT.to_vec();
    all.extend_from_slice(extra);
    all
}

fn ask_run_ls(id: &str) -> Value {
    json!({
        "turn": [
            {"permission": {"id": id, "title": "Run ls", "kind": "execute", "options": options_full()}},
            "waitForCancel"
        ]
    })
}

/// `$ONEWORKS_HOME/projects/<sha256 of the project's real path>/`.
fn project_data_dir(acp: &AcpEnv) -> PathBuf {
    let real = acp.env.project.canonicalize().expect("real project path");
    acp.env
        .oneworks_home
        .join("projects")
        .join(sha256_hex(real.as_os_str().as_encoded_bytes()))
}

const NOTICE: &str = "permissions.json";

fn committed_rules(acp: &AcpEnv) {
    std::fs::write(
        acp.env.project.join(".oneworks/permissions.json"),
        r#"{"version":1,"rules":[{"tool":{"kind":"execute","title":"Run ls"},"allow":true}]}"#,
    )
    .expect("write committed rules");
}

#[test]
fn a_rules_file_committed_to_a_project_is_ignored_with_a_notice() {
    let acp = AcpEnv::new(ask_run_ls("p1"));
    committed_rules(&acp);

    // Without a channel the question is still asked, so it fails closed.
    let outcome = acp.run(&args(&[]));
    outcome.assert_code(10);
    let notices = outcome
        .stderr
        .lines()
        .filter(|line| line.contains(NOTICE) && line.contains("ignored"))
        .count();
    assert_eq!(notices, 1, "{}", outcome.describe());
    assert!(
        outcome.stderr.contains("for this project"),
        "the notice says how to make the rule again: {}",
        outcome.describe()
    );
    let answers: Vec<Value> = acp
        .received()
        .into_iter()
        .filter(|message| message.get("method").is_none() && message["id"] == "p1")
        .collect();
    assert_eq!(
        answers[0]["result"]["outcome"],
        json!({"outcome": "cancelled"}),
        "the committed rule must not allow: {answers:?}"
    );

    // With --json: one `diagnostic` event, and the question is shown.
    let mut live = acp.live(&args(&["--json"]));
    live.expect("permission_request");
    live.close_stdin();
    let (code, events, stderr) = live.finish();
    assert_eq!(code, Some(10), "{stderr}");
    let diagnostics = events
        .iter()
        .filter(|event| event["type"] == "diagnostic")
        .filter(|event| {
            event["message"]
                .as_str()
                .is_some_and(|message| message.contains(NOTICE) && message.contains("ignored"))
        })
        .count();
    assert_eq!(diagnostics, 1, "{events:#?}");
    assert!(
        !events
            .iter()
            .any(|event| event["type"] == "permission_resolved" && event["by"] == "rule"),
        "{events:#?}"
    );
    // Not imported.
    assert!(!project_data_dir(&acp).exists());
}

#[test]
fn a_project_rule_lives_in_oneworks_data_folder_and_answers_the_next_run() {
    let acp = AcpEnv::new(json!({
        "turn": [{"permission": {"id": "p1", "title": "Write notes.md", "kind": "edit", "options": options_full()}}]
    }));
    let mut live = acp.live(&args(&["--json"]));
    let request = live.expect("permission_request");
    let remember = request["options"]
        .as_array()
        .expect("options")
        .iter()
        .find(|option| option["scope"] == "project" && option["kind"] == "allow_once")
        .expect("a remember-for-project choice")
        .clone();
    live.send(&json!({"id": "p1", "reply": remember["label"]}).to_string());
    live.expect("permission_resolved");
    let (code, _, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");

    assert!(
        !acp.env.project.join(".oneworks/permissions.json").exists(),
        "nothing is written into the project tree"
    );
    let dir = project_data_dir(&acp);
    let file = dir.join("permissions.json");
    let rules = std::fs::read_to_string(&file).expect("rules in the data folder");
    assert!(rules.contains("Write notes.md"), "{rules}");
    let mode = |path: &PathBuf| {
        std::fs::metadata(path)
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&dir), 0o700);

    // A second run without any channel is answered by the rule.
    let outcome = acp.run(&args(&["--json"]));
    outcome.assert_success();
    let events = events(&outcome);
    assert!(!types(&events).contains(&"permission_request".to_owned()));
    assert!(events
        .iter()
        .any(|event| event["type"] == "permission_resolved" && event["by"] == "rule"));
}

#[test]
fn a_linked_projects_folder_is_refused_and_nothing_is_written_through_it() {
    let acp = AcpEnv::new(json!({
        "turn": [{"permission": {"id": "p1", "title": "Write notes.md", "kind": "edit", "options": options_full()}}]
    }));
    let elsewhere = acp.env.outside.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::fs::create_dir_all(&acp.env.oneworks_home).expect("mkdir");
    std::os::unix::fs::symlink(&elsewhere, acp.env.oneworks_home.join("projects"))
        .expect("symlink");
    let mut live = acp.live(&args(&["--json"]));
    let request = live.expect("permission_request");
    let remember = request["options"]
        .as_array()
        .expect("options")
        .iter()
        .find(|option| option["scope"] == "project" && option["kind"] == "allow_once")
        .expect("a remember-for-project choice")
        .clone();
    live.send(&json!({"id": "p1", "reply": remember["label"]}).to_string());
    live.expect("permission_resolved");
    let (code, events, stderr) = live.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        events.iter().any(|event| event["type"] == "diagnostic"
            && event["message"]
                .as_str()
                .is_some_and(|message| message.contains("symbolic link"))),
        "{events:#?}"
    );
    assert_eq!(
        std::fs::read_dir(&elsewhere).expect("read").count(),
        0,
        "nothing written through the link"
    );
}

#[test]
fn a_hard_linked_skill_md_is_refused_and_nothing_is_written() {
    let env = crate::support::TestEnv::new();
    let credentials = env.home.join(".aws/credentials");
    std::fs::create_dir_all(credentials.parent().expect("parent")).expect("mkdir");
    std::fs::write(
        &credentials,
        "[default]\naws_secret_access_key = canary-aws\n",
    )
    .expect("write canary");
    let folder = env.project.join(".oneworks/skills/review");
    std::fs::create_dir_all(&folder).expect("mkdir");
    std::fs::hard_link(&credentials, folder.join("SKILL.md")).expect("hard link");
    env.write_config(
        "adapters:\n  kiro:\n    systemPrompt: hi\n    skills:\n      - name: Review\n        path: ./skills/review\n",
    );
    for args in [&["config", "check"][..], &["config", "render", "kiro"][..]] {
        let outcome = env.run(args);
        outcome.assert_code(6);
        assert!(
            outcome.stderr.contains("hard link"),
            "{args:?}: {}",
            outcome.describe()
        );
        assert!(!outcome.all_text().contains("canary-aws"));
    }
    let session = env.project.join(".oneworks/sessions/default");
    assert!(
        !session.join("kiro-home/skills/Review").exists(),
        "nothing staged"
    );
    assert!(
        !session.join("kiro-home/agents/oneworks.json").exists(),
        "no agent file listing the skill"
    );
}

const BIDI: &[char] = &[
    '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}',
    '\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}',
];

#[test]
fn bidirectional_controls_from_an_agent_never_reach_the_terminal() {
    // With U+202E, "Run <RLO>mr- fr<PDF>" shows as "Run rf -rm": a title that lies.
    let title: String = "Run \u{202E}mr- fr\u{202C} \u{2066}x\u{2069}\u{200F}".to_owned();
    let acp = AcpEnv::new(json!({
        "turn": [
            {"text": "Hello \u{202E}dlrow\u{202C} \u{2067}x\u{2069}\u{200E}"},
            {"toolCall": {"id": "t1", "title": title, "kind": "execute"}}
        ]
    }));
    let outcome = acp.run(&args(&[]));
    outcome.assert_success();
    assert!(
        outcome.stdout.starts_with("Hello "),
        "{}",
        outcome.describe()
    );
    outcome.assert_stderr_contains("tool: Run ");
    for c in BIDI {
        assert!(
            !outcome.all_text().contains(*c),
            "U+{:04X} reached the terminal: {}",
            u32::from(*c),
            outcome.describe()
        );
    }
}

/// Rust debug output: `Name { field: …`, `Some(…)`, `Number(…)`.
fn debug_structs(text: &str) -> Vec<String> {
    let pattern = regex::Regex::new(
        r"\b[A-Z][A-Za-z]+ \{ [a-z_]+: |\b(Some|None|Number|String|Object|Array|Ok|Err)\(|\bNone\b",
    )
    .expect("regex");
    text.lines()
        .filter(|line| pattern.is_match(line))
        .map(str::to_owned)
        .collect()
}

#[test]
fn very_verbose_logs_show_no_rust_debug_structs() {
    let acp = AcpEnv::new(json!({
        "turn": [
            // A response nobody waits for, with a numeric and a string id.
            {"garbage": r#"{"jsonrpc":"2.0","id":999,"result":{}}"#},
            {"garbage": r#"{"jsonrpc":"2.0","id":"stray","result":{}}"#},
            {"text": "hello"}
        ]
    }));
    let outcome = acp.run(&args(&["-vv"]));
    outcome.assert_success();
    assert!(
        outcome.stderr.contains("capabilities"),
        "the debug log runs: {}",
        outcome.describe()
    );
    let found = debug_structs(&outcome.stderr);
    assert!(found.is_empty(), "{found:#?}\n{}", outcome.describe());
}

#[test]
fn attach_without_a_terminal_is_a_usage_error_and_leaves_the_session_running() {
    let session = crate::session::supervisor::Session::new(|_| json!({}));
    // Not running: still the terminal is what is missing.
    let outcome = session.env.run(&["session", "attach", "default"]);
    outcome.assert_code(2);
    outcome.assert_stderr_contains("terminal");

    session.start();
    let outcome = session.env.run(&["session", "attach", "default"]);
    outcome.assert_code(2);
    assert!(
        outcome.stderr.contains("terminal") && !outcome.stderr.contains("tmux attach"),
        "{}",
        outcome.describe()
    );
    assert!(session.record().is_some(), "the session still runs");
    session.stop_and_check();
}

#[test]
fn completions_never_offer_the_hidden_supervise_subcommand() {
    let word = regex::Regex::new(r"\bsupervise\b").expect("regex");
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let outcome = env.run(&["completions", shell]);
        outcome.assert_success();
        let script = &outcome.stdout;
        assert!(script.contains("approvals"), "{shell}: {script}");
        assert!(!word.is_match(script), "{shell} offers `supervise`");
    }
}

#[test]
fn every_name_argument_has_help_text() {
    let env = TestEnv::new();
    for path in [
        &["session", "attach"][..],
        &["session", "stop"],
        &["session", "approvals"],
        &["session", "answer"],
    ] {
        let mut args = path.to_vec();
        args.push("--help");
        let outcome = env.run(&args);
        outcome.assert_success();
        let help = &outcome.stdout;
        let lines: Vec<&str> = help.lines().collect();
        // Under "Arguments:", `<NAME>` with its help on the same line or
        // (long help) on the next.
        let at = lines
            .iter()
            .position(|line| line.trim_start().starts_with("<NAME>"))
            .unwrap_or_else(|| panic!("{path:?}: no <NAME> argument\n{help}"));
        let same_line = lines[at].trim_start()["<NAME>".len()..].trim();
        let next_line = lines.get(at + 1).map_or("", |line| line.trim());
        assert!(
            !same_line.is_empty() || !next_line.is_empty(),
            "{path:?}: <NAME> has no help text\n{help}"
        );
    }
}

#[test]
fn status_reports_a_probe_that_never_ran_as_null() {
    use crate::support::fake::{install_fake, kiro_script, with};
    let env = crate::support::TestEnv::new();
    let log = env.outside.join("fake.log");
    let script = with(
        &with(&kiro_script("2.15.1"), "versionExit", json!(1)),
        "log",
        json!(log),
    );
    install_fake(&env.bin, "kiro-cli", &script);
    env.write_config("adapters:\n  kiro:\n    cli:\n      source: system\n");
    let outcome = env.run(&["adapter", "status", "kiro", "--json"]);
    let status = outcome.json();
    let system = status["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .find(|candidate| candidate["source"] == "system")
        .unwrap_or_else(|| panic!("no system candidate: {}", outcome.describe()))
        .clone();
    // `--version` failed, so `acp --help` was never run: not "failed".
    let ran_acp = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .any(|line| line.contains("\"acp\""));
    assert!(!ran_acp, "the acp probe ran after all");
    assert_eq!(
        system["probes"],
        json!({"version": false, "acp": null}),
        "{}",
        outcome.describe()
    );
    let outcome = env.run(&["adapter", "status", "kiro"]);
    outcome.assert_stderr_contains("acp not run");
}

#[test]
fn an_install_record_that_is_a_fifo_is_refused_not_waited_on() {
    let env = crate::support::TestEnv::new();
    env.publish("2.15.1", &[crate::support::archive::Format::TarGz]);
    crate::support::assert_prepared(&env.prepare(&[]), "managed", "2.15.1");
    let record = env.version_dir("2.15.1").join("install.json");
    std::fs::remove_file(&record).expect("remove record");
    let made = std::process::Command::new("mkfifo")
        .arg(&record)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    // Nobody ever writes the FIFO: a reader that opens it blocks for good.
    let outcome = env
        .oneworks()
        .args(["adapter", "status", "kiro", "--json"])
        .deadline(std::time::Duration::from_secs(30))
        .run();
    let status = outcome.json();
    assert_eq!(status["selected"], Value::Null, "{}", outcome.describe());
    let reason = status["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .find(|candidate| candidate["source"] == "managed")
        .and_then(|candidate| candidate["reason"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert!(
        reason.contains("install.json") && reason.contains("FIFO"),
        "{}",
        outcome.describe()
    );
}

#[test]
fn quiet_silences_the_short_secret_warning() {
    let mut env = crate::support::TestEnv::new();
    env.set_env("AWS_SESSION_TOKEN", "on");
    env.write_config("adapters:\n  kiro:\n    systemPrompt: hi\n");
    let outcome = env.run(&["config", "render", "kiro"]);
    outcome.assert_success();
    assert!(
        outcome.stderr.contains("is shorter than"),
        "warned without -q: {}",
        outcome.describe()
    );
    let outcome = env.run(&["-q", "config", "render", "kiro"]);
    outcome.assert_success();
    assert!(
        !outcome.stderr.contains("shorter than"),
        "-q prints only errors: {}",
        outcome.describe()
    );
}
