//! Configuration through the real binary: the config files and their
//! validation ([`load`]), trusting a project's config ([`trust`]) and the
//! agent settings an untrusted one may carry, the `ONEWORKS_*` variables
//! parsed in one place, adapter files, and the profile worlds `config
//! render` writes.

mod adapter_files;
mod agent_settings;
mod env_options;
mod load;
mod profile;
mod trust;
