//! Getting an agent's CLI onto the machine and choosing it, through the
//! real binary: `adapter prepare` from a managed source (archives from a
//! manifest, npm packages, a pinned vendor mirror, a private registry,
//! Node.js as a managed runtime), the failures between oneworks and the
//! download host, the lock file, the install lock and hostile archives,
//! the `system` and `path` sources, what `adapter status` reports, and
//! launch resolution as `run`, `session start` and `adapter login` call it.

mod concurrency;
pub mod cursor;
mod hostile;
pub mod launch;
mod lock_binds;
mod login;
mod messages;
mod network;
mod node_runtime;
mod npm_install;
mod npm_tree;
mod prepare;
mod private_registry;
mod probe_errors;
mod reuse;
mod sources;
mod status_choice;
