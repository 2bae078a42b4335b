//! Live updates: one `watch` connection per running supervisor (a plain
//! thread, blocking like the CLI's `approvals --watch`), each card change
//! fanned out to every open event stream. A rescan each second picks up
//! sessions started later; a watch that ends means the supervisor left.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::broadcast;

use super::sources::Sources;
use crate::session::channel::card_of;

/// How often the session folders are looked at for new supervisors.
const RESCAN: Duration = Duration::from_secs(1);

pub struct Hub {
    sender: broadcast::Sender<Value>,
    watched: Mutex<HashSet<String>>,
}

impl Hub {
    pub fn start(sources: Arc<Sources>) -> Arc<Hub> {
        let (sender, _) = broadcast::channel(256);
        let hub = Arc::new(Hub {
            sender,
            watched: Mutex::new(HashSet::new()),
        });
        let weak = Arc::downgrade(&hub);
        std::thread::spawn(move || {
            while let Some(hub) = weak.upgrade() {
                for name in sources.names() {
                    hub.watch(&sources, &name);
                }
                drop(hub);
                std::thread::sleep(RESCAN);
            }
        });
        hub
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Value> {
        self.sender.subscribe()
    }

    fn watched(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.watched.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts watching `name` unless it is watched or not running.
    fn watch(self: &Arc<Self>, sources: &Sources, name: &str) {
        if self.watched().contains(name) {
            return;
        }
        let Some(mut client) = sources.client(name) else {
            return;
        };
        if client.send(&json!({"op": "watch"})).is_err() {
            return;
        }
        self.watched().insert(name.to_owned());
        let _ = self.sender.send(json!({"session": name, "running": true}));
        let hub = Arc::downgrade(self);
        let name = name.to_owned();
        std::thread::spawn(move || {
            while let Ok(Some(value)) = client.next(None) {
                let Some(hub) = hub.upgrade() else { return };
                if let Some(card) = card_of(&value).map(super::sources::clean_card) {
                    let _ = hub.sender.send(json!({"session": name, "card": card}));
                }
            }
            if let Some(hub) = hub.upgrade() {
                hub.watched().remove(&name);
                let _ = hub.sender.send(json!({"session": name, "running": false}));
            }
        });
    }
}
