//! Where managed versions come from, resolved once from
//! the adapter data and the environment into plain values: a vendor
//! manifest (`ONEWORKS_<ADAPTER>_MANIFEST_URL`, `…_DOWNLOAD_BASE`,
//! `…_FORMATS` override the data), an npm package on the user's registry,
//! or archives by version checked against reviewed pins
//! (`…_DOWNLOAD_BASE` overrides the data's base).
//!
//! The sources themselves: `vendor` (a release manifest, this host's
//! entry, the staging fill) over [`manifest`] (the manifest's shape);
//! `pinned` (archives by version against reviewed sha256 pins); [`npm`]
//! (the package document, its tree, the user's npm settings); and
//! [`platform`] (which artifact fits this host).

pub mod manifest;
pub mod npm;
pub(super) mod pinned;
pub mod platform;
pub(super) mod vendor;

use url::Url;

use self::npm::npmrc::NpmConfig;

use crate::adapter::data::{AdapterData, ManifestData};
use crate::adapter::file_type::FileType;
use crate::env_options::{AdapterOverrides, EnvOptions};
use crate::install::error::{InstallError, Names};
use crate::install::transport::fetcher::parse_url;

/// Where managed versions come from.
#[derive(Debug, Clone)]
pub enum ManagedSource {
    /// A vendor release manifest and the base its `download`
    /// paths join to; `formats` in order of preference.
    VendorManifest {
        manifest_url: Url,
        download_base: Url,
        formats: Vec<FileType>,
    },
    /// An npm package on `registry`; the executable is
    /// `bin.<bin_command>`.
    Npm {
        registry: Url,
        package: String,
        bin_command: String,
    },
    /// Archives by version under `download_base`, each installed only
    /// against a reviewed sha256: the data's pins, and
    /// `trusted`, the configured exact version with the `cli.sha256` a
    /// trusted config gives beside it (for this host).
    Pinned {
        download_base: Url,
        trusted: Option<(semver::Version, String)>,
    },
}

impl ManagedSource {
    /// The source `data` describes, with the environment's overrides
    /// (`ONEWORKS_NPM_REGISTRY` and the adapter's `ONEWORKS_<ADAPTER>_*`
    /// in `options`; `npm` holds the user's npm settings).
    pub fn from_data(
        data: &AdapterData,
        options: &EnvOptions,
        npm: &NpmConfig,
    ) -> Result<Self, InstallError> {
        let names = Names::of(data);
        let named = |error: InstallError| error.named(&names);
        let npm_config = npm;
        if let Some(pinned) = &data.pinned {
            let download_base = match &options.adapter(&data.id).download_base {
                Some(base) => base.clone(),
                None => parse_url(&with_slash(pinned.base.clone()))
                    .map_err(|error| named(error.into()))?,
            };
            return Ok(ManagedSource::Pinned {
                download_base,
                trusted: None,
            });
        }
        match (&data.manifest, &data.npm) {
            (_, Some(npm)) => Ok(ManagedSource::Npm {
                registry: self::npm::registry_choice::resolve(
                    options.npm_registry.as_ref(),
                    npm_config,
                    &npm.package,
                )
                .map_err(|error| named(error.into()))?,
                package: npm.package.clone(),
                bin_command: npm.bin_command.clone(),
            }),
            (Some(manifest), None) => {
                vendor_manifest(data, manifest, options.adapter(&data.id)).map_err(named)
            }
            (None, None) => Err(named(InstallError::NoManagedSource {
                display: data.display_name.clone(),
                missing: "`manifest`, `npm` or `pinned`",
            })),
        }
    }

    /// For messages: which kind of source.
    pub fn kind(&self) -> &'static str {
        match self {
            ManagedSource::VendorManifest { .. } => "vendor manifest",
            ManagedSource::Npm { .. } => "npm package",
            ManagedSource::Pinned { .. } => "pinned archive",
        }
    }

    /// For a pinned source: the configured exact `version` is also
    /// installable against `sha256` (a trusted config's `cli.sha256`; an
    /// untrusted one's was cut when the config was loaded). Other sources
    /// and a `latest` request are unchanged.
    pub fn with_trusted_pin(
        mut self,
        version: &crate::config::VersionRequest,
        sha256: Option<&str>,
    ) -> Self {
        if let (
            ManagedSource::Pinned { trusted, .. },
            crate::config::VersionRequest::Exact(version),
            Some(sha256),
        ) = (&mut self, version, sha256)
        {
            *trusted = Some((version.clone(), sha256.to_ascii_lowercase()));
        }
        self
    }
}

/// `text` ending in `/`, so relative paths join below it.
fn with_slash(text: String) -> String {
    if text.ends_with('/') {
        text
    } else {
        format!("{text}/")
    }
}

fn vendor_manifest(
    data: &AdapterData,
    manifest: &ManifestData,
    overrides: &AdapterOverrides,
) -> Result<ManagedSource, InstallError> {
    let manifest_url = match &overrides.manifest_url {
        Some(url) => url.clone(),
        None => parse_url(&manifest.url)?,
    };
    let download_base = match &overrides.download_base {
        Some(base) => base.clone(),
        None => {
            // The manifest's query (a mirror's token) and fragment are
            // not part of the base.
            let mut bare = manifest_url.clone();
            bare.set_query(None);
            bare.set_fragment(None);
            let base = match bare.as_str().strip_suffix(&manifest.base_strip_suffix) {
                Some(base) => base.to_owned(),
                None => bare
                    .join(".")
                    .map(|url| url.to_string())
                    .unwrap_or_else(|_| bare.to_string()),
            };
            parse_url(&with_slash(base))?
        }
    };
    let formats = match &overrides.formats {
        Some(formats) => formats.clone(),
        None => data
            .platforms
            .as_ref()
            .map(|platforms| platforms.linux.format_preference.clone())
            .unwrap_or_default(),
    };
    Ok(ManagedSource::VendorManifest {
        manifest_url,
        download_base,
        formats,
    })
}
