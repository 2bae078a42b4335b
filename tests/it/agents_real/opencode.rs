//! opencode 1.18.33 (`opencode-ai` + its platform package
//! `opencode-linux-x64`) over ACP against the fake model's
//! OpenAI chat completions: `opencode acp`, its own `bash` tool, the
//! provider entry written from the user's `configContent` (the key as
//! `{env:OPENAI_API_KEY}`, never in a file), `permission.bash: ask` forced
//! by the adapter data (and `OPENCODE_PERMISSION` in its ACP
//! environment) so that opencode asks.
//!
//! Path taken: `adapter prepare opencode` from the loopback registry — the
//! placeholder `bin/opencode.exe` of the main package replaced by the
//! platform package's `bin/opencode` (`npm.platformBin`), no install
//! script run.

use super::{RealAgent, Snapshot, SECRET};

pub const VERSION: &str = "1.18.33";

/// The user config of a managed opencode [`VERSION`] whose `local`
/// provider is the fake model at `url` (its key from `OPENAI_API_KEY`, in
/// the environment only).
pub fn user_config(url: &str) -> String {
    format!(
        "adapters:
  opencode:
    cli:
      source: managed
      version: {VERSION}
    passEnv: [npm_config_registry]
    configContent:
      model: local/fake-model
      small_model: local/fake-model
      provider:
        local:
          npm: \"@ai-sdk/openai-compatible\"
          name: Local
          options:
            baseURL: {}
            apiKey: \"{{env:OPENAI_API_KEY}}\"
          models:
            fake-model:
              name: Fake model
",
        url
    )
}

#[test]
fn the_real_opencode_asks_before_its_shell_tool_runs_allow_once_then_reject_once() {
    let _share = crate::support::heavy::share();
    let snapshot = Snapshot::get("opencode");
    assert_eq!(snapshot.root.name, "opencode-ai");
    assert_eq!(snapshot.root.version, VERSION);
    let mut opencode = RealAgent::new("opencode", "bash");
    opencode.write_user_config(&user_config(&opencode.model.url("/v1")));
    let prepared = opencode.prepare();
    assert_eq!(prepared["adapter"], "opencode", "{prepared}");
    assert_eq!(prepared["version"], VERSION, "{prepared}");
    assert_eq!(
        opencode
            .registry
            .hits("/opencode-linux-x64/-/opencode-linux-x64-1.18.33.tgz"),
        1,
        "the platform package is fetched once"
    );
    assert_eq!(
        opencode
            .registry
            .hits("/opencode-linux-x64-baseline/-/opencode-linux-x64-baseline-1.18.33.tgz"),
        0,
        "only one platform package is installed"
    );
    opencode.env.set_env("OPENAI_API_KEY", SECRET);
    // opencode's own npm would add `@opencode-ai/plugin` to its config
    // folders at every start; pointed at this loopback registry, it must
    // not ask it for anything (`npm_config_offline` in opencode's data).
    opencode
        .env
        .set_env("npm_config_registry", &opencode.registry.url("/"));
    let before = opencode.registry.total_hits();
    opencode.allow_then_reject();
    assert_eq!(
        opencode.registry.total_hits(),
        before,
        "opencode fetched from the npm registry during its turns"
    );
    let calls = opencode.model.tool_calls();
    assert!(!calls.is_empty(), "{}", opencode.model.describe());
    assert!(
        calls.iter().all(|c| c.path.ends_with("/chat/completions")),
        "{}",
        opencode.model.describe()
    );
}
