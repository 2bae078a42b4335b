//! Vendor protocol quirks: what one agent's messages need before they fit
//! the typed ACP wire (the schema crate's types), kept apart from the
//! client the way Zed keeps `agent_quirks/` apart from its ACP connection.
//! A quirk set only rewrites JSON around the typed messages — a method
//! name, a dialect's spelling — before typed decoding; the client never
//! asks which vendor it talks to. Everything else a vendor differs in is
//! data (`manifests/<adapter>.yaml`, `acp:`), and an adapter file names its
//! quirk set with `acp.quirks` (`none` when it needs no code).

mod gemini;
mod kiro;

use serde_json::Value;

/// One vendor's rewrites. Every method defaults to "nothing to rewrite".
pub trait Quirks: Sync + std::fmt::Debug {
    /// The name an adapter file gives in `acp.quirks`.
    fn name(&self) -> &'static str;

    /// The standard name of a notification method the vendor spells its
    /// own way (`None`: the method is already standard or unknown).
    fn standard_notification(&self, _method: &str) -> Option<&'static str> {
        None
    }

    /// Whether a notification is one of the vendor's own extensions: read
    /// and dropped (logged at debug, never an event).
    fn is_extension(&self, _method: &str) -> bool {
        false
    }

    /// Rewrites a `session/update`'s `update` into the standard shape
    /// before typed decoding. Only names the standard knows may change: an
    /// unknown name is kept as the agent sent it (it is scrubbed as
    /// received).
    fn update(&self, _update: &mut Value) {}

    /// Rewrites a `session/request_permission`'s params into the standard
    /// shape before the permission parser reads them.
    fn permission_request(&self, _params: &mut Value) {}
}

/// No rewrites: an agent that speaks ACP as the schema spells it.
#[derive(Debug)]
pub struct Standard;

impl Quirks for Standard {
    fn name(&self) -> &'static str {
        "none"
    }
}

/// Every quirk set oneworks ships, by name.
const ALL: &[&dyn Quirks] = &[&Standard, &kiro::QUIRKS, &gemini::QUIRKS];

/// `acp.quirks` names a set oneworks does not ship.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the adapter's `acp.quirks` is `{name}`, which oneworks does not know; it knows {known}")]
pub struct UnknownQuirks {
    pub name: String,
    pub known: String,
}

/// The quirk set named `name`.
pub fn by_name(name: &str) -> Result<&'static dyn Quirks, UnknownQuirks> {
    ALL.iter()
        .copied()
        .find(|quirks| quirks.name() == name)
        .ok_or_else(|| UnknownQuirks {
            name: crate::output::clean(name),
            known: ALL
                .iter()
                .map(|quirks| format!("`{}`", quirks.name()))
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Names of ACP v1 a vendor dialect may spell differently.
pub mod standard {
    /// The notification that carries session updates.
    pub const SESSION_UPDATE: &str = "session/update";
    /// `sessionUpdate` values.
    pub const UPDATE_KINDS: &[&str] = &[
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
        "available_commands_update",
        "current_mode_update",
        "config_option_update",
        "session_info_update",
        "usage_update",
    ];
    /// A tool call's `kind`.
    pub const TOOL_KINDS: &[&str] = &[
        "read",
        "edit",
        "delete",
        "move",
        "search",
        "execute",
        "think",
        "fetch",
        "switch_mode",
        "other",
    ];
    /// A tool call's `status`.
    pub const TOOL_STATUSES: &[&str] = &["pending", "in_progress", "completed", "failed"];
    /// A permission option's `kind`.
    pub const OPTION_KINDS: &[&str] =
        &["allow_once", "allow_always", "reject_once", "reject_always"];
}

/// `AgentMessageChunk` → `agent_message_chunk`; snake_case stays as it is.
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (index, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if index > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `value` in snake_case if that is one of `known`, else `value` as it is:
/// a vendor spelling of a standard name is translated, anything else passes
/// through untouched (so a secret in it is scrubbed as sent).
pub fn known_or_as_is(value: &str, known: &[&str]) -> String {
    let snake = snake_case(value);
    if known.contains(&snake.as_str()) {
        snake
    } else {
        value.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_set_is_found_by_its_name_and_others_are_refused() {
        for quirks in ALL {
            assert_eq!(by_name(quirks.name()).expect("known").name(), quirks.name());
        }
        let error = by_name("acme").expect_err("unknown");
        assert!(error.to_string().contains("`acme`"), "{error}");
        assert!(error.to_string().contains("`none`"), "{error}");
    }

    #[test]
    fn the_data_layers_list_of_quirk_sets_is_this_one() {
        // Adapter files are checked against `QUIRK_SETS` when loaded (the
        // data layer cannot see this module): the two lists are one.
        let mut shipped: Vec<&str> = ALL.iter().map(|quirks| quirks.name()).collect();
        let mut listed = crate::adapter::acp_data::QUIRK_SETS.to_vec();
        shipped.sort_unstable();
        listed.sort_unstable();
        assert_eq!(shipped, listed);
    }

    #[test]
    fn the_standard_set_rewrites_nothing() {
        let quirks = by_name("none").expect("none");
        let mut update = serde_json::json!({"AgentMessageChunk": {"content": "hi"}});
        let before = update.clone();
        quirks.update(&mut update);
        assert_eq!(update, before);
        assert_eq!(quirks.standard_notification("session/notification"), None);
    }

    #[test]
    fn snake_case_translates_only_known_names() {
        assert_eq!(snake_case("AgentMessageChunk"), "agent_message_chunk");
        assert_eq!(snake_case("tool_call"), "tool_call");
        assert_eq!(
            known_or_as_is("InProgress", &["in_progress"]),
            "in_progress"
        );
        assert_eq!(known_or_as_is("FancyThing", &["in_progress"]), "FancyThing");
    }
}
