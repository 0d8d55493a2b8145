//! The request-state codec, seen from outside: what it accepts, what it refuses, and why.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_runtime::state::{
    DEFAULT_MAX_TOKEN_LEN, DEFAULT_TTL, KeyError, ManualClock, Signer, StateError, default_binding,
};

#[path = "common/state.rs"]
mod state_common;

use state_common::{
    NOW, OTHER_SECRET, SECRET, args, both, cx, payload, sealer, signed_by_hand, signer,
};

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
    let clock = Arc::new(ManualClock::from_unix_secs(NOW));
    let binding = default_binding(&cx(None));
    let mut body = vec![1, 0, 1];
    body.extend_from_slice(&(NOW + 600).to_be_bytes());
    body.extend_from_slice(&[5, b'h', b'e', b'l', b'l', b'o']);
    let token = signed_by_hand(&body, &binding);
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
fn expiry_follows_the_injected_clock() {
    let clock = Arc::new(ManualClock::from_unix_secs(NOW));
    let signer = signer().with_clock(clock.clone());
    let token = signer.sign(&cx(None), b"state");
    // By default a state lives ten minutes, as `DEFAULT_TTL` says.
    let expires_at = signer
        .open(&cx(None), &token)
        .map(|opened| opened.expires_at());
    assert_eq!(expires_at, Ok(NOW + 600));
    assert_eq!(expires_at, Ok(NOW + DEFAULT_TTL.as_secs()));

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
    // Garbage over the default cap of 16 KiB (`DEFAULT_MAX_TOKEN_LEN`) is refused for its
    // size, not its content.
    let huge = "!".repeat(16 * 1024 + 1);
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
