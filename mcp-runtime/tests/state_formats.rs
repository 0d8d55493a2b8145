//! The token formats pinned down: fixed test vectors of the signed and sealed layouts and of
//! the default binding, state ids, and what a sealed token hides and refuses.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_runtime::state::{
    Binding, BindingContext, ManualClock, Signer, StateError, StateId, default_binding,
};
use serde_json::{Value, json};

#[path = "common/binding_vector.rs"]
mod binding_vector;
#[path = "common/state.rs"]
mod state_common;

use binding_vector::{VECTOR_ARGUMENTS, VECTOR_BINDING, vector_cx};

use state_common::{
    NOW, OTHER_SECRET, SECRET, args, both, cx, payload, sealer, signed_by_hand, signer,
};

// ---------------------------------------------------------------------------------------------
// State ids, sealed tokens, audiences and the fixed test vectors.

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
    let args: Value = serde_json::from_str(VECTOR_ARGUMENTS).expect("valid JSON");
    assert_eq!(
        format!("{:?}", default_binding(&vector_cx(&args))),
        VECTOR_BINDING
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
    let mut body = vector_header(2);
    body.push(VECTOR_PAYLOAD.len() as u8);
    body.extend_from_slice(VECTOR_PAYLOAD);
    assert_eq!(token, signed_by_hand(&body, &binding));

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

/// The vector's tool: one question, so a call mints a state.
#[mcp_runtime::tool(name = "deploy")]
async fn vector_tool(cx: mcp_runtime::Cx) -> mcp_runtime::ToolResult {
    let sure: Sure = cx.elicit("Sure?").await?;
    Ok(mcp_runtime::text(sure.ok.to_string()))
}

#[derive(mcp_runtime::ElicitForm)]
struct Sure {
    ok: bool,
}

#[tokio::test]
async fn dispatch_binds_the_vectors_request_to_the_vectors_digest() {
    // The vector's request as a client sends it: its arguments in the order written, its
    // subject as the transport's authentication saw it, to a server of the vector's audience.
    let server = mcp_runtime::server::Server::builder()
        .name("ops-server")
        .signer(signer())
        .tool(vector_tool)
        .build();
    let message = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"deploy","arguments":{VECTOR_ARGUMENTS},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}}}}}}}}}}"#
    );
    let facts = mcp_runtime::server::RequestFacts::http(
        Some("2026-07-28".to_owned()),
        Some("alice".to_owned()),
    );
    let outcome = server.handle(message.as_bytes(), facts).finish().await;
    let body: Value = serde_json::from_slice(&outcome.body.expect("an answer")).expect("JSON");
    let token = body["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("a state in {body}"));
    // Opened under the vector's digest, written out byte by byte: the binding dispatch
    // computed for this request is the vector's, whatever its code path.
    let hex = VECTOR_BINDING
        .trim_start_matches("Binding(")
        .trim_end_matches(')');
    let mut digest = [0_u8; 32];
    for (byte, pair) in digest.iter_mut().zip(hex.as_bytes().chunks(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap();
    }
    let binding = Binding::from_bytes(digest);
    signer()
        .open_with_binding(&binding, token)
        .expect("the state opens under the vector's digest");
    // And not under another request's.
    let other = Binding::from_bytes([0; 32]);
    assert!(signer().open_with_binding(&other, token).is_err());
}
