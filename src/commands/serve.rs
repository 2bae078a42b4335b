//! `oneworks session serve`: binds, prints the URL once on
//! stdout (`{"url":…}` with `--json`; the token in its fragment), serves
//! until Ctrl-C. `--open` hands the desktop's opener only the path of a
//! private file that leads the browser to the page, never the token or
//! anything else worth taking: every user can read a process's argv. The
//! server is in [`crate::serve`].

use std::net::SocketAddr;
use std::path::Path;

use serde_json::json;

use crate::error::{Error, ErrorKind};
use crate::output;
use crate::serve::{self, open_file::OPEN_FILE_LIFETIME, sources::Sources, Options};
use crate::settings::Settings;

pub fn run(
    settings: &Settings,
    config: Option<std::path::PathBuf>,
    listen: SocketAddr,
    public_url: Option<url::Url>,
    open: bool,
    json: bool,
) -> Result<(), Error> {
    if let Some(url) = &public_url {
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(Error::msg(
                ErrorKind::Usage,
                "`--public-url` must be an http or https URL",
            ));
        }
    }
    if !listen.ip().is_loopback() {
        output::human(format_args!(
            "warning: listening on `{listen}`, beyond this machine: carry the link over an SSH tunnel or a TLS proxy, never plain HTTP across a network"
        ));
    }
    let sources = Sources {
        project: settings.project.clone(),
        locations: settings.locations.clone(),
        tmux: crate::session::tmux::find(settings.options.path.as_deref()).ok(),
        recover: Some(recover(settings, config)),
    };
    let open_lifetime = settings
        .options
        .test_open_file_lifetime
        .unwrap_or(OPEN_FILE_LIFETIME);
    let runtime =
        crate::process::runtime().map_err(|error| Error::new(ErrorKind::Internal, error))?;
    runtime.block_on(async {
        let bound = serve::bind(Options { listen, public_url }, sources)
            .await
            .map_err(|error| {
                Error::msg(
                    ErrorKind::Usage,
                    format!("cannot listen on `{listen}`: {error}"),
                )
            })?;
        if json {
            output::print_json(&json!({"url": bound.url}))?;
        } else {
            output::print_text(&format!("{}\n", bound.url))?;
        }
        if open {
            match bound.open_file(open_lifetime) {
                Ok(path) => open_browser(&path),
                Err(error) => output::human(format_args!(
                    "note: could not write the file that opens the page ({error}); open the URL above yourself"
                )),
            }
        }
        // Ctrl-C or SIGTERM: the normal way to stop serving (exit 0).
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .map_err(|error| Error::new(ErrorKind::Internal, error))?;
        let stop = async move {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
        };
        bound.serve(stop).await;
        Ok(())
    })
}

/// Opens the file at `path` with the desktop's opener (its browser, for
/// an HTML file); a failure is a note, not an error.
fn open_browser(path: &Path) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let started = std::process::Command::new(opener)
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if started.is_err() {
        output::human(format_args!(
            "note: could not run `{opener}`; open the URL above yourself"
        ));
    }
}

/// Re-adopts a session whose supervisor died when the page
/// looks at it; one whose re-adoption failed is tried again after
/// [`RECOVER_EVERY`], not on every refresh. One at a time: two page
/// requests never start two supervisors.
fn recover(settings: &Settings, config: Option<std::path::PathBuf>) -> serve::sources::Recover {
    let at = super::session_start::RecoverAt {
        project: settings.project.clone(),
        locations: settings.locations.clone(),
        config,
        quiet: true,
    };
    let failed =
        std::sync::Mutex::new(std::collections::HashMap::<String, std::time::Instant>::new());
    std::sync::Arc::new(move |name: &str| {
        let mut failed = failed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if failed
            .get(name)
            .is_some_and(|at| at.elapsed() < RECOVER_EVERY)
        {
            return;
        }
        match at.recover(name) {
            Ok(_) => drop(failed.remove(name)),
            Err(error) => {
                tracing::warn!(
                    "could not re-adopt session `{name}`: {}",
                    output::clean(&error.to_string())
                );
                failed.insert(name.to_owned(), std::time::Instant::now());
            }
        }
    })
}

/// How often the page tries to re-adopt one session.
const RECOVER_EVERY: std::time::Duration = std::time::Duration::from_secs(10);
