//! Launch: choose a source and version (`inputs`, `candidate`, `decision`, `resolve`), enter the
//! session's profile world (`profile`), and so start an agent child. Used
//! by `adapter login`, `run` and `session start`; below the ACP client and
//! the session supervisor, above install and the vendor data.

pub mod candidate;
pub mod decision;
pub mod error;
pub mod inputs;
pub mod profile;
pub mod resolve;
