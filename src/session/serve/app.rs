//! What the routes share.

use std::sync::Arc;

use super::auth::Guard;
use super::events::Hub;
use super::links::Links;
use super::sources::Sources;

pub struct App {
    pub guard: Arc<Guard>,
    pub sources: Arc<Sources>,
    pub hub: Arc<Hub>,
    pub links: Option<Links>,
}
