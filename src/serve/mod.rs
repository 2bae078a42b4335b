//! `oneworks session serve`: one foreground HTTP server with a
//! page and a JSON API to answer the approval cards of every session of
//! the project. It holds no session state: it reads the supervisors'
//! approvals sockets and `cards.jsonl`, and answers through the socket's
//! `answer` op, like `session answer`.
//!
//! - [`auth`]: the token (a bearer header, never a cookie), the `Host`/
//!   `Origin` checks and the security headers every response carries.
//! - [`open_file`]: `--open`'s private file that hands the page its token.
//! - [`sources`]: the sessions, their cards and panes, read on demand.
//! - [`event_stream`]: one `watch` per running supervisor, fanned out to the
//!   page's Server-Sent Events.
//! - [`routes`]: the HTTP routes; [`page`]: the HTML (maud, escaped).
//! - [`links`]: answer links for the webhook (`--public-url`);
//!   [`crate::session::secret`]: random tokens and their constant-time
//!   compare.
//! - [`bounds`]: the accept loop and what bounds a connection (head and
//!   idle timeouts, the connection cap, body limits).

pub mod app;
pub mod auth;
pub mod bounds;
pub mod event_stream;
pub mod open_file;
pub mod page;
pub mod routes;
pub mod sources;
pub mod text;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use self::app::App;
use self::auth::Guard;
use self::event_stream::Hub;
use self::sources::Sources;
use crate::session::delivery::links;

/// What the command line asked for.
pub struct Options {
    pub listen: SocketAddr,
    pub public_url: Option<url::Url>,
}

/// A bound server, not yet serving: its URL is known.
pub struct Bound {
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    /// The URL to print: it carries the token once, in its fragment.
    pub url: String,
}

/// Binds the listener (inside the runtime) and mints the token.
pub async fn bind(options: Options, sources: Sources) -> std::io::Result<Bound> {
    let listener = tokio::net::TcpListener::bind(options.listen).await?;
    let address = listener.local_addr()?;
    let guard = Guard::new(address, options.public_url.as_ref())?;
    let url = guard.page_url();
    let sources = Arc::new(sources);
    let links = match &options.public_url {
        Some(public) => Some(links::Links::publish(
            public,
            &sources.locations.runtime_dir,
            &sources.project.root,
        )?),
        None => None,
    };
    let hub = Hub::start(Arc::clone(&sources));
    Ok(Bound {
        listener,
        app: Arc::new(App {
            guard: Arc::new(guard),
            sources,
            hub,
            links,
            link_checks: tokio::sync::Semaphore::new(routes::LINK_CHECKS),
            stopping: tokio::sync::watch::Sender::new(false),
        }),
        url,
    })
}

impl Bound {
    /// Writes `--open`'s file (see [`open_file`]) and returns its path,
    /// the one thing the opener is given. The file goes when the page has
    /// loaded, after `lifetime` or when serve stops, whichever is first.
    pub fn open_file(&self, lifetime: Duration) -> std::io::Result<PathBuf> {
        let file = open_file::OpenFile::write(
            &self.app.sources.locations.runtime_dir,
            &self.url,
            lifetime,
        )?;
        let path = file.path().to_owned();
        self.app.guard.hold_open_file(file);
        let guard = Arc::clone(&self.app.guard);
        tokio::spawn(async move {
            tokio::time::sleep(lifetime).await;
            guard.remove_open_file();
        });
        Ok(path)
    }

    /// Serves until `stop` completes (Ctrl-C); the sessions are untouched.
    pub async fn serve(self, stop: impl std::future::Future<Output = ()> + Send + 'static) {
        let app = Arc::clone(&self.app);
        let router = routes::router(Arc::clone(&app));
        let stop = async move {
            stop.await;
            app.stopping.send_replace(true);
        };
        bounds::run(self.listener, router, stop).await;
        self.app.guard.remove_open_file();
        if let Some(links) = &self.app.links {
            links.withdraw();
        }
    }
}
