//! ACP wire messages that more than one layer reads, decoded into plain
//! types through the schema crate (`agent-client-protocol-schema`). It sits
//! with the vendor data, below both `acp` (`oneworks run`) and `session`
//! (the recorder tail of a supervised TUI): the two peers may not import
//! each other, and both parse the same messages.
//!
//! - [`permission`]: `session/request_permission` — the one parser of a
//!   permission request.

pub mod permission;
