//! Gemini CLI (`gemini --acp`, read from `@google/gemini-cli` 0.61.0)
//! speaks ACP v1 as the schema spells it: nothing to rewrite. What
//! differs is data in `manifests/gemini.yaml` (`acp:`): the argv by version
//! (`--acp` from 0.33.0, `--experimental-acp` before), the child's
//! `GEMINI_CLI_NO_RELAUNCH=true`, `oauth-personal` as an interactive-only
//! authentication method. Its permission requests may carry the integer id
//! `0` and offer `proceed_once`/`proceed_always`/`cancel`; the generic
//! client handles both (tests below and in `tests/it/run/`).

use super::Quirks;

#[derive(Debug)]
pub struct Gemini;

pub const QUIRKS: Gemini = Gemini;

impl Quirks for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::acp::rpc::{parse_line, Incoming, RequestId};

    /// A permission request as Gemini CLI 0.61.0 sends it: integer id `0`,
    /// its own option ids, no rewrite needed.
    #[test]
    fn a_gemini_permission_request_needs_no_rewrite() {
        let line = br#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"run_shell_command-1","status":"pending","title":"touch probe-created.txt","content":[],"locations":[],"kind":"execute"},"options":[{"optionId":"proceed_always","name":"Always Allow","kind":"allow_always"},{"optionId":"proceed_once","name":"Allow","kind":"allow_once"},{"optionId":"cancel","name":"Reject","kind":"reject_once"}]}}"#;
        let Ok(Some(Incoming::Request { id, mut params, .. })) = parse_line(line) else {
            panic!("a request");
        };
        assert_eq!(id, RequestId::Number(0.into()));
        let before = params.clone();
        QUIRKS.permission_request(&mut params);
        assert_eq!(params, before);
        let request = crate::acp::permissions::PermissionAsk::parse(&params);
        let ids: Vec<&str> = request
            .options
            .iter()
            .map(|option| option.option_id.as_str())
            .collect();
        assert_eq!(ids, ["proceed_always", "proceed_once", "cancel"]);
        assert_eq!(request.tool.kind.as_deref(), Some("execute"));
        let mut update = json!({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"All done"}});
        let before = update.clone();
        QUIRKS.update(&mut update);
        assert_eq!(update, before);
    }
}
