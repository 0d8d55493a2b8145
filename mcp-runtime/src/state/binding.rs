//! What a state is bound to: the request context, reduced to a fixed-size digest.

use std::fmt::{self, Write as _};
use std::sync::Arc;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Domain of [`default_binding`]; a new version of the encoding takes a new domain.
const DEFAULT_DOMAIN: &[u8] = b"mcp-runtime/state/binding/v1\0";
/// Domain of [`Binding::from_parts`].
const PARTS_DOMAIN: &[u8] = b"mcp-runtime/state/binding-parts/v1\0";
/// Domain of [`Binding::extended`].
const EXTEND_DOMAIN: &[u8] = b"mcp-runtime/state/binding-extend/v1\0";

/// The request a state is minted for, or verified on, as the binding policy sees it.
///
/// Build one with [`BindingContext::new`] and the `with_*` methods, or with a struct literal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BindingContext<'a> {
    /// The authenticated subject (the user or client the transport authenticated), `None`
    /// where there is none. The default policy treats `None` and `Some("")` alike.
    pub subject: Option<&'a str>,
    /// The JSON-RPC method, such as `tools/call`.
    pub method: &'a str,
    /// What the method acts on: the tool name, the prompt name or the resource URI.
    pub target: &'a str,
    /// The request's arguments. The default policy treats `None`, `null` and `{}` alike.
    pub arguments: Option<&'a Value>,
}

impl<'a> BindingContext<'a> {
    /// A context for `method` on `target`, with no subject and no arguments.
    pub const fn new(method: &'a str, target: &'a str) -> Self {
        Self {
            subject: None,
            method,
            target,
            arguments: None,
        }
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

/// The default binding: the subject, the method, the target and the arguments in a canonical
/// form, hashed together with SHA-256.
///
/// - A missing subject binds like an empty one.
/// - Missing arguments, `null` and `{}` bind alike, since a client may omit an empty
///   `arguments` object on one try and send it on the next.
/// - Object key order never matters, at any depth: `{"a":1,"b":2}` and `{"b":2,"a":1}` bind
///   alike. Array order does matter.
/// - Strings compare by their exact Unicode scalar values (no normalisation); numbers by their
///   JSON text as `serde_json` prints it, so `1` and `1.0` bind differently.
///
/// Each field is length-prefixed or self-delimiting under a versioned domain, so no two
/// distinct contexts share an encoding.
pub fn default_binding(cx: &BindingContext<'_>) -> Binding {
    let mut hasher = Sha256::new();
    hasher.update(DEFAULT_DOMAIN);
    put_bytes(&mut hasher, cx.subject.unwrap_or("").as_bytes());
    put_bytes(&mut hasher, cx.method.as_bytes());
    put_bytes(&mut hasher, cx.target.as_bytes());
    match cx.arguments {
        None | Some(Value::Null) => put_object(&mut hasher, &Map::new()),
        Some(arguments) => put_value(&mut hasher, arguments),
    }
    Binding(hasher.finalize().into())
}

/// Length-prefixed bytes.
fn put_bytes(hasher: &mut Sha256, bytes: &[u8]) {
    hasher.update((bytes.len() as u64).to_be_bytes());
    hasher.update(bytes);
}

/// A canonical, self-delimiting encoding of a JSON value: a tag byte, then a body whose end is
/// known from a length, a count or a terminator.
fn put_value(hasher: &mut Sha256, value: &Value) {
    match value {
        Value::Null => hasher.update(b"n"),
        Value::Bool(false) => hasher.update(b"f"),
        Value::Bool(true) => hasher.update(b"t"),
        Value::Number(number) => {
            // A number's JSON text never contains `;`, so it ends the number unambiguously.
            hasher.update(b"#");
            // Writing into a hasher cannot fail.
            let _ = write!(HashWriter(hasher), "{number}");
            hasher.update(b";");
        }
        Value::String(string) => {
            hasher.update(b"s");
            put_bytes(hasher, string.as_bytes());
        }
        Value::Array(items) => {
            hasher.update(b"[");
            hasher.update((items.len() as u64).to_be_bytes());
            for item in items {
                put_value(hasher, item);
            }
        }
        Value::Object(map) => put_object(hasher, map),
    }
}

/// Members sorted by key bytes, whatever order the map keeps them in (with `serde_json`'s
/// `preserve_order` feature it keeps the input order).
fn put_object(hasher: &mut Sha256, map: &Map<String, Value>) {
    hasher.update(b"{");
    hasher.update((map.len() as u64).to_be_bytes());
    let put_member = |hasher: &mut Sha256, key: &String, value: &Value| {
        put_bytes(hasher, key.as_bytes());
        put_value(hasher, value);
    };
    if map.keys().is_sorted() {
        for (key, value) in map {
            put_member(hasher, key, value);
        }
    } else {
        let mut members: Vec<(&String, &Value)> = map.iter().collect();
        members.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (key, value) in members {
            put_member(hasher, key, value);
        }
    }
}

/// Feeds formatted text straight into a hasher, without an intermediate string.
struct HashWriter<'h>(&'h mut Sha256);

impl fmt::Write for HashWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.update(s.as_bytes());
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

    #[test]
    fn unsorted_maps_bind_like_sorted_ones() {
        // Build a map whose iteration order is not sorted, whatever the map type.
        let sorted = json!({"a": 1, "b": {"c": [1, 2], "d": null}});
        let mut unsorted = Map::new();
        let mut inner = Map::new();
        inner.insert("d".into(), Value::Null);
        inner.insert("c".into(), json!([1, 2]));
        unsorted.insert("b".into(), Value::Object(inner));
        unsorted.insert("a".into(), json!(1));
        assert_eq!(bind(Some(&sorted)), bind(Some(&Value::Object(unsorted))));
    }

    #[test]
    fn shapes_that_print_alike_bind_differently() {
        assert_ne!(bind(Some(&json!({"a": "1"}))), bind(Some(&json!({"a": 1}))));
        assert_ne!(bind(Some(&json!({"a": [1]}))), bind(Some(&json!({"a": 1}))));
        assert_ne!(bind(Some(&json!({"a": []}))), bind(Some(&json!({"a": {}}))));
        assert_ne!(bind(Some(&json!({"ab": 1}))), bind(Some(&json!({"a": 1}))));
        assert_ne!(bind(Some(&json!([]))), bind(None));
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
