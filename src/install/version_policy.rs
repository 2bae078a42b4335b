//! The version policy as pure functions: which way a
//! `prepare` goes, whether the manifest may serve a requested version, and
//! which installed version a command uses without asking the network.

use semver::Version;

use crate::config::VersionRequest;

/// The way a `prepare` goes, decided before anything is read or fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `--offline`: an installed version, no request at all.
    Offline,
    /// Install (or reuse) the artifact `<adapter>.lock` records for `version`;
    /// the manifest is not consulted.
    FromPin(Version),
    /// Ask the manifest for its latest version.
    FromManifest,
    /// `--locked` without a `<adapter>.lock`.
    MissingPin,
    /// `--locked` with a configured version the pin does not record.
    PinConflict { requested: Version, locked: Version },
}

/// Decides the route from the configured version, the pinned version (if a
/// `<adapter>.lock` exists) and the flags.
pub fn route(
    requested: &VersionRequest,
    pinned: Option<&Version>,
    offline: bool,
    locked: bool,
) -> Route {
    if locked && pinned.is_none() {
        return Route::MissingPin;
    }
    if offline {
        return Route::Offline;
    }
    match (requested, pinned) {
        (VersionRequest::Exact(requested), Some(pinned)) if locked && requested != pinned => {
            Route::PinConflict {
                requested: requested.clone(),
                locked: pinned.clone(),
            }
        }
        (_, Some(pinned)) if locked => Route::FromPin(pinned.clone()),
        // An exact version the pin records installs from the pin, without
        // asking the manifest (which only vouches for its latest).
        (VersionRequest::Exact(requested), Some(pinned)) if requested == pinned => {
            Route::FromPin(pinned.clone())
        }
        _ => Route::FromManifest,
    }
}

/// Whether the manifest, whose latest is `latest`, may serve `requested`:
/// `Err(requested)` names the version it cannot vouch for.
pub fn manifest_serves(requested: &VersionRequest, latest: &Version) -> Result<(), Version> {
    match requested {
        VersionRequest::Exact(requested) if requested != latest => Err(requested.clone()),
        _ => Ok(()),
    }
}

/// How strictly an installed version must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// `prepare --offline`: the configured version, else the pinned one,
    /// else the newest; nothing else.
    Offline,
    /// `login`, `run`, `session start`, `status`: like `Offline`, but a pin
    /// whose version is not installed falls back to the newest installed.
    Launch,
}

/// The version a command uses without asking the network, or why none fits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionChoice {
    Use(Version),
    /// Nothing installed fits; `wanted` is what would have.
    Missing {
        wanted: Option<Version>,
    },
}

/// Picks from `installed` (any order) by the configured version and the
/// pin. The one place this choice is made.
pub fn choose_installed(
    installed: &[Version],
    requested: &VersionRequest,
    pinned: Option<&Version>,
    selection: Selection,
) -> VersionChoice {
    let newest = installed.iter().max().cloned();
    let is_installed = |version: &Version| installed.contains(version);
    match (requested, pinned) {
        (VersionRequest::Exact(version), _) => {
            if is_installed(version) {
                VersionChoice::Use(version.clone())
            } else {
                VersionChoice::Missing {
                    wanted: Some(version.clone()),
                }
            }
        }
        (VersionRequest::Latest, Some(pinned)) if is_installed(pinned) => {
            VersionChoice::Use(pinned.clone())
        }
        (VersionRequest::Latest, Some(pinned)) if selection == Selection::Offline => {
            VersionChoice::Missing {
                wanted: Some(pinned.clone()),
            }
        }
        (VersionRequest::Latest, _) => match newest {
            Some(version) => VersionChoice::Use(version),
            None => VersionChoice::Missing {
                wanted: pinned.cloned(),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        Version::parse(text).expect("version")
    }

    fn exact(text: &str) -> VersionRequest {
        VersionRequest::Exact(v(text))
    }

    #[test]
    fn routes() {
        let latest = VersionRequest::Latest;
        let pin = v("2.15.1");
        assert_eq!(route(&latest, None, false, false), Route::FromManifest);
        assert_eq!(
            route(&latest, Some(&pin), false, false),
            Route::FromManifest
        );
        assert_eq!(route(&latest, None, true, false), Route::Offline);
        assert_eq!(route(&latest, Some(&pin), true, true), Route::Offline);
        assert_eq!(route(&latest, None, false, true), Route::MissingPin);
        assert_eq!(route(&latest, None, true, true), Route::MissingPin);
        assert_eq!(
            route(&latest, Some(&pin), false, true),
            Route::FromPin(pin.clone())
        );
        assert_eq!(
            route(&exact("2.15.1"), Some(&pin), false, false),
            Route::FromPin(pin.clone())
        );
        assert_eq!(
            route(&exact("2.16.0"), Some(&pin), false, false),
            Route::FromManifest
        );
        assert_eq!(
            route(&exact("2.16.0"), Some(&pin), false, true),
            Route::PinConflict {
                requested: v("2.16.0"),
                locked: pin
            }
        );
    }

    #[test]
    fn the_manifest_vouches_only_for_its_latest() {
        let latest = v("2.15.1");
        assert_eq!(manifest_serves(&VersionRequest::Latest, &latest), Ok(()));
        assert_eq!(manifest_serves(&exact("2.15.1"), &latest), Ok(()));
        assert_eq!(manifest_serves(&exact("2.14.0"), &latest), Err(v("2.14.0")));
    }

    #[test]
    fn choosing_an_installed_version() {
        let installed = [v("2.14.0"), v("2.16.0"), v("2.15.1")];
        let latest = VersionRequest::Latest;
        for selection in [Selection::Offline, Selection::Launch] {
            assert_eq!(
                choose_installed(&installed, &latest, None, selection),
                VersionChoice::Use(v("2.16.0")),
                "newest without a pin"
            );
            assert_eq!(
                choose_installed(&installed, &latest, Some(&v("2.14.0")), selection),
                VersionChoice::Use(v("2.14.0")),
                "the pin when installed"
            );
            assert_eq!(
                choose_installed(&installed, &exact("2.15.1"), Some(&v("2.14.0")), selection),
                VersionChoice::Use(v("2.15.1")),
                "the configured version first"
            );
            assert_eq!(
                choose_installed(&installed, &exact("3.0.0"), None, selection),
                VersionChoice::Missing {
                    wanted: Some(v("3.0.0"))
                }
            );
            assert_eq!(
                choose_installed(&[], &latest, None, selection),
                VersionChoice::Missing { wanted: None }
            );
        }
        let pin = v("2.17.0");
        assert_eq!(
            choose_installed(&installed, &latest, Some(&pin), Selection::Offline),
            VersionChoice::Missing {
                wanted: Some(pin.clone())
            }
        );
        assert_eq!(
            choose_installed(&installed, &latest, Some(&pin), Selection::Launch),
            VersionChoice::Use(v("2.16.0")),
            "launch falls back to the newest"
        );
    }
}
