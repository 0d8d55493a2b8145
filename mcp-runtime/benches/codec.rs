//! Cost of the request-state codec against the bare cryptographic work it cannot avoid.
//!
//! Run with `cargo bench -p mcp-runtime --bench codec`. Every figure comes from the same run:
//! the codec signs and verifies a 256-byte payload; the bare baseline computes HMAC-SHA256 over
//! the same 256 bytes and base64-encodes payload and tag, then decodes them and verifies the
//! tag. The codec's budget is twice the bare work.

use std::hint::black_box;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use mcp_runtime::state::{BindingContext, Signer, default_binding};
use serde_json::json;
use sha2::Sha256;

const PAYLOAD_LEN: usize = 256;
const SECRET: [u8; 32] = [0x5a; 32];
const BUDGET: f64 = 2.0;

fn bare_sign(mac: Hmac<Sha256>, payload: &[u8]) -> String {
    let tag = mac.chain_update(payload).finalize().into_bytes();
    let mut raw = Vec::with_capacity(payload.len() + tag.len());
    raw.extend_from_slice(payload);
    raw.extend_from_slice(&tag);
    URL_SAFE_NO_PAD.encode(&raw)
}

fn bare_verify(mac: Hmac<Sha256>, token: &str) -> Option<Vec<u8>> {
    let mut raw = URL_SAFE_NO_PAD.decode(token).ok()?;
    let split = raw.len().checked_sub(32)?;
    let (payload, tag) = raw.split_at(split);
    mac.chain_update(payload).verify_slice(tag).ok()?;
    raw.truncate(split);
    Some(raw)
}

fn fresh_mac() -> Hmac<Sha256> {
    Hmac::<Sha256>::new_from_slice(black_box(&SECRET)).expect("HMAC takes keys of any length")
}

fn report(name: &str, ns: f64, bare: f64) {
    println!("{name:<48} {ns:>9.0} ns/op   {:>5.2}x bare", ns / bare);
}

fn main() {
    let payload: Vec<u8> = (0..PAYLOAD_LEN).map(|i| (i * 7 + 3) as u8).collect();

    let mut signer = Signer::new(1, &SECRET).expect("a 32-byte secret is accepted");
    // A ring of three keys, minting with the newest, as during a rotation.
    signer
        .add_verifying_key(2, &[0x11; 32])
        .expect("fresh key id");
    signer.rotate(3, &[0x22; 32]).expect("fresh key id");

    let arguments = json!({ "environment": "production", "service": "checkout", "replicas": 3 });
    let cx = BindingContext::new("tools/call", "deploy")
        .with_subject(Some("user-8d1f3c"))
        .with_arguments(Some(&arguments));
    let binding = default_binding(&cx);

    let codec_token = signer.sign_with_binding(&binding, &payload);
    assert_eq!(
        signer.verify(&cx, &codec_token).as_deref(),
        Ok(&payload[..])
    );
    let bare_token = bare_sign(fresh_mac(), &payload);
    assert_eq!(
        bare_verify(fresh_mac(), &bare_token).as_deref(),
        Some(&payload[..])
    );
    let prepared = fresh_mac();

    let bare_sign_ns = easybench::bench(|| bare_sign(fresh_mac(), black_box(&payload))).ns_per_iter;
    let bare_verify_ns =
        easybench::bench(|| bare_verify(fresh_mac(), black_box(&bare_token))).ns_per_iter;
    let bare_ns = easybench::bench(|| {
        let token = bare_sign(fresh_mac(), black_box(&payload));
        bare_verify(fresh_mac(), &token)
    })
    .ns_per_iter;
    let bare_prepared_ns = easybench::bench(|| {
        let token = bare_sign(prepared.clone(), black_box(&payload));
        bare_verify(prepared.clone(), &token)
    })
    .ns_per_iter;

    let sign_ns =
        easybench::bench(|| signer.sign_with_binding(black_box(&binding), black_box(&payload)))
            .ns_per_iter;
    let verify_ns = easybench::bench(|| {
        signer.verify_with_binding(black_box(&binding), black_box(&codec_token))
    })
    .ns_per_iter;
    let codec_ns = easybench::bench(|| {
        let token = signer.sign_with_binding(black_box(&binding), black_box(&payload));
        signer.verify_with_binding(&binding, &token)
    })
    .ns_per_iter;
    let policy_ns = easybench::bench(|| {
        let cx = black_box(&cx);
        let token = signer.sign(cx, black_box(&payload));
        signer.verify(cx, &token)
    })
    .ns_per_iter;
    let binding_ns = easybench::bench(|| default_binding(black_box(&cx))).ns_per_iter;

    println!(
        "payload: {PAYLOAD_LEN} bytes; codec token: {} characters",
        codec_token.len()
    );
    println!();
    report(
        "bare: hmac + base64 encode (sign)",
        bare_sign_ns,
        bare_sign_ns,
    );
    report(
        "bare: base64 decode + hmac verify (verify)",
        bare_verify_ns,
        bare_verify_ns,
    );
    report("bare: sign + verify", bare_ns, bare_ns);
    report(
        "bare: sign + verify, key prepared once",
        bare_prepared_ns,
        bare_ns,
    );
    println!();
    report("codec: sign", sign_ns, bare_sign_ns);
    report("codec: verify", verify_ns, bare_verify_ns);
    report("codec: sign + verify", codec_ns, bare_ns);
    report(
        "codec: sign + verify, binding by default policy",
        policy_ns,
        bare_ns,
    );
    report("default_binding alone", binding_ns, bare_ns);
    println!();
    let ratio = codec_ns / bare_ns;
    let verdict = if ratio <= BUDGET { "within" } else { "OVER" };
    println!(
        "codec sign + verify / bare sign + verify = {ratio:.2}x ({verdict} the {BUDGET}x budget)"
    );
}
