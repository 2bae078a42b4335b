//! GitHub Copilot CLI 1.0.102 (`@github/copilot` + `@github/copilot-linux-x64`,
//! SPEC §11.4) over ACP against the fake model's OpenAI chat completions:
//! `copilot --acp --stdio`, BYOK through `COPILOT_PROVIDER_*`,
//! `COPILOT_OFFLINE=true` (no GitHub login, no telemetry, no update).
//!
//! Path taken: `source: path` — the native binary of the verified platform
//! package, extracted by the test (what `npm-loader.js` would run).
//! `adapter prepare copilot` from the loopback registry replaces it once
//! platform packages and dependency trees (helper "npmtree") land.

use super::{RealAgent, Snapshot, SECRET, SERIAL};

const PLATFORM: &str = "@github/copilot-linux-x64";
const VERSION: &str = "1.0.102";

#[test]
fn the_real_copilot_asks_before_its_shell_tool_runs_allow_once_then_reject_once() {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let snapshot = Snapshot::get("copilot");
    assert_eq!(snapshot.root.name, "@github/copilot");
    assert_eq!(snapshot.root.version, VERSION);
    let copilot = RealAgent::new("copilot", "bash");
    let install = snapshot.extract(PLATFORM, &copilot.env.base().join("installs"));
    let binary = install.join("copilot");
    crate::support::set_mode(&binary, 0o755);
    copilot.write_user_config(&format!(
        "adapters:\n  copilot:\n    cli:\n      source: path\n      path: {}\n",
        binary.display()
    ));
    let mut copilot = copilot;
    copilot
        .env
        .set_env("COPILOT_PROVIDER_BASE_URL", &copilot.model.url("/v1"));
    copilot.env.set_env("COPILOT_PROVIDER_TYPE", "openai");
    copilot.env.set_env("COPILOT_PROVIDER_API_KEY", SECRET);
    copilot.env.set_env("COPILOT_MODEL", "fake-model");
    copilot.env.set_env("COPILOT_OFFLINE", "true");
    copilot.allow_then_reject();
    assert!(
        !copilot.model.tool_calls().is_empty(),
        "{}",
        copilot.model.describe()
    );
}
