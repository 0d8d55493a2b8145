//! Who a long-lived object belongs to: the caller's subject, or where there is none the
//! address it connects from. Sessions, their calls and their streams are counted per owner,
//! so that one client reaching its caps never refuses another.

use std::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;

/// The owner of a legacy session (and of what runs on it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
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

impl Owner {
    pub(crate) fn of(subject: Option<&str>, peer: Option<IpAddr>) -> Self {
        match (subject, peer) {
            (Some(subject), _) => Self::Subject(Arc::from(subject)),
            (None, Some(peer)) => Self::Peer(network(peer)),
            (None, None) => Self::Unknown,
        }
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
}
