//! The room of requests' header maps, kept on each thread for its next requests: a request's
//! headers are shared with its call in an `Arc`, and once the call is over the map's room and
//! the `Arc` serve the next request, where new ones were made and freed for each.

use std::cell::Cell;
use std::sync::Arc;

use axum::http::HeaderMap;

thread_local! {
    /// The `Arc`s requests' headers were shared in, emptied once their calls were over, for
    /// the next requests on this thread: one allocation (and its freeing) fewer a request. Two:
    /// a legacy call's request ends after the request that carries its answer began.
    static SPARE_SHARED: Cell<[Option<Arc<HeaderMap>>; 2]> = const { Cell::new([None, None]) };
}

/// `headers` in an `Arc`, to share with dispatch: one this thread kept, if it did.
pub(super) fn shared(headers: HeaderMap) -> Arc<HeaderMap> {
    let spare = SPARE_SHARED.try_with(|spares| {
        let mut kept = spares.take();
        let spare = kept.iter_mut().find_map(Option::take);
        spares.set(kept);
        spare
    });
    if let Some(mut spare) = spare.ok().flatten()
        && let Some(room) = Arc::get_mut(&mut spare)
    {
        *room = headers;
        return spare;
    }
    Arc::new(headers)
}

/// The request's header map, emptied, when nothing else holds it any more (as once its call
/// is over), and its `Arc` kept for the thread's next request; else a new map with room for
/// as many headers.
pub(super) fn emptied(headers: Arc<HeaderMap>) -> HeaderMap {
    let len = headers.len();
    take_emptied(headers).unwrap_or_else(|| HeaderMap::with_capacity(len))
}

/// The request's header map, emptied, if nothing else holds it any more, and its `Arc` kept
/// for the thread's next request.
pub(super) fn take_emptied(mut headers: Arc<HeaderMap>) -> Option<HeaderMap> {
    let map = Arc::get_mut(&mut headers)?;
    // An empty map in its place holds no allocation.
    let mut map = std::mem::take(map);
    map.clear();
    let _ = SPARE_SHARED.try_with(|spares| {
        let mut kept = spares.take();
        if let Some(free) = kept.iter_mut().find(|spare| spare.is_none()) {
            *free = Some(headers);
        }
        spares.set(kept);
    });
    Some(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_map_no_longer_shared_comes_back_emptied_with_its_room_and_its_arc_is_reused() {
        let mut headers = HeaderMap::new();
        for n in 0..20 {
            headers.insert(
                axum::http::HeaderName::try_from(format!("x-{n}")).unwrap(),
                axum::http::HeaderValue::from_static("v"),
            );
        }
        let room = headers.capacity();
        let headers = Arc::new(headers);
        let held = Arc::clone(&headers);
        // Still held elsewhere: a new map, with room for as many.
        let fresh = emptied(Arc::clone(&headers));
        assert!(
            fresh.is_empty() && fresh.capacity() >= 20,
            "{}",
            fresh.capacity()
        );
        assert_eq!(held.len(), 20);
        drop(held);
        let at = Arc::as_ptr(&headers);
        let reused = emptied(headers);
        assert!(reused.is_empty());
        assert_eq!(reused.capacity(), room);
        // Its `Arc` shares the thread's next request's headers.
        let next = shared(HeaderMap::new());
        assert_eq!(Arc::as_ptr(&next), at);
        assert!(next.is_empty());
        // Held elsewhere when that request ends: not kept.
        let held = Arc::clone(&next);
        drop(emptied(next));
        assert_ne!(Arc::as_ptr(&shared(HeaderMap::new())), at);
        drop(held);
    }
}
