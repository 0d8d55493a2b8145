//! Who a long-lived object belongs to: the caller's subject, or where there is none the
//! address it connects from. Sessions, their calls and their streams are counted per owner,
//! so that one client reaching its caps never refuses another.

use std::hash::{Hash, Hasher};
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;

use crate::state::Owner as StoreOwner;

/// The owner of a legacy session (and of what runs on it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Owner {
    /// An authenticated caller, or one the subject hook named.
    Subject(Arc<str>),
    /// A caller without a subject, by its address: an IPv4 address whole, an IPv6 address by
    /// its /64 network (what one host is usually given).
    Peer(IpAddr),
    /// Neither: a transport that named no peer (stdio, or a router served without
    /// connection information). All such callers share one owner.
    Unknown,
}

/// An owner is hashed in one write where it can be: every HTTP request hashes its owner
/// twice (its place among the requests in flight taken, then given back), and the maps' keyed
/// hasher costs most per write. Equal owners write the same; owners of different kinds may
/// collide, which costs a comparison, not a wrong answer.
impl Hash for Owner {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Self::Subject(subject) => subject.hash(state),
            Self::Peer(IpAddr::V4(v4)) => state.write_u32(v4.to_bits()),
            Self::Peer(IpAddr::V6(v6)) => state.write_u128(v6.to_bits()),
            Self::Unknown => state.write_u8(0),
        }
    }
}

impl Owner {
    pub(crate) fn of(subject: Option<&str>, peer: Option<IpAddr>) -> Self {
        match (subject, peer) {
            (Some(subject), _) => Self::Subject(Arc::from(subject)),
            (None, Some(peer)) => Self::Peer(network(peer)),
            (None, None) => Self::Unknown,
        }
    }
}

/// Who a stored record (a single-use state's use, a task) is charged to, counted as
/// [`Owner::of`] counts: the subject, else the peer's network, else every caller with
/// neither together.
pub(crate) fn charged_to(subject: Option<&str>, peer: Option<IpAddr>) -> StoreOwner<'_> {
    match (subject, peer) {
        (Some(subject), _) => StoreOwner::Subject(subject),
        (None, Some(peer)) => StoreOwner::Peer(network(peer)),
        (None, None) => StoreOwner::Anonymous,
    }
}

/// The address an owner is known by: IPv4 (also when mapped into IPv6) whole, IPv6 by /64.
pub(crate) fn network(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(_) => peer,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(Ipv6Addr::from(segments))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_wins_over_the_peer_and_ipv6_peers_count_by_network() {
        let peer: IpAddr = "2001:db8:1:2:aaaa:bbbb:cccc:dddd".parse().unwrap();
        let neighbour: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let elsewhere: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(
            Owner::of(Some("alice"), Some(peer)),
            Owner::Subject(Arc::from("alice"))
        );
        assert_eq!(
            Owner::of(None, Some(peer)),
            Owner::of(None, Some(neighbour))
        );
        assert_ne!(
            Owner::of(None, Some(peer)),
            Owner::of(None, Some(elsewhere))
        );
        let mapped: IpAddr = "::ffff:10.0.0.7".parse().unwrap();
        assert_eq!(
            Owner::of(None, Some(mapped)),
            Owner::Peer("10.0.0.7".parse().unwrap())
        );
        assert_ne!(
            Owner::of(None, Some("10.0.0.7".parse().unwrap())),
            Owner::of(None, Some("10.0.0.8".parse().unwrap()))
        );
        assert_eq!(Owner::of(None, None), Owner::Unknown);
    }

    /// A stored record (a task, a single-use state's use) is charged as sessions are
    /// counted: one host's IPv6 addresses are one owner, and a subject wins.
    #[test]
    fn stored_records_are_charged_as_owners_are_counted() {
        let peer: IpAddr = "2001:db8:1:2:aaaa:bbbb:cccc:dddd".parse().unwrap();
        let neighbour: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let elsewhere: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(
            charged_to(None, Some(peer)),
            charged_to(None, Some(neighbour))
        );
        assert_ne!(
            charged_to(None, Some(peer)),
            charged_to(None, Some(elsewhere))
        );
        assert_eq!(
            charged_to(Some("alice"), Some(peer)),
            StoreOwner::Subject("alice")
        );
        assert_eq!(charged_to(None, None), StoreOwner::Anonymous);
    }

    /// Equal owners hash the same: the maps counting per owner find them again.
    #[test]
    fn equal_owners_hash_the_same_and_others_apart() {
        use std::hash::BuildHasher as _;
        let hasher = std::collections::hash_map::RandomState::new();
        let owners = [
            Owner::of(Some("alice"), None),
            Owner::of(Some("bob"), None),
            Owner::of(None, Some("10.0.0.7".parse().unwrap())),
            Owner::of(None, Some("10.0.0.8".parse().unwrap())),
            Owner::of(None, Some("2001:db8:1:2::1".parse().unwrap())),
            Owner::of(None, Some("2001:db8:1:3::1".parse().unwrap())),
            Owner::Unknown,
        ];
        for (at, owner) in owners.iter().enumerate() {
            let copy = owner.clone();
            assert_eq!(hasher.hash_one(owner), hasher.hash_one(&copy), "{owner:?}");
            for other in &owners[at + 1..] {
                assert_ne!(
                    hasher.hash_one(owner),
                    hasher.hash_one(other),
                    "{owner:?} {other:?}"
                );
            }
        }
        // An IPv6 peer's whole address is hashed, not only its network.
        let (one, two) = (
            "2001:db8::1".parse().unwrap(),
            "2001:db8::2".parse().unwrap(),
        );
        assert_ne!(
            hasher.hash_one(Owner::Peer(one)),
            hasher.hash_one(Owner::Peer(two))
        );
    }
}
