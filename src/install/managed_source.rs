//! Where managed versions come from (SPEC §4.1, §11.2), resolved once from
//! the adapter data and the environment into plain values: a vendor
//! manifest (`ONEWORKS_<ADAPTER>_MANIFEST_URL`, `…_DOWNLOAD_BASE`,
//! `…_FORMATS` override the data) or an npm package on the user's registry.

use url::Url;

use super::npm::npmrc::NpmConfig;

use super::download::parse_url;
use super::error::{InstallError, Names};
use super::format::FileType;
use crate::adapter::data::{AdapterData, ManifestData};

/// Where managed versions come from.
#[derive(Debug, Clone)]
pub enum ManagedSource {
    /// A vendor release manifest (SPEC §4.1) and the base its `download`
    /// paths join to; `formats` in order of preference.
    VendorManifest {
        manifest_url: Url,
        download_base: Url,
        formats: Vec<FileType>,
    },
    /// An npm package (SPEC §11.2) on `registry`; the executable is
    /// `bin.<bin_command>`.
    Npm {
        registry: Url,
        package: String,
        bin_command: String,
    },
}

impl ManagedSource {
    /// The source `data` describes, with the environment's overrides
    /// (`get` reads a variable; `npm` holds the user's npm settings).
    pub fn from_data(
        data: &AdapterData,
        get: &dyn Fn(&str) -> Option<String>,
        npm: &NpmConfig,
    ) -> Result<Self, InstallError> {
        let names = Names::of(data);
        let named = |error: InstallError| error.named(&names);
        let npm_config = npm;
        match (&data.manifest, &data.npm) {
            (_, Some(npm)) => Ok(ManagedSource::Npm {
                registry: super::npm::registry::resolve(get, npm_config, &npm.package)
                    .map_err(|error| named(error.into()))?,
                package: npm.package.clone(),
                bin_command: npm.bin_command.clone(),
            }),
            (Some(manifest), None) => vendor_manifest(data, manifest, &names, get).map_err(named),
            (None, None) => Err(named(InstallError::NoManagedSource {
                display: data.display_name.clone(),
                missing: "`manifest` or `npm`",
            })),
        }
    }

    /// For messages: which kind of source.
    pub fn kind(&self) -> &'static str {
        match self {
            ManagedSource::VendorManifest { .. } => "vendor manifest",
            ManagedSource::Npm { .. } => "npm package",
        }
    }
}

fn vendor_manifest(
    data: &AdapterData,
    manifest: &ManifestData,
    names: &Names,
    get: &dyn Fn(&str) -> Option<String>,
) -> Result<ManagedSource, InstallError> {
    let manifest_text =
        get(&names.variable("MANIFEST_URL")).unwrap_or_else(|| manifest.url.clone());
    let manifest_url = parse_url(&manifest_text)?;
    let base_text = match get(&names.variable("DOWNLOAD_BASE")) {
        Some(base) => base,
        None => {
            // The manifest's query (a mirror's token) and fragment are
            // not part of the base.
            let mut bare = manifest_url.clone();
            bare.set_query(None);
            bare.set_fragment(None);
            match bare.as_str().strip_suffix(&manifest.base_strip_suffix) {
                Some(base) => base.to_owned(),
                None => bare
                    .join(".")
                    .map(|url| url.to_string())
                    .unwrap_or_else(|_| bare.to_string()),
            }
        }
    };
    let base_text = if base_text.ends_with('/') {
        base_text
    } else {
        format!("{base_text}/")
    };
    let formats = match get(&names.variable("FORMATS")) {
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|format| !format.is_empty())
            .map(FileType::parse)
            .collect(),
        None => data
            .platforms
            .as_ref()
            .map(|platforms| platforms.linux.format_preference.clone())
            .unwrap_or_default(),
    };
    Ok(ManagedSource::VendorManifest {
        manifest_url,
        download_base: parse_url(&base_text)?,
        formats,
    })
}
