//! The request-state codec, seen from outside: what it accepts, what it refuses, and why.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_runtime::state::{
    Binding, BindingContext, DEFAULT_MAX_TOKEN_LEN, DEFAULT_TTL, INVALID_STATE_MESSAGE, KeyError,
    ManualClock, Signer, StateError, StateId, default_binding,
};
use serde_json::{Value, json};

const SECRET: [u8; 32] = [0x42; 32];
const OTHER_SECRET: [u8; 32] = [0x17; 32];
const NOW: u64 = 1_800_000_000;

fn signer() -> Signer {
    Signer::new(1, &SECRET).expect("a 32-byte secret is accepted")
}

/// The same key, minting sealed tokens.
fn sealer() -> Signer {
    signer().sealed()
}

/// A signed and a sealed signer over the same key.
fn both() -> [Signer; 2] {
    [signer(), sealer()]
}

fn payload() -> Vec<u8> {
    (0..=255u8).collect()
}

fn cx<'a>(arguments: Option<&'a Value>) -> BindingContext<'a> {
    BindingContext::new("tools/call", "deploy")
        .with_subject(Some("alice"))
        .with_arguments(arguments)
}

fn args() -> Value {
    json!({ "env": "prod", "replicas": 3, "tags": ["a", "b"] })
}

#[test]
fn round_trip_returns_the_payload() {
    let args = args();
    for signer in both() {
        for payload in [
            Vec::new(),
            b"{\"step\":1}".to_vec(),
            payload(),
            vec![0; 5000],
        ] {
            let token = signer.sign(&cx(Some(&args)), &payload);
            assert_eq!(signer.verify(&cx(Some(&args)), &token), Ok(payload));
        }
    }
}

#[test]
fn tokens_are_url_safe_base64_without_padding() {
    for signer in both() {
        let token = signer.sign(&cx(None), &payload());
        assert!(
            token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
            "{token}"
        );
        // The envelope stays within 100 bytes plus a third of the payload once encoded.
        assert!(
            token.len() <= 256 * 4 / 3 + 100,
            "{} characters",
            token.len()
        );
    }
    // The documented sizes of a 256-byte payload's token.
    assert_eq!(signer().sign(&cx(None), &payload()).len(), 434);
    assert_eq!(sealer().sign(&cx(None), &payload()).len(), 399);
}

#[test]
fn tokens_are_readable_but_not_secret() {
    // Signed, not encrypted: the payload appears in the clear in the decoded token.
    let token = signer().sign(&cx(None), b"visible continuation");
    let raw = URL_SAFE_NO_PAD.decode(token).expect("tokens are base64");
    assert!(
        raw.windows(20).any(|w| w == b"visible continuation"),
        "payload not found in the decoded token"
    );
}

#[test]
fn every_single_bit_flip_of_the_token_text_is_refused() {
    let signer = signer();
    let token = signer.sign(&cx(None), &payload());
    let mut tried = 0;
    for index in 0..token.len() {
        for bit in 0..8 {
            let mut bytes = token.clone().into_bytes();
            bytes[index] ^= 1 << bit;
            // Flips that leave UTF-8 cannot reach `verify`, which takes a `&str`.
            let Ok(flipped) = String::from_utf8(bytes) else {
                continue;
            };
            tried += 1;
            assert!(
                signer.verify(&cx(None), &flipped).is_err(),
                "flipping bit {bit} of character {index} was accepted"
            );
        }
    }
    // Every flip of the low seven bits of an ASCII character stays UTF-8.
    assert_eq!(tried, token.len() * 7);
}

#[test]
fn every_single_bit_flip_of_the_decoded_token_is_refused() {
    let signer = signer();
    let raw = URL_SAFE_NO_PAD
        .decode(signer.sign(&cx(None), &payload()))
        .expect("tokens are base64");
    // Format, key id, expiry, state id, a two-byte payload length, 256 bytes of payload, the
    // 8-byte binding check and the 32-byte tag.
    assert_eq!(raw.len(), 1 + 2 + 8 + 16 + 2 + 256 + 8 + 32);
    assert_eq!(raw[0], 2, "signed tokens are format 2");
    let tag_start = raw.len() - 32;
    for index in 0..raw.len() {
        for bit in 0..8 {
            let expected = match index {
                // Format 2 with its low bit flipped is format 3: the token is read as sealed,
                // and does not open.
                0 if bit == 0 => StateError::BadSeal,
                0 => StateError::Malformed,
                1..=2 => StateError::UnknownKey,
                // Expiry and state id.
                3..=26 => StateError::BadSignature,
                27..=28 => StateError::Malformed,
                // The binding check still vouches for the body, so an altered tag reads like a
                // state minted for another binding.
                _ if index >= tag_start => StateError::BindingMismatch,
                _ => StateError::BadSignature,
            };
            let mut flipped = raw.clone();
            flipped[index] ^= 1 << bit;
            let token = URL_SAFE_NO_PAD.encode(&flipped);
            assert_eq!(
                signer.verify(&cx(None), &token),
                Err(expected),
                "flipping bit {bit} of byte {index}"
            );
        }
    }
}

#[test]
fn truncations_and_extensions_are_refused() {
    for signer in both() {
        let token = signer.sign(&cx(None), &payload());
        for len in 0..token.len() {
            assert!(
                signer.verify(&cx(None), &token[..len]).is_err(),
                "a {len}-character prefix was accepted"
            );
        }
        for suffix in ["A", "AA", "AAA", "AAAA", "=", "==", " ", "\n"] {
            let extended = format!("{token}{suffix}");
            assert!(signer.verify(&cx(None), &extended).is_err(), "{suffix:?}");
        }
        // Truncating or extending the decoded bytes, then encoding them properly, is refused
        // too.
        let raw = URL_SAFE_NO_PAD.decode(&token).expect("tokens are base64");
        for len in 0..raw.len() {
            let shorter = URL_SAFE_NO_PAD.encode(&raw[..len]);
            assert!(signer.verify(&cx(None), &shorter).is_err(), "{len} bytes");
        }
        for extra in [&[0u8][..], &[0; 16], &raw[raw.len() - 16..]] {
            let longer = URL_SAFE_NO_PAD.encode([&raw[..], extra].concat());
            assert!(signer.verify(&cx(None), &longer).is_err(), "{extra:?}");
        }
    }
}

#[test]
fn garbage_is_malformed() {
    let signer = signer();
    let token = signer.sign(&cx(None), b"x");
    for garbage in [
        "",
        "A",
        "not base64!",
        "////",
        "++++",
        "AAAA====",
        "é",
        &format!("{token}="),
        &format!(" {token}"),
    ] {
        assert_eq!(
            signer.verify(&cx(None), garbage),
            Err(StateError::Malformed),
            "{garbage:?}"
        );
    }
    // A well-formed envelope under a format byte no signer mints, the retired format 1
    // included.
    let mut raw = URL_SAFE_NO_PAD.decode(&token).expect("tokens are base64");
    for format in [0, 1, 4, 0x82, 0xff] {
        raw[0] = format;
        assert_eq!(
            signer.verify(&cx(None), &URL_SAFE_NO_PAD.encode(&raw)),
            Err(StateError::Malformed),
            "format {format}"
        );
    }
    // Too short to hold a sealed token's header and tag.
    for len in [0, 1, 27, 42] {
        let mut short = vec![0u8; len];
        if let Some(format) = short.first_mut() {
            *format = 3;
        }
        assert_eq!(
            sealer().verify(&cx(None), &URL_SAFE_NO_PAD.encode(&short)),
            Err(StateError::Malformed),
            "{len} bytes"
        );
    }
}

#[test]
fn tokens_of_the_retired_format_1_are_refused() {
    // A genuine format-1 token, minted as the previous release did: no state id.
    use hmac::{Hmac, KeyInit, Mac};
    let clock = Arc::new(ManualClock::from_unix_secs(NOW));
    let binding = default_binding(&cx(None));
    let mut body = vec![1, 0, 1];
    body.extend_from_slice(&(NOW + 600).to_be_bytes());
    body.extend_from_slice(&[5, b'h', b'e', b'l', b'l', b'o']);
    let mac = Hmac::<sha2::Sha256>::new_from_slice(&SECRET).expect("any key length");
    let check = mac.clone().chain_update(&body).chain_update([0]).finalize();
    let check = &check.into_bytes()[..8];
    let tag = mac
        .chain_update(&body)
        .chain_update([1])
        .chain_update(check)
        .chain_update(binding.as_bytes())
        .finalize()
        .into_bytes();
    let token = URL_SAFE_NO_PAD.encode([&body[..], check, &tag].concat());
    for signer in both() {
        let signer = signer.with_clock(clock.clone());
        assert_eq!(signer.verify(&cx(None), &token), Err(StateError::Malformed));
    }
}

#[test]
fn another_key_is_refused() {
    let impostor = Signer::new(1, &OTHER_SECRET).expect("a 32-byte secret is accepted");
    let stranger = Signer::new(2, &SECRET).expect("a 32-byte secret is accepted");
    for (signer, forged) in [
        (signer(), StateError::BadSignature),
        (sealer(), StateError::BadSeal),
    ] {
        let token = signer.sign(&cx(None), b"state");
        // Same key id, another secret: a forgery.
        assert_eq!(impostor.verify(&cx(None), &token), Err(forged));
        assert_eq!(
            impostor.clone().sealed().verify(&cx(None), &token),
            Err(forged)
        );
        // Another key id altogether, even with the same secret.
        assert_eq!(
            stranger.verify(&cx(None), &token),
            Err(StateError::UnknownKey)
        );
    }
}

#[test]
fn random_signers_refuse_each_others_states() {
    let first = Signer::random().expect("the system has a random source");
    let second = Signer::random().expect("the system has a random source");
    let token = first.sign(&cx(None), b"state");
    assert_eq!(first.verify(&cx(None), &token), Ok(b"state".to_vec()));
    assert_eq!(
        second.verify(&cx(None), &token),
        Err(StateError::BadSignature)
    );
    let sealed = first.clone().sealed().sign(&cx(None), b"state");
    assert_eq!(first.verify(&cx(None), &sealed), Ok(b"state".to_vec()));
    assert_eq!(second.verify(&cx(None), &sealed), Err(StateError::BadSeal));
}

#[test]
fn short_secrets_are_refused_when_the_signer_is_built() {
    assert_eq!(
        Signer::new(1, &[0; 31]).map(drop),
        Err(KeyError::SecretTooShort { len: 31 })
    );
    assert_eq!(
        Signer::new(1, b"").map(drop),
        Err(KeyError::SecretTooShort { len: 0 })
    );
    assert!(Signer::new(1, &[0; 32]).is_ok());
    assert!(Signer::new(1, &[0; 100]).is_ok());
    let mut signer = signer();
    assert_eq!(
        signer.add_verifying_key(2, &[0; 16]),
        Err(KeyError::SecretTooShort { len: 16 })
    );
    assert_eq!(
        signer.rotate(2, &[0; 16]),
        Err(KeyError::SecretTooShort { len: 16 })
    );
}

#[test]
fn each_binding_component_is_bound_on_its_own() {
    let signer = signer();
    let args = args();
    let base = cx(Some(&args));
    let token = signer.sign(&base, b"state");
    assert_eq!(signer.verify(&base, &token), Ok(b"state".to_vec()));

    let other_args = json!({ "env": "staging", "replicas": 3, "tags": ["a", "b"] });
    let reordered_tags = json!({ "env": "prod", "replicas": 3, "tags": ["b", "a"] });
    let changed = [
        ("audience", base.with_audience("billing")),
        ("subject", base.with_subject(Some("mallory"))),
        ("no subject", base.with_subject(None)),
        (
            "method",
            BindingContext {
                method: "prompts/get",
                ..base
            },
        ),
        (
            "target",
            BindingContext {
                target: "rollback",
                ..base
            },
        ),
        ("arguments", base.with_arguments(Some(&other_args))),
        ("array order", base.with_arguments(Some(&reordered_tags))),
        ("no arguments", base.with_arguments(None)),
    ];
    let sealed = sealer().sign(&base, b"state");
    assert_eq!(signer.verify(&base, &sealed), Ok(b"state".to_vec()));
    for (what, changed) in changed {
        assert_eq!(
            signer.verify(&changed, &token),
            Err(StateError::BindingMismatch),
            "{what}"
        );
        // A sealed token cannot tell another binding from tampering.
        assert_eq!(
            signer.verify(&changed, &sealed),
            Err(StateError::BadSeal),
            "{what}, sealed"
        );
    }
}

#[test]
fn argument_key_order_never_matters() {
    let signer = signer();
    let ab: Value = serde_json::from_str(r#"{"a":1,"b":2}"#).expect("valid JSON");
    let ba: Value = serde_json::from_str(r#"{"b":2,"a":1}"#).expect("valid JSON");
    assert_eq!(
        default_binding(&cx(Some(&ab))),
        default_binding(&cx(Some(&ba)))
    );
    let nested_ab: Value =
        serde_json::from_str(r#"{"x":{"a":1,"b":[{"c":1,"d":2}]}}"#).expect("valid JSON");
    let nested_ba: Value =
        serde_json::from_str(r#"{"x":{"b":[{"d":2,"c":1}],"a":1}}"#).expect("valid JSON");
    let token = signer.sign(&cx(Some(&nested_ab)), b"state");
    assert_eq!(
        signer.verify(&cx(Some(&nested_ba)), &token),
        Ok(b"state".to_vec())
    );
}

#[test]
fn absent_null_and_empty_arguments_bind_alike() {
    let signer = signer();
    let empty = json!({});
    let null = Value::Null;
    let token = signer.sign(&cx(None), b"state");
    assert_eq!(
        signer.verify(&cx(Some(&empty)), &token),
        Ok(b"state".to_vec())
    );
    assert_eq!(
        signer.verify(&cx(Some(&null)), &token),
        Ok(b"state".to_vec())
    );
    // A missing subject binds like an empty one.
    let anonymous = cx(None).with_subject(None);
    let token = signer.sign(&anonymous, b"state");
    assert_eq!(
        signer.verify(&anonymous.with_subject(Some("")), &token),
        Ok(b"state".to_vec())
    );
}

#[test]
fn expiry_follows_the_injected_clock() {
    let clock = Arc::new(ManualClock::from_unix_secs(NOW));
    let signer = signer().with_clock(clock.clone());
    assert_eq!(signer.ttl(), DEFAULT_TTL);
    assert_eq!(DEFAULT_TTL, Duration::from_secs(600));
    let token = signer.sign(&cx(None), b"state");

    clock.advance(Duration::from_secs(599));
    assert_eq!(signer.verify(&cx(None), &token), Ok(b"state".to_vec()));
    clock.advance(Duration::from_secs(1));
    assert_eq!(signer.verify(&cx(None), &token), Err(StateError::Expired));
    clock.advance(Duration::from_secs(3600));
    assert_eq!(signer.verify(&cx(None), &token), Err(StateError::Expired));

    // A token minted later lives its own ten minutes.
    let fresh = signer.sign(&cx(None), b"state");
    assert_eq!(signer.verify(&cx(None), &fresh), Ok(b"state".to_vec()));

    // Sealed tokens expire alike. This one is minted 4200 seconds after `NOW`.
    let sealer = sealer().with_clock(clock.clone());
    let sealed = sealer.sign(&cx(None), b"state");
    assert_eq!(
        sealer
            .open(&cx(None), &sealed)
            .map(|opened| opened.expires_at()),
        Ok(NOW + 4200 + 600)
    );
    clock.advance(Duration::from_secs(599));
    assert_eq!(sealer.verify(&cx(None), &sealed), Ok(b"state".to_vec()));
    clock.advance(Duration::from_secs(1));
    assert_eq!(sealer.verify(&cx(None), &sealed), Err(StateError::Expired));
}

#[test]
fn time_to_live_is_settable_per_signer() {
    let clock = Arc::new(ManualClock::from_unix_secs(NOW));
    let short = signer()
        .with_clock(clock.clone())
        .with_ttl(Duration::from_secs(30));
    let long = short.clone().with_ttl(Duration::from_secs(3600));
    let short_token = short.sign(&cx(None), b"state");
    let long_token = long.sign(&cx(None), b"state");

    clock.advance(Duration::from_secs(30));
    assert_eq!(
        short.verify(&cx(None), &short_token),
        Err(StateError::Expired)
    );
    // Expiry travels in the token: a signer with a longer time-to-live does not revive it.
    assert_eq!(
        long.verify(&cx(None), &short_token),
        Err(StateError::Expired)
    );
    assert_eq!(short.verify(&cx(None), &long_token), Ok(b"state".to_vec()));

    // Sub-second time-to-live rounds up to a whole second.
    assert_eq!(
        signer().with_ttl(Duration::from_millis(1500)).ttl(),
        Duration::from_secs(2)
    );
    assert_eq!(
        signer().with_ttl(Duration::ZERO).ttl(),
        Duration::from_secs(1)
    );
}

#[test]
fn expiry_is_checked_only_on_authentic_tokens() {
    let clock = Arc::new(ManualClock::from_unix_secs(NOW));
    let signer = signer().with_clock(clock.clone());
    let token = signer.sign(&cx(None), b"state");
    clock.advance(Duration::from_secs(3600));
    let other = signer.clone();
    let impostor = Signer::new(1, &OTHER_SECRET)
        .expect("a 32-byte secret is accepted")
        .with_clock(clock);
    assert_eq!(
        impostor.verify(&cx(None), &token),
        Err(StateError::BadSignature)
    );
    let args = args();
    assert_eq!(
        other.verify(&cx(Some(&args)), &token),
        Err(StateError::BindingMismatch)
    );
    // A sealed token that does not open is refused for that, not for its expiry.
    let sealed = other
        .clone()
        .sealed()
        .with_clock(Arc::new(ManualClock::from_unix_secs(NOW)))
        .sign(&cx(None), b"state");
    assert_eq!(
        impostor.verify(&cx(None), &sealed),
        Err(StateError::BadSeal)
    );
    assert_eq!(
        other.verify(&cx(Some(&args)), &sealed),
        Err(StateError::BadSeal)
    );
    assert_eq!(other.verify(&cx(None), &sealed), Err(StateError::Expired));
}

#[test]
fn rotation_keeps_states_in_flight_valid_until_the_old_key_is_removed() {
    let mut signer = signer();
    let before = signer.sign(&cx(None), b"old");

    signer
        .rotate(2, &OTHER_SECRET)
        .expect("a new key id and a long secret");
    assert_eq!(signer.key_ring().minting_key_id(), 2);
    assert_eq!(signer.key_ring().key_ids().collect::<Vec<_>>(), [2, 1]);
    let after = signer.sign(&cx(None), b"new");

    // The old key still verifies what it minted; the new key mints.
    assert_eq!(signer.verify(&cx(None), &before), Ok(b"old".to_vec()));
    assert_eq!(signer.verify(&cx(None), &after), Ok(b"new".to_vec()));
    // A signer that only knows the old key refuses the new token by its key id.
    assert_eq!(
        self::signer().verify(&cx(None), &after),
        Err(StateError::UnknownKey)
    );

    signer.remove_key(1).expect("key 1 is a verifying key");
    assert_eq!(
        signer.verify(&cx(None), &before),
        Err(StateError::UnknownKey)
    );
    assert_eq!(signer.verify(&cx(None), &after), Ok(b"new".to_vec()));
}

#[test]
fn a_verifying_key_verifies_but_never_mints() {
    // An instance that has received the next key but not yet rotated, behind a load
    // balancer next to one that has.
    let mut waiting = signer();
    waiting
        .add_verifying_key(2, &OTHER_SECRET)
        .expect("a new key id and a long secret");
    let mut rotated = signer();
    rotated
        .rotate(2, &OTHER_SECRET)
        .expect("a new key id and a long secret");

    let from_rotated = rotated.sign(&cx(None), b"new");
    assert_eq!(
        waiting.verify(&cx(None), &from_rotated),
        Ok(b"new".to_vec())
    );
    let from_waiting = waiting.sign(&cx(None), b"old");
    assert_eq!(
        rotated.verify(&cx(None), &from_waiting),
        Ok(b"old".to_vec())
    );
    assert_eq!(waiting.key_ring().minting_key_id(), 1);
}

#[test]
fn key_ring_changes_are_checked() {
    let mut signer = signer();
    assert_eq!(
        signer.add_verifying_key(1, &OTHER_SECRET),
        Err(KeyError::DuplicateKeyId { key_id: 1 })
    );
    assert_eq!(
        signer.rotate(1, &OTHER_SECRET),
        Err(KeyError::DuplicateKeyId { key_id: 1 })
    );
    assert_eq!(
        signer.remove_key(1),
        Err(KeyError::RemovingMintingKey { key_id: 1 })
    );
    assert_eq!(
        signer.remove_key(9),
        Err(KeyError::UnknownKeyId { key_id: 9 })
    );
    // Changes touch only the clone they are made on.
    let before = signer.clone();
    signer
        .add_verifying_key(2, &OTHER_SECRET)
        .expect("a new key id and a long secret");
    assert!(signer.key_ring().contains(2));
    assert!(!before.key_ring().contains(2));
    // Debug output names key ids, never secrets.
    let debug = format!("{signer:?}");
    assert!(debug.contains("minting_key_id: 1"), "{debug}");
    assert!(debug.contains("verifying_key_ids: [2]"), "{debug}");
}

#[test]
fn promoting_a_verifying_key_makes_it_mint() {
    let mut ring = mcp_runtime::state::KeyRing::new(1, &SECRET).expect("a long secret");
    ring.add_verifying_key(2, &OTHER_SECRET)
        .expect("a new key id and a long secret");
    ring.promote(2).expect("key 2 is in the ring");
    assert_eq!(ring.minting_key_id(), 2);
    assert_eq!(ring.key_ids().collect::<Vec<_>>(), [2, 1]);
    assert_eq!(ring.promote(7), Err(KeyError::UnknownKeyId { key_id: 7 }));
    let signer = Signer::from_key_ring(ring);
    let token = signer.sign(&cx(None), b"state");
    let only_key_2 = Signer::new(2, &OTHER_SECRET).expect("a long secret");
    assert_eq!(only_key_2.verify(&cx(None), &token), Ok(b"state".to_vec()));
}

#[test]
fn inbound_size_is_capped_before_decoding() {
    let signer = signer();
    assert_eq!(signer.max_token_len(), DEFAULT_MAX_TOKEN_LEN);
    assert_eq!(DEFAULT_MAX_TOKEN_LEN, 16 * 1024);
    // Garbage over the cap is refused for its size, not its content.
    let huge = "!".repeat(DEFAULT_MAX_TOKEN_LEN + 1);
    assert_eq!(signer.verify(&cx(None), &huge), Err(StateError::TooLarge));
    let at_cap = "!".repeat(DEFAULT_MAX_TOKEN_LEN);
    assert_eq!(
        signer.verify(&cx(None), &at_cap),
        Err(StateError::Malformed)
    );

    let token = signer.sign(&cx(None), &payload());
    let exact = signer.clone().with_max_token_len(token.len());
    assert_eq!(exact.verify(&cx(None), &token), Ok(payload()));
    let tight = signer.with_max_token_len(token.len() - 1);
    assert_eq!(tight.verify(&cx(None), &token), Err(StateError::TooLarge));
}

#[test]
fn a_custom_policy_can_extend_the_default() {
    let tenant_signer =
        signer().with_policy(|cx: &BindingContext<'_>| default_binding(cx).extended(b"tenant-42"));
    let other_tenant =
        signer().with_policy(|cx: &BindingContext<'_>| default_binding(cx).extended(b"tenant-7"));
    let token = tenant_signer.sign(&cx(None), b"state");
    assert_eq!(
        tenant_signer.verify(&cx(None), &token),
        Ok(b"state".to_vec())
    );
    assert_eq!(
        other_tenant.verify(&cx(None), &token),
        Err(StateError::BindingMismatch)
    );
    assert_eq!(
        signer().verify(&cx(None), &token),
        Err(StateError::BindingMismatch)
    );
    // The same policy, shared as a `BindingPolicy`, binds alike.
    let shared: mcp_runtime::state::BindingPolicy =
        Arc::new(|cx: &BindingContext<'_>| default_binding(cx).extended(b"tenant-42"));
    let shared_signer = signer().with_shared_policy(shared);
    assert_eq!(
        shared_signer.verify(&cx(None), &token),
        Ok(b"state".to_vec())
    );
    // The extended policy still binds every default component.
    assert_eq!(
        tenant_signer.verify(&cx(None).with_subject(Some("bob")), &token),
        Err(StateError::BindingMismatch)
    );
}

#[test]
fn a_fixed_binding_ignores_the_request() {
    let fixed = Binding::from_parts(&[b"deployment", b"blue"]);
    let signer = signer().with_fixed_binding(fixed);
    let args = args();
    let token = signer.sign(&cx(None), b"state");
    let elsewhere = BindingContext::new("prompts/get", "other").with_arguments(Some(&args));
    assert_eq!(signer.binding(&elsewhere), fixed);
    assert_eq!(signer.verify(&elsewhere, &token), Ok(b"state".to_vec()));
    assert_eq!(
        signer.verify_with_binding(&fixed, &token),
        Ok(b"state".to_vec())
    );
}

#[test]
fn an_explicit_binding_overrides_the_policy() {
    let signer = signer();
    let explicit = Binding::from_bytes([9; 32]);
    let token = signer.sign_with_binding(&explicit, b"state");
    assert_eq!(
        signer.verify_with_binding(&explicit, &token),
        Ok(b"state".to_vec())
    );
    assert_eq!(
        signer.verify(&cx(None), &token),
        Err(StateError::BindingMismatch)
    );
    // `sign` is `sign_with_binding` under the signer's own binding.
    let args = args();
    let policy_token = signer.sign(&cx(Some(&args)), b"state");
    assert_eq!(
        signer.verify_with_binding(&default_binding(&cx(Some(&args))), &policy_token),
        Ok(b"state".to_vec())
    );
}

#[test]
fn clients_see_one_fixed_message_whatever_the_reason() {
    assert_eq!(INVALID_STATE_MESSAGE, "Invalid or expired \"requestState\"");
    let reasons = [
        StateError::Malformed,
        StateError::TooLarge,
        StateError::UnknownKey,
        StateError::BadSignature,
        StateError::Expired,
        StateError::BindingMismatch,
        StateError::BadSeal,
    ];
    let mut logged = std::collections::HashSet::new();
    for reason in reasons {
        assert_eq!(reason.client_message(), INVALID_STATE_MESSAGE);
        let log = reason.to_string();
        assert!(log.contains("`requestState`"), "{log}");
        assert!(!log.starts_with(char::is_uppercase), "{log}");
        assert!(!log.ends_with('.'), "{log}");
        assert!(logged.insert(log), "two reasons share a log message");
    }
}

#[test]
fn signers_are_shared_across_tasks() {
    fn assert_shareable<T: Send + Sync + Clone + 'static>() {}
    assert_shareable::<Signer>();
    let signer = signer();
    let token = signer.sign(&cx(None), b"state");
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let signer = signer.clone();
            let token = token.clone();
            std::thread::spawn(move || signer.verify(&cx(None), &token))
        })
        .collect();
    for handle in handles {
        assert_eq!(handle.join().expect("no panic"), Ok(b"state".to_vec()));
    }
}

// ---------------------------------------------------------------------------------------------
// State ids, sealed tokens, audiences and the fixed test vectors.

/// The context of the test vectors.
fn vector_cx(arguments: &Value) -> BindingContext<'_> {
    BindingContext::new("tools/call", "deploy")
        .with_audience("ops-server")
        .with_subject(Some("alice"))
        .with_arguments(Some(arguments))
}

/// The state id of the test vectors: bytes 0 to 15.
const VECTOR_ID: StateId = StateId::from_bytes([
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
]);
const VECTOR_PAYLOAD: &[u8] = br#"{"step":1}"#;

fn vector_signer() -> Signer {
    signer().with_clock(Arc::new(ManualClock::from_unix_secs(NOW)))
}

/// The 27-byte header of the test vectors in `format`.
fn vector_header(format: u8) -> Vec<u8> {
    let mut header = vec![format, 0, 1];
    header.extend_from_slice(&(NOW + 600).to_be_bytes());
    header.extend_from_slice(VECTOR_ID.as_bytes());
    header
}

#[test]
fn default_binding_test_vector() {
    // Any change to the encoding of the default binding changes this digest: states in flight
    // would all be refused, so such a change must bump the domain and be released as such.
    let args = json!({ "env": "prod", "replicas": 3 });
    assert_eq!(
        format!("{:?}", default_binding(&vector_cx(&args))),
        "Binding(ce43e8b77825551a2551d9c7ca94857b4398846893cb27ed53c87bf9da59bd58)"
    );
    // The audience is part of it.
    assert_ne!(
        default_binding(&vector_cx(&args)),
        default_binding(&vector_cx(&args).with_audience(""))
    );
}

#[test]
fn signed_token_test_vector() {
    let args = json!({ "env": "prod", "replicas": 3 });
    let binding = default_binding(&vector_cx(&args));
    let token = vector_signer().sign_with_id(&binding, VECTOR_ID, VECTOR_PAYLOAD);
    assert_eq!(
        token,
        "AgABAAAAAGtJ1FgAAQIDBAUGBwgJCgsMDQ4PCnsic3RlcCI6MX1ssroNdk9h6pV3b42rcEM9Mu0snOKNnFikhvz6h_\
         hkq0X__yILFLC6"
    );

    // The same bytes, rebuilt from the documented layout.
    use hmac::{Hmac, KeyInit, Mac};
    let mut body = vector_header(2);
    body.push(VECTOR_PAYLOAD.len() as u8);
    body.extend_from_slice(VECTOR_PAYLOAD);
    let mac = Hmac::<sha2::Sha256>::new_from_slice(&SECRET).expect("any key length");
    let check = mac.clone().chain_update(&body).chain_update([0]).finalize();
    let check = &check.into_bytes()[..8];
    let tag = mac
        .chain_update(&body)
        .chain_update([1])
        .chain_update(check)
        .chain_update(binding.as_bytes())
        .finalize()
        .into_bytes();
    assert_eq!(
        token,
        URL_SAFE_NO_PAD.encode([&body[..], check, &tag].concat())
    );

    let opened = vector_signer()
        .open(&vector_cx(&args), &token)
        .expect("the vector opens");
    assert_eq!(opened.payload(), VECTOR_PAYLOAD);
    assert_eq!(opened.id(), VECTOR_ID);
    assert_eq!(opened.expires_at(), NOW + 600);
    assert_eq!(opened.key_id(), 1);
    assert!(!opened.is_sealed());
}

#[test]
fn sealed_token_test_vector() {
    let args = json!({ "env": "prod", "replicas": 3 });
    let binding = default_binding(&vector_cx(&args));
    let sealer = vector_signer().sealed();
    let token = sealer.sign_with_id(&binding, VECTOR_ID, VECTOR_PAYLOAD);
    assert_eq!(
        token,
        "AwABAAAAAGtJ1FgAAQIDBAUGBwgJCgsMDQ4PBzcfCILKnOTrRMap89VIusGKSTKyoXVgMoM"
    );

    // The same bytes, rebuilt from the documented layout: AES-256-GCM-SIV under a key derived
    // with HKDF-SHA256, the nonce the state id's first 12 bytes, header and binding the
    // associated data.
    use aes_gcm_siv::aead::{AeadInPlace, KeyInit};
    let mut key = [0u8; 32];
    hkdf::Hkdf::<sha2::Sha256>::new(Some(b"mcp-runtime/state/seal"), &SECRET)
        .expand(
            b"mcp-runtime/state/seal/aes-256-gcm-siv/v1\x00\x01",
            &mut key,
        )
        .expect("32 bytes");
    let header = vector_header(3);
    let mut sealed = VECTOR_PAYLOAD.to_vec();
    let tag = aes_gcm_siv::Aes256GcmSiv::new(&key.into())
        .encrypt_in_place_detached(
            aes_gcm_siv::Nonce::from_slice(&VECTOR_ID.as_bytes()[..12]),
            &[&header[..], binding.as_bytes()].concat(),
            &mut sealed,
        )
        .expect("a short payload seals");
    sealed.extend_from_slice(&tag);
    assert_eq!(
        token,
        URL_SAFE_NO_PAD.encode([&header[..], &sealed].concat())
    );

    let opened = sealer
        .open(&vector_cx(&args), &token)
        .expect("the vector opens");
    assert_eq!(opened.payload(), VECTOR_PAYLOAD);
    assert_eq!(opened.id(), VECTOR_ID);
    assert_eq!(opened.expires_at(), NOW + 600);
    assert!(opened.is_sealed());
    // A signing signer opens it too.
    assert_eq!(
        vector_signer().verify(&vector_cx(&args), &token),
        Ok(VECTOR_PAYLOAD.to_vec())
    );
}

#[test]
fn every_token_carries_a_fresh_state_id() {
    for signer in both() {
        let binding = default_binding(&cx(None));
        let mut ids = std::collections::HashSet::new();
        for _ in 0..1000 {
            let token = signer.sign_with_binding(&binding, b"same payload");
            let opened = signer
                .open_with_binding(&binding, &token)
                .expect("a fresh token opens");
            assert_eq!(opened.payload(), b"same payload");
            assert!(ids.insert(opened.id()), "an id came twice");
        }
        // The id is inside the token, so every copy of a token opens to the same id.
        let token = signer.sign(&cx(None), b"state");
        let first = signer.open(&cx(None), &token).expect("opens");
        let again = signer.open(&cx(None), &token).expect("opens");
        assert_eq!(first.id(), again.id());
        assert_eq!(first, again);
        // A given id mints the same token, and another id another one.
        let clocked = signer.with_clock(Arc::new(ManualClock::from_unix_secs(NOW)));
        let one = clocked.sign_with_id(&binding, VECTOR_ID, b"state");
        assert_eq!(one, clocked.sign_with_id(&binding, VECTOR_ID, b"state"));
        let other_id = StateId::from_bytes([0xee; 16]);
        assert_ne!(one, clocked.sign_with_id(&binding, other_id, b"state"));
        assert_eq!(
            clocked.open_with_binding(&binding, &one).map(|o| o.id()),
            Ok(VECTOR_ID)
        );
    }
}

#[test]
fn opened_debug_never_shows_the_payload() {
    let token = sealer().sign(&cx(None), b"hunter2-secret");
    let opened = sealer().open(&cx(None), &token).expect("opens");
    let debug = format!("{opened:?}");
    assert!(!debug.contains("hunter2"), "{debug}");
    assert!(debug.contains("payload_len: 14"), "{debug}");
    assert!(debug.contains(&format!("{:?}", opened.id())), "{debug}");
    assert_eq!(opened.clone().into_payload(), b"hunter2-secret");
    let id = format!("{:?}", opened.id());
    assert!(
        id.starts_with("StateId(") && id.len() == "StateId()".len() + 32,
        "{id}"
    );
}

#[test]
fn sealed_tokens_do_not_show_their_payload() {
    let sealer = sealer();
    assert!(sealer.is_sealed());
    assert!(!signer().is_sealed());
    let known = b"visible continuation";
    for _ in 0..32 {
        let token = sealer.sign(&cx(None), known);
        let raw = URL_SAFE_NO_PAD.decode(&token).expect("tokens are base64");
        assert_eq!(raw[0], 3, "sealed tokens are format 3");
        // Neither the payload nor any 4-byte run of it appears in the token.
        for window in known.windows(4) {
            assert!(
                !raw.windows(4).any(|w| w == window),
                "{:?} readable in {token}",
                String::from_utf8_lossy(window)
            );
        }
        assert_eq!(sealer.verify(&cx(None), &token), Ok(known.to_vec()));
    }
    // The same payload, sealed twice, gives two unrelated ciphertexts.
    let a = URL_SAFE_NO_PAD
        .decode(sealer.sign(&cx(None), known))
        .expect("base64");
    let b = URL_SAFE_NO_PAD
        .decode(sealer.sign(&cx(None), known))
        .expect("base64");
    assert_ne!(a[27..], b[27..]);
}

#[test]
fn every_single_bit_flip_of_a_sealed_token_is_refused() {
    let sealer = sealer();
    let raw = URL_SAFE_NO_PAD
        .decode(sealer.sign(&cx(None), &payload()))
        .expect("tokens are base64");
    // Format, key id, expiry, state id, 256 bytes of sealed payload and the 16-byte tag.
    assert_eq!(raw.len(), 1 + 2 + 8 + 16 + 256 + 16);
    for index in 0..raw.len() {
        for bit in 0..8 {
            let mut flipped = raw.clone();
            flipped[index] ^= 1 << bit;
            let token = URL_SAFE_NO_PAD.encode(&flipped);
            let verdict = sealer.verify(&cx(None), &token);
            match index {
                // Format 3 with its low bit flipped reads as a signed token, whose length
                // and tag then depend on the sealed bytes: refused, whatever the reason.
                0 if bit == 0 => assert!(
                    matches!(
                        verdict,
                        Err(StateError::Malformed
                            | StateError::BadSignature
                            | StateError::BindingMismatch)
                    ),
                    "{verdict:?}"
                ),
                0 => assert_eq!(verdict, Err(StateError::Malformed), "bit {bit}"),
                1..=2 => assert_eq!(verdict, Err(StateError::UnknownKey), "byte {index}"),
                _ => assert_eq!(
                    verdict,
                    Err(StateError::BadSeal),
                    "flipping bit {bit} of byte {index}"
                ),
            }
        }
    }
}

#[test]
fn sealed_tokens_are_refused_on_another_binding_or_audience() {
    let sealer = sealer();
    let args = args();
    let base = cx(Some(&args)).with_audience("ops-server");
    let token = sealer.sign(&base, b"state");
    assert_eq!(sealer.verify(&base, &token), Ok(b"state".to_vec()));
    for (what, other) in [
        ("audience", base.with_audience("billing-server")),
        ("no audience", base.with_audience("")),
        ("subject", base.with_subject(Some("mallory"))),
        ("arguments", base.with_arguments(None)),
    ] {
        assert_eq!(
            sealer.verify(&other, &token),
            Err(StateError::BadSeal),
            "{what}"
        );
    }
    let explicit = Binding::from_bytes([9; 32]);
    let token = sealer.sign_with_binding(&explicit, b"state");
    assert_eq!(
        sealer.verify_with_binding(&Binding::from_bytes([8; 32]), &token),
        Err(StateError::BadSeal)
    );
}

#[test]
fn two_services_sharing_a_key_refuse_each_others_states() {
    // Same key, same tool, same caller and arguments; only the server's identity differs.
    let args = args();
    for [ours, theirs] in [[signer(), signer()], [sealer(), sealer()]] {
        let ours_cx = cx(Some(&args)).with_audience("ops-server");
        let theirs_cx = cx(Some(&args)).with_audience("billing-server");
        let token = ours.sign(&ours_cx, b"state");
        assert_eq!(ours.verify(&ours_cx, &token), Ok(b"state".to_vec()));
        assert!(theirs.verify(&theirs_cx, &token).is_err());
        let token = theirs.sign(&theirs_cx, b"state");
        assert!(ours.verify(&ours_cx, &token).is_err());
    }
}

#[test]
fn meta_and_headers_do_not_change_the_default_binding() {
    // `_meta` changes between tries (a new progress token), and so may headers.
    let signer = signer();
    let first_meta = json!({ "progressToken": 1 });
    let second_meta = json!({ "progressToken": 2, "traceparent": "00-ab" });
    let mut headers = axum::http::HeaderMap::new();
    headers.insert("x-request-id", "r-1".parse().expect("a header value"));
    let first = cx(None)
        .with_meta(first_meta.as_object())
        .with_headers(Some(&headers));
    let second = cx(None).with_meta(second_meta.as_object());
    let token = signer.sign(&first, b"state");
    assert_eq!(signer.verify(&second, &token), Ok(b"state".to_vec()));
    assert_eq!(signer.binding(&first), signer.binding(&cx(None)));

    // A policy may bind what it knows to be stable, such as a header its gateway sets.
    let tenant = |cx: &BindingContext<'_>| {
        let tenant = cx
            .headers
            .and_then(|headers| headers.get("x-tenant"))
            .map_or(&b""[..], |value| value.as_bytes());
        default_binding(cx).extended(tenant)
    };
    let signer = signer.with_policy(tenant);
    let mut acme = axum::http::HeaderMap::new();
    acme.insert("x-tenant", "acme".parse().expect("a header value"));
    let mut globex = axum::http::HeaderMap::new();
    globex.insert("x-tenant", "globex".parse().expect("a header value"));
    let token = signer.sign(&cx(None).with_headers(Some(&acme)), b"state");
    assert_eq!(
        signer.verify(&cx(None).with_headers(Some(&acme)), &token),
        Ok(b"state".to_vec())
    );
    assert_eq!(
        signer.verify(&cx(None).with_headers(Some(&globex)), &token),
        Err(StateError::BindingMismatch)
    );
}

#[test]
fn a_sealing_fleet_and_a_signing_fleet_accept_each_others_states() {
    // An instance switched to sealed states next to one not yet switched, behind one load
    // balancer: states in flight of either format open on both.
    let args = args();
    let cx = cx(Some(&args));
    let signing = signer();
    let sealing = sealer();
    let signed = signing.sign(&cx, b"signed");
    let sealed = sealing.sign(&cx, b"sealed");
    for verifier in [&signing, &sealing] {
        assert_eq!(verifier.verify(&cx, &signed), Ok(b"signed".to_vec()));
        assert_eq!(verifier.verify(&cx, &sealed), Ok(b"sealed".to_vec()));
    }
    // Sealing keeps the key ring: rotation works for sealed tokens as for signed ones.
    let mut rotated = sealer();
    rotated
        .rotate(2, &OTHER_SECRET)
        .expect("a new key id and a long secret");
    let after = rotated.sign(&cx, b"new");
    assert_eq!(rotated.verify(&cx, &sealed), Ok(b"sealed".to_vec()));
    assert_eq!(rotated.verify(&cx, &after), Ok(b"new".to_vec()));
    assert_eq!(sealing.verify(&cx, &after), Err(StateError::UnknownKey));
    rotated.remove_key(1).expect("key 1 verifies only");
    assert_eq!(rotated.verify(&cx, &sealed), Err(StateError::UnknownKey));
}

#[test]
fn sealed_tokens_are_capped_before_decoding() {
    let sealer = sealer();
    let token = sealer.sign(&cx(None), &payload());
    let exact = sealer.clone().with_max_token_len(token.len());
    assert_eq!(exact.verify(&cx(None), &token), Ok(payload()));
    let tight = sealer.with_max_token_len(token.len() - 1);
    assert_eq!(tight.verify(&cx(None), &token), Err(StateError::TooLarge));
}
