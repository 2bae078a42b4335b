//! Issue 12 review: what the attack found after the hardening merge,
//! through the real binary and the fake `kiro-cli`.

use serde_json::json;

use crate::acp_support::AcpEnv;

const PROMPT: &[&str] = &["--prompt", "Say hello"];

/// Log text the scrubbing log writer holds back (it could begin a secret
/// that goes on in the next log line) is written when oneworks exits, not
/// lost.
#[test]
fn log_text_held_back_is_written_at_exit() {
    let mut acp = AcpEnv::new(json!({
        "turn": [{"garbage": "not json LOGTAILabc"}, {"text": "done"}]
    }));
    // A secret that begins with the end of the logged line.
    acp.env
        .set_env("KIRO_API_KEY", "LOGTAILabc\nsecret-rest-0123456789");
    let outcome = acp.run(PROMPT);
    outcome.assert_success();
    assert!(
        outcome.stderr.contains("not json LOGTAILabc"),
        "{}",
        outcome.describe()
    );
}
