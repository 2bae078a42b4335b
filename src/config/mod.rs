//! Configuration: the strict `config.yaml` schema, layered loading (user
//! file, then project file or `--config`), `${VAR}` references, and the
//! checks that keep credentials out of config files; what a project's
//! untrusted config may not do, and the person's trust records.

mod credentials;
mod error;
mod file;
pub mod glob;
mod load;
pub mod policy;
mod references;
pub mod schema;
pub mod trust_store;
pub mod untrusted;
mod untrusted_settings;

pub use credentials::check_text;
pub use error::ConfigError;
pub use file::MAX_CONFIG_BYTES;
pub use load::{inspect, load, ConfigSources, InspectedFile, LoadedConfig, ProjectLayer};
pub use references::{env_references, reference_name, references_in, resolve_references};
pub use schema::*;
