//! What the routes share.

use std::sync::Arc;

use super::auth::Guard;
use super::event_stream::Hub;
use super::sources::Sources;
use crate::session::delivery::links::Links;

pub struct App {
    pub guard: Arc<Guard>,
    pub sources: Arc<Sources>,
    pub hub: Arc<Hub>,
    pub links: Option<Links>,
    /// Answer-link checks in flight (see `routes::LINK_CHECKS`).
    pub link_checks: tokio::sync::Semaphore,
    /// Becomes `true` when serve stops: event streams end, so the graceful
    /// shutdown does not wait for open tabs.
    pub stopping: tokio::sync::watch::Sender<bool>,
}
