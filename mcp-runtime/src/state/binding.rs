//! What a state is bound to: the request context, reduced to a fixed-size digest.

use std::fmt::{self, Write as _};
use std::sync::{Arc, LazyLock};

use axum::http::HeaderMap;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Domain of [`default_binding`], padded to one SHA-256 block so that its hash state is
/// prepared once. A new version of the encoding takes a new domain: v2 added the audience.
const DEFAULT_DOMAIN: &[u8; 64] =
    b"mcp-runtime/state/binding/v2\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
/// Domain of [`Binding::from_parts`].
const PARTS_DOMAIN: &[u8] = b"mcp-runtime/state/binding-parts/v1\0";
/// Domain of [`Binding::extended`].
const EXTEND_DOMAIN: &[u8] = b"mcp-runtime/state/binding-extend/v1\0";

/// SHA-256 with [`DEFAULT_DOMAIN`] absorbed.
static DEFAULT_PREFIX: LazyLock<Sha256> = LazyLock::new(|| Sha256::new_with_prefix(DEFAULT_DOMAIN));

/// The request a state is minted for, or verified on, as the binding policy sees it.
///
/// Build one with [`BindingContext::new`] and the `with_*` methods. A struct literal has to
/// name every field, and breaks when one is added; one that ends in
/// `..BindingContext::new(method, target)` does not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BindingContext<'a> {
    /// The identity of the service minting and verifying: by default the server's name. Two
    /// services that share a key and a tool name refuse each other's states as long as their
    /// audiences differ. Empty unless set (see [`with_audience`](Self::with_audience)).
    pub audience: &'a str,
    /// The authenticated subject (the user or client the transport authenticated), `None`
    /// where there is none. The default policy treats `None` and `Some("")` alike.
    pub subject: Option<&'a str>,
    /// The JSON-RPC method, such as `tools/call`.
    pub method: &'a str,
    /// What the method acts on: the tool name, the prompt name or the resource URI.
    pub target: &'a str,
    /// The request's arguments. The default policy treats `None`, `null` and `{}` alike.
    pub arguments: Option<&'a Value>,
    /// The request's `_meta`, where the request has one. Not bound by the default policy:
    /// `_meta` carries what changes from one try to the next (a progress token, trace
    /// context), and the protocol version and client capabilities a client may change
    /// between rounds. A policy may bind a stable key of it.
    pub meta: Option<&'a Map<String, Value>>,
    /// The HTTP headers of the request, where the transport has them (none over stdio). Not
    /// bound by the default policy: proxies add, drop and rewrite headers between tries. A
    /// policy may bind one it knows to be stable, such as a tenant header its gateway sets.
    pub headers: Option<&'a HeaderMap>,
}

impl<'a> BindingContext<'a> {
    /// A context for `method` on `target`, with an empty audience, no subject, no arguments,
    /// no `_meta` and no headers.
    pub const fn new(method: &'a str, target: &'a str) -> Self {
        Self {
            audience: "",
            subject: None,
            method,
            target,
            arguments: None,
            meta: None,
            headers: None,
        }
    }

    /// The same context with the audience, the identity of the service, set to `audience`.
    #[must_use]
    pub const fn with_audience(self, audience: &'a str) -> Self {
        Self { audience, ..self }
    }

    /// The same context with the authenticated subject set to `subject`.
    #[must_use]
    pub const fn with_subject(self, subject: Option<&'a str>) -> Self {
        Self { subject, ..self }
    }

    /// The same context with the request's arguments set to `arguments`.
    #[must_use]
    pub const fn with_arguments(self, arguments: Option<&'a Value>) -> Self {
        Self { arguments, ..self }
    }

    /// The same context with the request's `_meta` set to `meta`.
    #[must_use]
    pub const fn with_meta(self, meta: Option<&'a Map<String, Value>>) -> Self {
        Self { meta, ..self }
    }

    /// The same context with the request's HTTP headers set to `headers`.
    #[must_use]
    pub const fn with_headers(self, headers: Option<&'a HeaderMap>) -> Self {
        Self { headers, ..self }
    }
}

/// A fixed-size digest of what a state is bound to, mixed into the token's MAC.
///
/// Produced by a [`BindingPolicy`] (by default [`default_binding`]) from a
/// [`BindingContext`], or built directly for a binding fixed on a signer
/// ([`Signer::with_fixed_binding`](super::Signer::with_fixed_binding)).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Binding([u8; 32]);

impl Binding {
    /// The binding with these exact bytes.
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// The binding's bytes.
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The SHA-256 digest of `parts`, each length-prefixed, so that no two lists of parts
    /// collide (`["ab", "c"]` and `["a", "bc"]` differ).
    ///
    /// For policies that replace the default entirely, or for a binding fixed on a signer.
    pub fn from_parts(parts: &[&[u8]]) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(PARTS_DOMAIN);
        for part in parts {
            put_bytes(&mut hasher, part);
        }
        Self(hasher.finalize().into())
    }

    /// This binding extended with `extra`: the digest of both, distinct from either.
    ///
    /// Lets a policy add to the default rather than replace it:
    ///
    /// ```
    /// use std::sync::Arc;
    /// use mcp_runtime::state::{BindingContext, BindingPolicy, default_binding};
    ///
    /// let tenant = String::from("tenant-42");
    /// let policy: BindingPolicy =
    ///     Arc::new(move |cx: &BindingContext<'_>| default_binding(cx).extended(tenant.as_bytes()));
    /// let cx = BindingContext::new("tools/call", "deploy");
    /// assert_ne!(policy(&cx), default_binding(&cx));
    /// ```
    #[must_use]
    pub fn extended(&self, extra: &[u8]) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(EXTEND_DOMAIN);
        hasher.update(self.0);
        put_bytes(&mut hasher, extra);
        Self(hasher.finalize().into())
    }
}

impl fmt::Debug for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Binding(")?;
        for byte in &self.0 {
            write!(f, "{byte:02x}")?;
        }
        f.write_str(")")
    }
}

/// Computes the binding of a request; replaces [`default_binding`] on a signer through
/// [`Signer::with_policy`](super::Signer::with_policy).
///
/// A policy must be deterministic: the verifier recomputes the binding on the next round and
/// the state is refused unless both agree. A replacement can call [`default_binding`] and
/// extend its result with [`Binding::extended`].
pub type BindingPolicy = Arc<dyn Fn(&BindingContext<'_>) -> Binding + Send + Sync>;

/// The default binding: the audience, the subject, the method, the target and the arguments
/// in a canonical form, hashed together with SHA-256.
///
/// - The audience binds as given; an empty one is still bound (as empty).
/// - A missing subject binds like an empty one.
/// - Missing arguments, `null` and `{}` bind alike, since a client may omit an empty
///   `arguments` object on one try and send it on the next.
/// - Object key order never matters, at any depth: `{"a":1,"b":2}` and `{"b":2,"a":1}` bind
///   alike. Array order does matter.
/// - Strings compare by their exact Unicode scalar values (no normalisation); integers by
///   value; other numbers by their JSON text as `serde_json` prints it, so `1` and `1.0` bind
///   differently.
///
/// `_meta` and the headers are not bound: they carry what may change between two tries of one
/// request (a progress token, trace context, what a proxy adds). A policy that needs one of
/// them extends this binding with it ([`Binding::extended`]).
///
/// Each field is length-prefixed or self-delimiting under a versioned domain, so no two
/// distinct contexts share an encoding.
pub fn default_binding(cx: &BindingContext<'_>) -> Binding {
    let mut feed = Feed::new(DEFAULT_PREFIX.clone());
    feed.bytes(cx.audience.as_bytes());
    feed.bytes(cx.subject.unwrap_or("").as_bytes());
    feed.bytes(cx.method.as_bytes());
    feed.bytes(cx.target.as_bytes());
    match cx.arguments {
        None | Some(Value::Null) => feed.object(&Map::new()),
        Some(arguments) => feed.value(arguments),
    }
    Binding(feed.finish())
}

/// Length-prefixed bytes, straight into a hasher.
fn put_bytes(hasher: &mut Sha256, bytes: &[u8]) {
    hasher.update((bytes.len() as u64).to_be_bytes());
    hasher.update(bytes);
}

/// Feeds the canonical encoding of a context into SHA-256 through a small buffer, so that the
/// many short fields cost one hasher call per buffer rather than one each.
///
/// The encoding is self-delimiting: strings and keys carry a LEB128 length, arrays and objects
/// a LEB128 count, every value a tag byte, integers eight bytes, other numbers their JSON text
/// ended by `;` (which JSON number text never contains).
struct Feed {
    hasher: Sha256,
    buf: [u8; 128],
    len: usize,
}

impl Feed {
    fn new(hasher: Sha256) -> Self {
        Self {
            hasher,
            buf: [0; 128],
            len: 0,
        }
    }

    fn raw(&mut self, bytes: &[u8]) {
        if let Some(slot) = self.buf.get_mut(self.len..self.len + bytes.len()) {
            slot.copy_from_slice(bytes);
            self.len += bytes.len();
        } else {
            self.flush();
            if bytes.len() <= self.buf.len() {
                self.buf[..bytes.len()].copy_from_slice(bytes);
                self.len = bytes.len();
            } else {
                self.hasher.update(bytes);
            }
        }
    }

    fn flush(&mut self) {
        self.hasher.update(&self.buf[..self.len]);
        self.len = 0;
    }

    /// One byte: the tags and varints, written in place rather than copied as slices.
    fn byte(&mut self, byte: u8) {
        if self.len == self.buf.len() {
            self.flush();
        }
        self.buf[self.len] = byte;
        self.len += 1;
    }

    fn varint(&mut self, value: usize) {
        let mut value = value as u64;
        while value >= 0x80 {
            self.byte((value as u8) | 0x80);
            value >>= 7;
        }
        self.byte(value as u8);
    }

    fn bytes(&mut self, bytes: &[u8]) {
        // The usual field, shorter than 128 bytes, where the buffer has room: its one-byte
        // length and its bytes written with one check.
        if bytes.len() < 0x80
            && let Some(slot) = self.buf.get_mut(self.len..=self.len + bytes.len())
        {
            let (len, rest) = slot.split_at_mut(1);
            len[0] = bytes.len() as u8;
            rest.copy_from_slice(bytes);
            self.len += 1 + bytes.len();
            return;
        }
        self.varint(bytes.len());
        self.raw(bytes);
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.byte(b'n'),
            Value::Bool(false) => self.byte(b'f'),
            Value::Bool(true) => self.byte(b't'),
            Value::Number(number) => {
                if let Some(n) = number.as_u64() {
                    self.byte(b'u');
                    self.raw(&n.to_be_bytes());
                } else if let Some(n) = number.as_i64() {
                    self.byte(b'i');
                    self.raw(&n.to_be_bytes());
                } else {
                    self.byte(b'#');
                    // Writing into a hasher cannot fail.
                    let _ = write!(self, "{number}");
                    self.byte(b';');
                }
            }
            Value::String(string) => {
                self.byte(b's');
                self.bytes(string.as_bytes());
            }
            Value::Array(items) => {
                self.byte(b'[');
                self.varint(items.len());
                for item in items {
                    self.value(item);
                }
            }
            Value::Object(map) => self.object(map),
        }
    }

    fn object(&mut self, map: &Map<String, Value>) {
        self.members(map.len(), map.iter());
    }

    /// Members sorted by key bytes, whatever order the map keeps them in (with `serde_json`'s
    /// `preserve_order` feature it keeps the input order). Takes the members rather than the
    /// map so that the unsorted case is tested in every build.
    fn members<'v>(
        &mut self,
        len: usize,
        members: impl Iterator<Item = (&'v String, &'v Value)> + Clone,
    ) {
        self.byte(b'{');
        self.varint(len);
        if members.clone().map(|(key, _)| key).is_sorted() {
            for (key, value) in members {
                self.bytes(key.as_bytes());
                self.value(value);
            }
        } else {
            let mut members: Vec<(&String, &Value)> = members.collect();
            members.sort_unstable_by(|a, b| a.0.cmp(b.0));
            for (key, value) in members {
                self.bytes(key.as_bytes());
                self.value(value);
            }
        }
    }

    fn finish(mut self) -> [u8; 32] {
        self.flush();
        self.hasher.finalize().into()
    }
}

impl fmt::Write for Feed {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.raw(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bind(arguments: Option<&Value>) -> Binding {
        default_binding(&BindingContext::new("tools/call", "t").with_arguments(arguments))
    }

    /// The digest of an object whose members come in exactly this order (a `Map` cannot
    /// hold them unsorted in a build without `serde_json/preserve_order`).
    fn members_digest(members: &[(String, Value)]) -> [u8; 32] {
        let mut feed = Feed::new(DEFAULT_PREFIX.clone());
        feed.members(
            members.len(),
            members.iter().map(|(key, value)| (key, value)),
        );
        feed.finish()
    }

    fn object_digest(value: &Value) -> [u8; 32] {
        let mut feed = Feed::new(DEFAULT_PREFIX.clone());
        feed.value(value);
        feed.finish()
    }

    #[test]
    fn members_in_any_order_bind_like_the_sorted_object() {
        let inner = json!({"c": [1, 2], "d": null});
        let sorted = json!({"a": 1, "b": inner, "ba": "x"});
        let value = |key: &str| sorted[key].clone();
        let orders: [&[&str]; 4] = [
            &["a", "b", "ba"],
            &["b", "a", "ba"],
            &["ba", "b", "a"],
            &["b", "ba", "a"],
        ];
        for order in orders {
            let members: Vec<(String, Value)> = order
                .iter()
                .map(|key| ((*key).to_owned(), value(key)))
                .collect();
            assert_eq!(
                members_digest(&members),
                object_digest(&sorted),
                "members in the order {order:?}"
            );
        }
        // The order of an array still counts, and so does every member.
        let swapped = [("a".to_owned(), json!([2, 1]))];
        assert_ne!(
            members_digest(&swapped),
            object_digest(&json!({"a": [1, 2]}))
        );
        let fewer = [("b".to_owned(), inner), ("a".to_owned(), json!(1))];
        assert_ne!(members_digest(&fewer), object_digest(&sorted));
    }

    #[test]
    fn shapes_that_print_alike_bind_differently() {
        assert_ne!(bind(Some(&json!({"a": "1"}))), bind(Some(&json!({"a": 1}))));
        assert_ne!(bind(Some(&json!({"a": [1]}))), bind(Some(&json!({"a": 1}))));
        assert_ne!(bind(Some(&json!({"a": []}))), bind(Some(&json!({"a": {}}))));
        assert_ne!(bind(Some(&json!({"ab": 1}))), bind(Some(&json!({"a": 1}))));
        assert_ne!(bind(Some(&json!([]))), bind(None));
        assert_ne!(bind(Some(&json!({"a": 1.0}))), bind(Some(&json!({"a": 1}))));
        assert_ne!(
            bind(Some(&json!({"a": -1}))),
            bind(Some(&json!({"a": u64::MAX})))
        );
        assert_eq!(
            bind(Some(&json!({"a": 0.5}))),
            bind(Some(&json!({"a": 0.5})))
        );
        assert_ne!(
            bind(Some(&json!({"a": 0.5}))),
            bind(Some(&json!({"a": 0.25})))
        );
    }

    #[test]
    fn long_fields_pass_through_the_buffer_intact() {
        let long = "x".repeat(1000);
        let longer = "x".repeat(1001);
        let a = default_binding(&BindingContext::new("m", &long));
        let b = default_binding(&BindingContext::new("m", &longer));
        assert_ne!(a, b);
        let args = json!({ "k": long });
        let again = json!({ "k": "x".repeat(1000) });
        assert_eq!(bind(Some(&args)), bind(Some(&again)));
    }

    /// A field written at once (short, with room in the buffer) is fed as its length then its
    /// bytes, as any other field is, wherever it falls in the buffer.
    #[test]
    fn a_field_written_at_once_is_its_length_then_its_bytes() {
        let field = [b'f'; 130];
        for before in [0, 1, 60, 126, 127, 128, 129] {
            for len in [0, 1, 62, 63, 126, 127, 128, 129, 130] {
                let mut once = Feed::new(DEFAULT_PREFIX.clone());
                let mut apart = Feed::new(DEFAULT_PREFIX.clone());
                once.raw(&field[..before]);
                apart.raw(&field[..before]);
                once.bytes(&field[..len]);
                apart.varint(len);
                apart.raw(&field[..len]);
                assert_eq!(once.finish(), apart.finish(), "{before} {len}");
            }
        }
    }

    #[test]
    fn audience_is_bound_and_meta_and_headers_are_not() {
        let base = BindingContext::new("tools/call", "t");
        let ours = base.with_audience("billing");
        assert_ne!(default_binding(&ours), default_binding(&base));
        assert_ne!(
            default_binding(&ours),
            default_binding(&base.with_audience("payroll"))
        );
        // The audience is length-prefixed: moving a byte into the subject changes the binding.
        assert_ne!(
            default_binding(&base.with_audience("ab").with_subject(Some("c"))),
            default_binding(&base.with_audience("a").with_subject(Some("bc")))
        );
        let meta = json!({"progressToken": 7});
        let mut headers = HeaderMap::new();
        headers.insert("x-trace", "1".parse().expect("a valid header value"));
        let seen = ours
            .with_meta(meta.as_object())
            .with_headers(Some(&headers));
        assert_eq!(default_binding(&seen), default_binding(&ours));
    }

    #[test]
    fn parts_are_length_prefixed() {
        assert_ne!(
            Binding::from_parts(&[b"ab", b"c"]),
            Binding::from_parts(&[b"a", b"bc"])
        );
        let base = Binding::from_parts(&[]);
        assert_ne!(base.extended(b""), base);
        assert_ne!(base.extended(b"x"), base.extended(b"y"));
    }
}
