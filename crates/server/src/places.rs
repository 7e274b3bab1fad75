//! Connection places: which connections the server holds, so that stalled clients cannot lock
//! out the owner or a reviewer.
//!
//! - Shared places (`Limits::max_connections`) go to connections in order of arrival, but one
//!   address holds at most `per_address_connections` of them. All loopback addresses count as
//!   one address (this computer), IPv4-mapped IPv6 addresses as their IPv4 address, and other
//!   IPv6 addresses by their /64 network.
//! - Reserved places (`reserved_connections`) take a connection whose address already holds its
//!   share, or any connection while every shared place is taken. Every request on a reserved
//!   place must prove its caller (`Proof`); one that does not gets 503 and the connection closes.
//!   On the owner's server every client comes from 127.0.0.1, so the owner's key, not the
//!   address, is what keeps room for the owner there.
//! - A connection that finds no place free is refused at once (`listener.rs`).

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Request, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use super::owner_auth::{presented_keys, OwnerToken};
use super::ServeOptions;
use psebench::api::rpc;
use psebench::api::Engine;

/// What one address counts as when shared places are handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum AddressGroup {
    /// 127.0.0.0/8 and ::1: every program on this computer.
    ThisComputer,
    V4([u8; 4]),
    /// The first 64 bits of an IPv6 address.
    V6Net([u8; 8]),
}

impl AddressGroup {
    pub(super) fn of(ip: IpAddr) -> AddressGroup {
        match ip.to_canonical() {
            ip if ip.is_loopback() => AddressGroup::ThisComputer,
            IpAddr::V4(v4) => AddressGroup::V4(v4.octets()),
            IpAddr::V6(v6) => {
                let o = v6.octets();
                AddressGroup::V6Net([o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]])
            }
        }
    }
}

/// The kind of place a connection got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Shared,
    /// Served only for requests that prove their caller.
    Reserved,
    /// No place: the connection is refused.
    Refused,
}

#[derive(Default)]
struct Counts {
    shared: usize,
    reserved: usize,
    by_group: HashMap<AddressGroup, usize>,
}

/// The places of one server.
pub(super) struct Places {
    shared_cap: usize,
    per_address: usize,
    reserved_cap: usize,
    counts: Mutex<Counts>,
}

/// A connection's place; dropping it frees the place.
pub(super) struct Place {
    kind: Kind,
    group: AddressGroup,
    places: Arc<Places>,
}

impl Places {
    pub(super) fn new(shared: usize, per_address: usize, reserved: usize) -> Arc<Places> {
        Arc::new(Places {
            shared_cap: shared,
            per_address: per_address.min(shared),
            reserved_cap: reserved,
            counts: Mutex::new(Counts::default()),
        })
    }

    fn counts(&self) -> MutexGuard<'_, Counts> {
        // The counts are plain numbers; a panic elsewhere cannot leave them half-changed.
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A place for a connection from `ip`.
    pub(super) fn take(self: &Arc<Places>, ip: IpAddr) -> Place {
        let group = AddressGroup::of(ip);
        let mut c = self.counts();
        let held = c.by_group.get(&group).copied().unwrap_or(0);
        let kind = if c.shared < self.shared_cap && held < self.per_address {
            c.shared += 1;
            *c.by_group.entry(group).or_insert(0) += 1;
            Kind::Shared
        } else if c.reserved < self.reserved_cap {
            c.reserved += 1;
            Kind::Reserved
        } else {
            Kind::Refused
        };
        Place { kind, group, places: Arc::clone(self) }
    }
}

impl Place {
    pub(super) fn kind(&self) -> Kind {
        self.kind
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut c = self.places.counts();
        match self.kind {
            Kind::Shared => {
                c.shared = c.shared.saturating_sub(1);
                if let Some(n) = c.by_group.get_mut(&self.group) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        c.by_group.remove(&self.group);
                    }
                }
            }
            Kind::Reserved => c.reserved = c.reserved.saturating_sub(1),
            Kind::Refused => {}
        }
    }
}

/// What a request on a reserved place must show.
#[derive(Clone)]
pub(super) enum Proof {
    /// The owner's server: the owner's key, as `psebench serve`'s own check accepts it
    /// (`Authorization: Bearer`, a `psebench_owner*` cookie, or `?token=` of the printed link).
    OwnerKey(OwnerToken),
    /// A review server: a reviewer link of the served review (`x-review-token`, Bearer, or the
    /// `/review/TOKEN` page), checked against the store.
    ReviewerLink { engine: Box<Engine>, session: String },
}

impl Proof {
    pub(super) fn for_server(engine: &Engine, opts: &ServeOptions) -> Proof {
        match &opts.review_session {
            Some(s) => Proof::ReviewerLink { engine: Box::new(engine.clone()), session: s.clone() },
            None => Proof::OwnerKey(opts.owner_token.clone()),
        }
    }

    /// Whether a request with these headers and this address (path and query) proves its caller.
    pub(super) async fn holds(&self, headers: &HeaderMap, uri: &axum::http::Uri) -> bool {
        match self {
            Proof::OwnerKey(key) => presented_keys(headers).into_iter().any(|k| key.matches(k)),
            Proof::ReviewerLink { engine, session } => match reviewer_token(headers, uri) {
                Some(t) => rpc::check_reviewer(engine, t, Some(session)).await.is_ok(),
                None => false,
            },
        }
    }
}

fn reviewer_token<'a>(headers: &'a HeaderMap, uri: &'a axum::http::Uri) -> Option<&'a str> {
    headers
        .get("x-review-token")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .or_else(|| presented_keys(headers).into_iter().next())
        .or_else(|| uri.path().strip_prefix("/review/").map(|t| t.trim_end_matches('/')))
        .filter(|t| !t.is_empty())
}

/// What a connection without a place is told.
pub(super) const BUSY_MESSAGE: &str =
    "The server is busy: every connection place is taken. Please try again in a moment.";

/// The answer to a request on a reserved place that does not prove its caller; the connection
/// closes after it.
pub(super) fn busy() -> Response {
    let mut r = super::limits::plain(StatusCode::SERVICE_UNAVAILABLE, BUSY_MESSAGE.into());
    r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    r
}

/// Middleware of the app served on reserved places.
pub(super) async fn require_proof(State(proof): State<Proof>, req: Request<Body>, next: Next) -> Response {
    if proof.holds(req.headers(), req.uri()).await {
        return next.run(req).await;
    }
    tracing::debug!(path = %req.uri().path(), "a request without a key on a reserved connection place was refused");
    busy()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn addresses_are_grouped_by_computer_and_ipv6_network() {
        let g = AddressGroup::of;
        assert_eq!(g(ip("127.0.0.1")), AddressGroup::ThisComputer);
        assert_eq!(g(ip("127.8.9.10")), AddressGroup::ThisComputer);
        assert_eq!(g(ip("::1")), AddressGroup::ThisComputer);
        assert_eq!(g(ip("::ffff:127.0.0.1")), AddressGroup::ThisComputer);
        assert_eq!(g(ip("::ffff:192.168.1.5")), g(ip("192.168.1.5")));
        assert_ne!(g(ip("192.168.1.5")), g(ip("192.168.1.6")));
        assert_eq!(g(ip("2001:db8:1:2::1")), g(ip("2001:db8:1:2:ffff:ffff:ffff:ffff")));
        assert_ne!(g(ip("2001:db8:1:2::1")), g(ip("2001:db8:1:3::1")));
    }

    #[test]
    fn one_address_gets_its_share_then_reserved_places_then_none() {
        let places = Places::new(4, 2, 1);
        let a = ip("192.168.1.5");
        let first: Vec<Place> = (0..2).map(|_| places.take(a)).collect();
        assert!(first.iter().all(|p| p.kind() == Kind::Shared));
        let third = places.take(a);
        assert_eq!(third.kind(), Kind::Reserved, "over its share");
        assert_eq!(places.take(a).kind(), Kind::Refused, "the reserved place is taken");
        // Another address still finds shared places.
        let b: Vec<Place> = (0..2).map(|_| places.take(ip("192.168.1.6"))).collect();
        assert!(b.iter().all(|p| p.kind() == Kind::Shared));
        // Every shared place is taken now: a third address gets no shared place either.
        assert_eq!(places.take(ip("10.0.0.1")).kind(), Kind::Refused);
        drop(third);
        assert_eq!(places.take(ip("10.0.0.1")).kind(), Kind::Reserved);
        // Places come back when their connections end.
        drop(first);
        assert_eq!(places.take(a).kind(), Kind::Shared);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_owner_key_is_found_where_the_app_sends_it() {
        let proof = Proof::OwnerKey(OwnerToken::from_text("the-key"));
        let uri = |s: &str| s.parse::<axum::http::Uri>().unwrap();
        let with = |name: &str, value: &str| {
            let mut h = HeaderMap::new();
            h.insert(
                axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
            h
        };
        let none = HeaderMap::new();
        assert!(proof.holds(&with("authorization", "Bearer the-key"), &uri("/api/store.info")).await);
        // The key travels only as Bearer: never in a cookie, and an old-style link is no proof.
        assert!(!proof.holds(&with("cookie", "a=b; psebench_owner_8765=the-key"), &uri("/assets/app.js")).await);
        assert!(!proof.holds(&none, &uri("/?token=the-key")).await);
        assert!(!proof.holds(&none, &uri("/assets/app.js")).await);
        assert!(!proof.holds(&with("authorization", "Bearer wrong"), &uri("/")).await);
        assert!(!proof.holds(&with("cookie", "other=the-key"), &uri("/")).await);
        assert!(!proof.holds(&with("x-review-token", "the-key"), &uri("/")).await);
    }
}
