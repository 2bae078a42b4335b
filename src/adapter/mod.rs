//! Vendor data: what oneworks knows about each agent CLI — which adapter
//! files exist (`registry`) and each file parsed into plain types. No
//! behaviour; finding and starting a CLI is `launch`'s.

pub mod acp_data;
pub mod chat_store_data;
pub mod data;
pub mod file_type;
pub mod json_pointer;
pub mod key_location;
pub mod pinned_data;
pub mod registry;
pub mod session_data;
pub mod tui_data;
pub mod tui_grammar;
pub mod tui_keys;
pub mod tui_signals;
pub mod validate;
