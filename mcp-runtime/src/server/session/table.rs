//! Every legacy session of a server, by id and by owner, and the sweeper that closes those
//! left idle. What their clients declared is shared among those that declared the same
//! (`declared.rs`).
//!
//! At an owner's cap (HTTP sessions only), opening closes that owner's least recently active
//! idle session, or is refused when all of them are busy. At the server's cap, opening closes
//! the opener's own least recently active idle session; failing that, the sessions expired
//! since the sweeper last ran; failing that, it is refused. A client never closes another
//! owner's live session. One lock of the table per `initialize`.

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, Once, Weak};
use std::time::Duration;

use tokio::time::Instant;

use super::capabilities::bounded;
use super::declared::{Declarations, Declared};
use super::{Carrier, Opening, Session, SessionSettings, SessionState, Usage, lock};
use crate::server::owner::Owner;

/// Why a session could not be opened.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// Every one of the server's sessions is busy or belongs to another owner.
    Full,
    /// Every one of the owner's sessions is busy.
    OwnerFull(usize),
    /// The random source failed.
    Random(std::io::Error),
}

/// The server's sessions.
pub(crate) struct Sessions {
    pub(crate) settings: SessionSettings,
    /// The same, for the sessions to share.
    shared: Arc<SessionSettings>,
    table: Arc<Mutex<Table>>,
    /// The server's open standalone streams.
    streams: Arc<std::sync::atomic::AtomicUsize>,
    /// What the sessions' clients declared, shared among those that declared the same.
    pub(super) declarations: Arc<Declarations>,
    sweeper: Once,
}

#[derive(Default)]
struct Table {
    /// Hashed with `foldhash` (seeded per process), not SipHash: every request on a session
    /// looks its id up, and the ids are the server's own random draws, no client's choice.
    by_id: HashSet<ById, foldhash::fast::RandomState>,
    owners: HashMap<Owner, Owned>,
}

/// A session in the table, found by its id without keeping a second copy of the id.
struct ById(Arc<Session>);

impl Borrow<str> for ById {
    fn borrow(&self) -> &str {
        &self.0.id
    }
}

impl PartialEq for ById {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for ById {}

impl Hash for ById {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // As the `str` it borrows as.
        str::hash(&self.0.id, state);
    }
}

/// One owner's sessions, and what they hold together.
struct Owned {
    sessions: Vec<Arc<Session>>,
    usage: Arc<Usage>,
}

impl Default for Sessions {
    fn default() -> Self {
        Self::new(SessionSettings::default())
    }
}

impl Table {
    fn insert(&mut self, session: Arc<Session>) {
        self.by_id.insert(ById(Arc::clone(&session)));
        if let Some(owned) = self.owners.get_mut(&session.owner) {
            owned.sessions.push(session);
        }
    }

    fn remove(&mut self, id: &str) -> Option<Arc<Session>> {
        let ById(session) = self.by_id.take(id)?;
        if let Some(owned) = self.owners.get_mut(&session.owner) {
            owned.sessions.retain(|kept| !Arc::ptr_eq(kept, &session));
            if owned.sessions.is_empty() {
                self.owners.remove(&session.owner);
            }
        }
        Some(session)
    }

    /// The least recently active idle session of `owner`.
    fn idlest_of(&self, owner: &Owner) -> Option<Box<str>> {
        let owned = self.owners.get(owner)?;
        let idlest = owned
            .sessions
            .iter()
            .filter_map(|session| Some((session.idle_since()?, &session.id)))
            .min()?;
        Some(idlest.1.clone())
    }

    /// Removes every session idle for `timeout` at `now`, and returns them.
    fn remove_expired(&mut self, now: Instant, timeout: Duration) -> Vec<Arc<Session>> {
        let expired: Vec<Box<str>> = self
            .by_id
            .iter()
            .filter(|ById(session)| session.expired(now, timeout))
            .map(|ById(session)| session.id.clone())
            .collect();
        expired.iter().filter_map(|id| self.remove(id)).collect()
    }
}

impl Sessions {
    pub(crate) fn new(settings: SessionSettings) -> Self {
        Self {
            settings,
            shared: Arc::new(settings),
            table: Arc::default(),
            streams: Arc::default(),
            declarations: Arc::default(),
            sweeper: Once::new(),
        }
    }

    /// Opens a session (see the module's documentation for what happens at the caps).
    pub(crate) fn open(&self, opening: Opening) -> Result<Arc<Session>, OpenError> {
        self.start_sweeper();
        let id = super::new_session_id().map_err(OpenError::Random)?;
        let declared = self.declarations.share(Declared {
            capabilities: bounded(opening.capabilities),
            client_info: opening.client_info,
        });
        let settings = self.settings;
        let mut closed = Vec::new();
        let mut table = lock(&self.table);
        if opening.carrier == Carrier::Http
            && table
                .owners
                .get(&opening.owner)
                .is_some_and(|owned| owned.sessions.len() >= settings.max_sessions_per_owner)
        {
            let idlest = table
                .idlest_of(&opening.owner)
                .ok_or(OpenError::OwnerFull(settings.max_sessions_per_owner))?;
            closed.extend(table.remove(&idlest));
        }
        if table.by_id.len() >= settings.max_sessions {
            match table.idlest_of(&opening.owner) {
                Some(idlest) => closed.extend(table.remove(&idlest)),
                None => closed.extend(table.remove_expired(Instant::now(), settings.idle_timeout)),
            }
            if table.by_id.len() >= settings.max_sessions {
                drop(table);
                close_all(closed);
                return Err(OpenError::Full);
            }
        }
        let usage = Arc::clone(
            &table
                .owners
                .entry(opening.owner.clone())
                .or_insert_with(|| Owned {
                    // Most owners open one session.
                    sessions: Vec::with_capacity(1),
                    usage: Arc::default(),
                })
                .usage,
        );
        let session = Arc::new(Session {
            id,
            version: opening.version,
            declared,
            owner: opening.owner,
            carrier: opening.carrier,
            log_level: Arc::default(),
            next_request_id: Default::default(),
            calls: Arc::default(),
            usage,
            streams: Arc::clone(&self.streams),
            settings: Arc::clone(&self.shared),
            state: Mutex::new(SessionState {
                last_active: Some(Instant::now()),
                ..SessionState::default()
            }),
        });
        table.insert(Arc::clone(&session));
        drop(table);
        close_all(closed);
        Ok(session)
    }

    /// The HTTP session `id`, if it exists, has not expired and belongs to `subject`.
    pub(crate) fn find(&self, id: &str, subject: Option<&str>) -> Option<Arc<Session>> {
        // The clock read before the table is locked, not while every request waits on it.
        let now = Instant::now();
        let mut table = lock(&self.table);
        let ById(session) = table.by_id.get(id)?;
        if session.carrier != Carrier::Http || session.subject() != subject {
            return None;
        }
        if !session.touch_unless_expired(now, self.settings.idle_timeout) {
            let session = table.remove(id)?;
            drop(table);
            session.close();
            return None;
        }
        Some(Arc::clone(session))
    }

    /// Ends the session `id`; whether it existed.
    pub(crate) fn close(&self, id: &str) -> bool {
        let removed = lock(&self.table).remove(id);
        removed.map(|session| session.close()).is_some()
    }

    /// The sessions open now.
    pub(crate) fn all(&self) -> Vec<Arc<Session>> {
        let table = lock(&self.table);
        table
            .by_id
            .iter()
            .map(|ById(session)| Arc::clone(session))
            .collect()
    }

    /// How many sessions are open.
    pub(crate) fn len(&self) -> usize {
        lock(&self.table).by_id.len()
    }

    /// Starts, once and where a runtime runs, the task that closes expired sessions and
    /// forgets the declarations no session holds any more. It looks every quarter of the idle timeout (between 50 ms and a minute), and ends with the
    /// server.
    fn start_sweeper(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        self.sweeper.call_once(|| {
            let table = Arc::downgrade(&self.table);
            let declarations = Arc::downgrade(&self.declarations);
            let timeout = self.settings.idle_timeout;
            let period = (timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(60));
            runtime.spawn(sweep(table, declarations, timeout, period));
        });
    }
}

async fn sweep(
    table: Weak<Mutex<Table>>,
    declarations: Weak<Declarations>,
    timeout: Duration,
    period: Duration,
) {
    let mut ticks = tokio::time::interval_at(Instant::now() + period, period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(table) = table.upgrade() else { return };
        let expired = lock(&table).remove_expired(Instant::now(), timeout);
        drop(table);
        if !expired.is_empty() {
            tracing::debug!(sessions = expired.len(), "closed idle legacy sessions");
        }
        close_all(expired);
        if let Some(declarations) = declarations.upgrade() {
            declarations.sweep();
        }
    }
}

fn close_all(sessions: Vec<Arc<Session>>) {
    for session in sessions {
        session.close();
    }
}
