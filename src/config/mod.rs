//! Configuration: the strict `config.yaml` schema, layered loading (user
//! file, then project file or `--config`), and the checks that keep
//! credentials out of config files.

mod credentials;
mod load;
pub mod schema;

pub use credentials::{env_references, reference_name};
pub use load::{load, ConfigError, ConfigSources, LoadedConfig};
pub use schema::*;
