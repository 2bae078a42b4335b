//! Codex over ACP (`@agentclientprotocol/codex-acp` 2.6.0 with its own
//! `@openai/codex` 0.166.0 and the platform package
//! `@openai/codex-linux-x64`) against the fake model's OpenAI
//! responses API: `codex-acp`, the provider entry written from the user's
//! `configContent` into `$CODEX_HOME/config.toml` (`env_key =
//! "OPENAI_API_KEY"`: the key stays in the environment),
//! `INITIAL_AGENT_MODE=workspace-write` from the adapter data so that the
//! person, not a reviewer model, is asked; the model's call asks to leave
//! the sandbox (a plain command inside it runs without asking).
//!
//! Path taken: `adapter prepare codex` from the loopback registry — the
//! whole dependency tree and the one platform package, no install script.

use super::{RealAgent, Snapshot, SECRET};

pub const VERSION: &str = "2.6.0";

/// The user config of a managed Codex [`VERSION`] whose `local` provider
/// is the fake model at `url` (its key from `OPENAI_API_KEY`, in the
/// environment only); more `configContent` keys may follow.
pub fn user_config(url: &str) -> String {
    format!(
        "adapters:
  codex:
    cli:
      source: managed
      version: {VERSION}
    configContent:
      model: fake-model
      model_provider: local
      model_providers:
        local:
          name: Local
          base_url: {}
          env_key: OPENAI_API_KEY
          wire_api: responses
",
        url
    )
}

#[test]
fn the_real_codex_asks_before_its_shell_tool_runs_allow_once_then_reject_once() {
    let _share = crate::support::heavy::share();
    let snapshot = Snapshot::get("codex");
    assert_eq!(snapshot.root.name, "@agentclientprotocol/codex-acp");
    assert_eq!(snapshot.root.version, VERSION);
    let mut codex = RealAgent::new("codex", "shell|exec_command|shell_command");
    codex.write_user_config(&user_config(&codex.model.url("/v1")));
    let prepared = codex.prepare();
    assert_eq!(prepared["adapter"], "codex", "{prepared}");
    assert_eq!(prepared["version"], VERSION, "{prepared}");
    assert_eq!(
        codex
            .registry
            .hits("/@openai/codex/-/codex-0.166.0-linux-x64.tgz"),
        1,
        "the platform package (an npm alias) is fetched once"
    );
    codex.env.set_env("OPENAI_API_KEY", SECRET);
    // In `workspace-write` a `touch` inside the project runs in Codex's
    // sandbox without asking (the first try of this test saw exactly
    // that); Codex asks the person when the call asks to leave the
    // sandbox: `exec_command` with `sandbox_permissions:
    // "require_escalated"` and a `justification` (0.166.0's schema).
    let mut escalated = serde_json::Map::new();
    escalated.insert("sandbox_permissions".into(), "require_escalated".into());
    escalated.insert(
        "justification".into(),
        "Create the file the person asked for?".into(),
    );
    codex.model.set_extra_arguments(escalated);

    let allowed = "probe-allowed.txt";
    let turn = codex.turn(allowed, "Allow once");
    let describe = |turn: &super::Turn| {
        format!(
            "{:?}\n{:#?}\nstderr:\n{}\nmodel:\n{}",
            turn.types(),
            turn.events,
            turn.stderr,
            codex.model.describe()
        )
    };
    assert_eq!(turn.requests.len(), 1, "{}", describe(&turn));
    assert!(
        turn.requests[0]
            .to_string()
            .contains(&format!("touch {allowed}")),
        "{}",
        describe(&turn)
    );
    assert!(
        codex.env.project.join(allowed).is_file(),
        "the allowed touch did not run: {}",
        describe(&turn)
    );
    assert_eq!(turn.stop_reason(), Some("end_turn"), "{}", describe(&turn));
    assert!(
        turn.text().contains(crate::support::fake_model::DONE_TEXT),
        "{}",
        describe(&turn)
    );
    assert!(
        codex.model.requests().iter().any(|r| r.carries(SECRET)),
        "the model never saw the credential:\n{}",
        codex.model.describe()
    );

    // Codex's one "no" for a command (`cancel`, "No, and tell Codex what
    // to do differently") ends its turn `cancelled`: `run` says the person's
    // reject ended it (exit 10, a refusal), and the command did not run.
    let rejected = "probe-rejected.txt";
    let (turn, status) = codex.turn_ending(rejected, "Reject once");
    assert_eq!(turn.requests.len(), 1, "{}", describe(&turn));
    let options = turn.requests[0]["options"].to_string();
    assert!(
        options.contains("No, and tell Codex what to do differently"),
        "{options}"
    );
    assert_eq!(status.code(), Some(10), "{}", describe(&turn));
    assert_eq!(turn.stop_reason(), Some("cancelled"), "{}", describe(&turn));
    assert!(
        turn.stderr
            .contains("was rejected, and the agent ended its turn"),
        "{}",
        describe(&turn)
    );
    assert!(
        !codex.env.project.join(rejected).exists(),
        "a rejected touch ran: {}",
        describe(&turn)
    );
    codex.assert_no_file_holds_the_secret();

    let calls = codex.model.tool_calls();
    assert!(
        calls.iter().all(|c| c.path.ends_with("/responses")),
        "{}",
        codex.model.describe()
    );
}
