//! The live registry: the server's tools, prompts, resources and resource templates, which
//! the application may add, remove, enable and disable while the server runs, through a
//! [`Registry`] handle.
//!
//! Requests read an immutable [`Snapshot`], swapped whole on each change: a request that has
//! started keeps the handlers it found, and a change never shows half done. Lists keep a
//! deterministic order (registration order; an added handler goes last, and a disabled one
//! keeps its place), are cut into pages ([`pages`]), and serialised once per change.

mod handle;
mod pages;
mod snapshot;

use std::sync::{Arc, Mutex, PoisonError, RwLock};

pub use handle::Registry;
pub(crate) use pages::{ListKind, cursor_of};
pub(crate) use snapshot::{Entries, Entry, Index, Offered, Snapshot, ToolEntry};

use super::build_check::BuildError;
use crate::protocol::{
    CacheHints, DiscoverResult, Implementation, JsonObject, ListChangedCapability,
    ResourcesCapability, ServerCapabilities,
};

/// Which list a change touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Changed {
    Tools,
    Prompts,
    /// Resources or resource templates.
    Resources,
}

/// What every snapshot is cut with.
pub(crate) struct Settings {
    pub(crate) cache: CacheHints,
    pub(crate) page_size: Option<usize>,
    /// `server/discover`'s result, but for the capabilities, which follow the handlers.
    pub(crate) discover: DiscoverResult,
    /// Put in every 2026-07-28 list's `_meta`, unless turned off.
    pub(crate) server_info: Option<Implementation>,
    /// Whether the tasks extension is offered (to 2026-07-28 clients only).
    pub(crate) tasks: bool,
}

/// The registered handlers, and the snapshot requests read.
pub(crate) struct Store {
    settings: Settings,
    entries: Mutex<Entries>,
    current: RwLock<Arc<Snapshot>>,
}

impl Store {
    pub(crate) fn new(entries: Entries, settings: Settings) -> Self {
        let snapshot = Snapshot::of(&entries, &settings);
        Self {
            settings,
            entries: Mutex::new(entries),
            current: RwLock::new(Arc::new(snapshot)),
        }
    }

    /// The handlers as they are now.
    pub(crate) fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&self.current.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Applies `change` to the entries; when it says which list it touched, cuts and swaps
    /// in a new snapshot. Changes are applied one at a time, so snapshots follow their order.
    pub(crate) fn change(
        &self,
        change: impl FnOnce(&mut Entries) -> Result<Option<Changed>, BuildError>,
    ) -> Result<Option<Changed>, BuildError> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let changed = change(&mut entries)?;
        if changed.is_some() {
            let snapshot = Arc::new(Snapshot::of(&entries, &self.settings));
            *self.current.write().unwrap_or_else(PoisonError::into_inner) = snapshot;
        }
        Ok(changed)
    }

    /// Reads the entries (for the handle's lookups).
    pub(crate) fn read<R>(&self, read: impl FnOnce(&Entries) -> R) -> R {
        read(&self.entries.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// The capabilities of a server offering `offered`, in the 2026-07-28 shape and in the
/// older one (which adds logging). Each kind offered announces its list changes (on listen
/// streams, and on legacy sessions), and resources their updates.
pub(crate) fn capabilities(offered: Offered) -> (ServerCapabilities, ServerCapabilities) {
    let notifying = || ListChangedCapability {
        list_changed: Some(true),
    };
    let modern = ServerCapabilities {
        tools: offered.tools.then(notifying),
        prompts: offered.prompts.then(notifying),
        // Completion is answered for prompt arguments and resource-template variables.
        completions: (offered.prompts || offered.resources).then(JsonObject::new),
        resources: offered.resources.then_some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
        }),
        ..Default::default()
    };
    let legacy = ServerCapabilities {
        logging: Some(JsonObject::new()),
        ..modern.clone()
    };
    (modern, legacy)
}
