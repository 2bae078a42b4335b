//! Qwen Code 0.24.4 (`@qwen-code/qwen-code`) over ACP against
//! the fake model's OpenAI chat completions: `qwen --acp`, its own
//! `run_shell_command` tool, `tools.approvalMode: default` forced by the
//! adapter data so that Qwen asks.
//!
//! Path taken: `adapter prepare qwen` from the loopback registry; its
//! `engines.node >=22` is not met by the machine's Node 20, so oneworks
//! installs the real Node 24 of the loopback Node mirror (the managed
//! runtime) and runs Qwen on it.

use super::{files_named, RealAgent, Snapshot, SECRET};
use crate::run::acp_env::EVENT_DEADLINE;
use crate::support::node_mirror::{self, NodeRelease};

const PACKAGE: &str = "@qwen-code/qwen-code";
const VERSION: &str = "0.24.4";

#[test]
fn the_real_qwen_asks_before_its_shell_tool_runs_allow_once_then_reject_once() {
    let _share = crate::support::heavy::share();
    let snapshot = Snapshot::get("qwen");
    assert_eq!(snapshot.root.name, PACKAGE);
    assert_eq!(snapshot.root.version, VERSION);
    let mut qwen = RealAgent::new("qwen", "run_shell_command");
    node_mirror::serve(&qwen.env.server, &[&NodeRelease::real()], &[]);
    qwen.write_user_config(
        "adapters:\n  qwen:\n    cli:\n      source: managed\n      version: 0.24.4\n",
    );
    let prepared = qwen.prepare();
    assert_eq!(prepared["adapter"], "qwen", "{prepared}");
    assert_eq!(prepared["version"], VERSION, "{prepared}");
    // The machine's Node is 20: Qwen runs on the managed Node 24.
    let managed = qwen
        .env
        .oneworks_home
        .join("runtimes/node/versions/24.19.0/node-v24.19.0-linux-x64/bin/node");
    assert!(
        managed.is_file(),
        "no managed Node at {}: {prepared}",
        managed.display()
    );
    let tarball = format!("/{PACKAGE}/-/qwen-code-{VERSION}.tgz");
    assert_eq!(qwen.registry.hits(&tarball), 1);
    qwen.env.set_env("OPENAI_API_KEY", SECRET);
    qwen.env.set_env("OPENAI_BASE_URL", &qwen.model.url("/v1"));
    qwen.env.set_env("OPENAI_MODEL", "fake-model");
    qwen.allow_then_reject();
    // What made it ask: the session's settings force `default` over Qwen's
    // own `auto` (a model classifier that approves without asking).
    let settings = files_named(&qwen.env.base(), "settings.json");
    let forced: Vec<serde_json::Value> = settings
        .iter()
        .filter_map(|(_, text)| serde_json::from_str(text).ok())
        .filter(|json: &serde_json::Value| json["tools"]["approvalMode"] == "default")
        .collect();
    assert!(!forced.is_empty(), "{settings:#?}");
    assert!(forced
        .iter()
        .all(|json| json["general"]["enableAutoUpdate"] == false));
    // OPENAI_API_KEY implies the method (the id, never the key).
    assert!(
        forced
            .iter()
            .all(|json| json["security"]["auth"]["selectedType"] == "openai"),
        "{settings:#?}"
    );
    // The bundled ripgrep ships 0644; the install made it executable.
    use std::os::unix::fs::PermissionsExt as _;
    let rg: Vec<_> = files_named(&qwen.env.oneworks_home, "rg")
        .into_iter()
        .filter(|(path, _)| path.to_string_lossy().contains("x64-linux"))
        .collect();
    assert!(!rg.is_empty(), "no vendor/ripgrep/x64-linux/rg installed");
    for (path, _) in rg {
        let mode = std::fs::metadata(&path).expect("rg").permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "{} is {mode:o}", path.display());
    }
    // Qwen spoke chat completions and offered its own shell tool.
    let calls = qwen.model.tool_calls();
    assert!(!calls.is_empty(), "{}", qwen.model.describe());
    assert!(calls.iter().all(|c| c.path.ends_with("/chat/completions")));
}

/// The kept session's owner record (`kept.json`) of session `talk`.
fn kept_record(qwen: &RealAgent) -> Option<serde_json::Value> {
    std::fs::read(qwen.env.project.join(".oneworks/sessions/talk/kept.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
}

/// The body of the model request that answered with the call touching
/// `file` (the turn's own request, not a background one).
fn asked_for(qwen: &RealAgent, file: &str) -> String {
    qwen.model
        .requests()
        .into_iter()
        .find(|request| {
            matches!(&request.answer, crate::support::fake_model::Answer::ToolCall { arguments, .. }
                if arguments.contains(file))
        })
        .map(|request| request.text())
        .unwrap_or_else(|| panic!("no request asked for {file}:\n{}", qwen.model.describe()))
}

/// The agent's pid, as `session list` shows the kept session.
fn kept_agent(qwen: &RealAgent) -> u32 {
    let listed = qwen.env.run(&["session", "list", "--json"]);
    listed.assert_success();
    let rows: serde_json::Value = serde_json::from_str(&listed.stdout).expect("json");
    rows.as_array()
        .and_then(|rows| rows.iter().find(|row| row["name"] == "talk"))
        .and_then(|row| row["agentPid"].as_u64())
        .and_then(|pid| u32::try_from(pid).ok())
        .unwrap_or_else(|| panic!("no kept agent listed: {rows}"))
}

#[test]
fn the_real_qwen_kept_answers_follow_ups_and_loads_its_session_after_it_died() {
    let _share = crate::support::heavy::share();
    let mut qwen = RealAgent::new("qwen", "run_shell_command").sharing_installs();
    node_mirror::serve(&qwen.env.server, &[&NodeRelease::real()], &[]);
    qwen.write_user_config(
        "adapters:\n  qwen:\n    cli:\n      source: managed\n      version: 0.24.4\n",
    );
    qwen.prepare();
    qwen.env.set_env("OPENAI_API_KEY", SECRET);
    qwen.env.set_env("OPENAI_BASE_URL", &qwen.model.url("/v1"));
    qwen.env.set_env("OPENAI_MODEL", "fake-model");
    let keep = ["--session", "talk", "--keep", "120s"];
    let first = qwen.turn_with("kept-one.txt", "Allow once", &keep);
    assert_eq!(first.stop_reason(), Some("end_turn"), "{:#?}", first.events);
    assert!(qwen.env.project.join("kept-one.txt").is_file());
    let agent = kept_agent(&qwen);
    assert!(crate::support::alive(agent), "the kept agent is gone");
    // The follow-up reaches the same agent, whose model sees the first
    // turn; its question is answered by the session's card, from another
    // process.
    let by_card = |_: &serde_json::Value, _: &mut std::process::ChildStdin| {
        let mut card = String::new();
        crate::support::wait::wait_until("the question is a card", EVENT_DEADLINE, || {
            let listed = qwen.env.run(&["session", "approvals", "talk", "--json"]);
            let cards: Vec<serde_json::Value> =
                serde_json::from_str(&listed.stdout).unwrap_or_default();
            let pending = cards.iter().find(|card| card["state"] == "pending");
            card = pending
                .and_then(|c| c["id"].as_str())
                .unwrap_or_default()
                .to_owned();
            !card.is_empty()
        });
        qwen.env
            .run(&["session", "answer", "talk", &card, "accept"])
            .assert_success();
    };
    let (second, status) = qwen.turn_answered_by("kept-two.txt", &by_card, &keep[..2]);
    assert!(
        status.success(),
        "{status}: {:#?}\n{}",
        second.events,
        second.stderr
    );
    assert!(
        qwen.env.project.join("kept-two.txt").is_file(),
        "{:#?}",
        second.events
    );
    assert_eq!(kept_agent(&qwen), agent, "a second agent was started");
    let listed = qwen.env.run(&["session", "approvals", "talk", "--json"]);
    listed.assert_stdout_contains("\"state\":\"accepted\"");
    assert!(
        asked_for(&qwen, "kept-two.txt").contains("kept-one.txt"),
        "the model lost the first turn:\n{}",
        qwen.model.describe()
    );
    eprintln!(
        "qwen kept: first turn {:?}, follow-up {:?}",
        first.elapsed, second.elapsed
    );
    // Killed between turns: the next prompt starts it again, which loads
    // the agent session (the model still sees both turns).
    // Its own process alone: what it started may hold its pipes open.
    crate::support::signal(agent, "-KILL");
    crate::support::wait::wait_until(
        "the agent is gone",
        crate::run::acp_env::EVENT_DEADLINE,
        || !crate::support::alive(agent),
    );
    let third = qwen.turn_with("kept-three.txt", "Allow once", &keep[..2]);
    assert!(
        qwen.env.project.join("kept-three.txt").is_file(),
        "{:#?}",
        third.events
    );
    assert!(
        third
            .events
            .iter()
            .any(|event| event["type"] == "diagnostic"
                && event["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("started again"))),
        "{:#?}",
        third.events
    );
    let again = kept_agent(&qwen);
    assert_ne!(again, agent);
    let asked = asked_for(&qwen, "kept-three.txt");
    assert!(
        asked.contains("kept-one.txt") && asked.contains("kept-two.txt"),
        "the loaded session lost the earlier turns:\n{}",
        qwen.model.describe()
    );
    qwen.env.run(&["session", "stop", "talk"]).assert_success();
    assert!(
        crate::run::acp_env::gone(again),
        "the agent {again} still runs"
    );
    assert!(kept_record(&qwen).is_none());
    qwen.assert_no_file_holds_the_secret();
}

/// The decision record of the default session.
fn decisions(qwen: &RealAgent) -> Vec<serde_json::Value> {
    std::fs::read_to_string(
        qwen.env
            .project
            .join(".oneworks/sessions/default/decisions.jsonl"),
    )
    .unwrap_or_default()
    .lines()
    .filter_map(|line| serde_json::from_str(line).ok())
    .collect()
}

#[test]
fn the_real_qwen_is_answered_by_the_persons_policy_and_not_by_a_projects() {
    let _share = crate::support::heavy::share();
    let mut qwen = RealAgent::new("qwen", "run_shell_command").sharing_installs();
    node_mirror::serve(&qwen.env.server, &[&NodeRelease::real()], &[]);
    let managed = "adapters:\n  qwen:\n    cli:\n      source: managed\n      version: 0.24.4\n";
    qwen.write_user_config(&format!(
        "{managed}policy:\n  rules:\n    - decide: deny\n      command: 'touch denied-*'\n    - decide: allow\n      command: 'touch allowed-*'\n  otherwise: ask\n"
    ));
    qwen.prepare();
    qwen.env.set_env("OPENAI_API_KEY", SECRET);
    qwen.env.set_env("OPENAI_BASE_URL", &qwen.model.url("/v1"));
    qwen.env.set_env("OPENAI_MODEL", "fake-model");
    // Nobody is asked: the rules answer with Qwen's own once-options.
    for (file, decision, index) in [("allowed-1.txt", "allow", 1), ("denied-1.txt", "deny", 0)] {
        let (turn, _) = qwen.turn_answered_by(file, &|_, _| panic!("a person was asked"), &[]);
        let decided: Vec<&serde_json::Value> = turn
            .events
            .iter()
            .filter(|event| event["type"] == "permission_decision")
            .collect();
        assert_eq!(decided.len(), 1, "{:#?}\n{}", turn.events, turn.stderr);
        assert_eq!(decided[0]["decision"], decision, "{}", decided[0]);
        assert_eq!(decided[0]["rule"]["index"], index, "{}", decided[0]);
        assert_eq!(
            qwen.env.project.join(file).is_file(),
            decision == "allow",
            "{file}: {:#?}",
            turn.events
        );
        let recorded = decisions(&qwen);
        let last = recorded.last().expect("a decision line");
        assert_eq!(last["decision"], decision, "{last}");
        assert_eq!(last["by"], "policy", "{last}");
    }
    // The same allow in the project's own config (not trusted) decides
    // nothing: the person is asked, and here says no.
    qwen.write_user_config(managed);
    let project_config = qwen.env.project.join(".oneworks/config.yaml");
    std::fs::write(
        &project_config,
        "policy:\n  rules:\n    - decide: allow\n      command: 'touch *'\n",
    )
    .expect("project config");
    let turn = qwen.turn_with("allowed-2.txt", "Reject once", &[]);
    assert_eq!(turn.requests.len(), 1, "{:#?}", turn.events);
    assert!(!qwen.env.project.join("allowed-2.txt").exists());
    assert!(
        !turn.types().contains(&"permission_decision"),
        "{:#?}",
        turn.events
    );
    qwen.assert_no_file_holds_the_secret();
}
