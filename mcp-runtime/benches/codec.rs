//! Cost of the request-state codec against the bare cryptographic work it cannot avoid.
//!
//! Run with `cargo bench -p mcp-runtime --bench codec`. Every figure comes from the same run:
//! the codec signs and verifies a 256-byte payload; the bare baseline computes HMAC-SHA256 over
//! the same 256 bytes and base64-encodes payload and tag, then decodes them and verifies the
//! tag, with the same base64 engine as the codec. The codec's budget is twice the bare work.
//!
//! Sealed states are measured in the same run: a sealing signer seals and opens the same
//! payload, and its budget is twice the signed codec's sign + verify. Each minted token draws
//! a fresh random state id, so the id's cost is in every codec figure.

use std::hint::black_box;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use mcp_runtime::state::{BindingContext, Signer, StateId, default_binding};
use serde_json::json;
use sha2::Sha256;

const PAYLOAD_LEN: usize = 256;
const SECRET: [u8; 32] = [0x5a; 32];
const BUDGET: f64 = 2.0;
/// Sealing and opening may cost at most this many times signing and verifying.
const SEALED_BUDGET: f64 = 2.0;

/// The base64 engine the codec uses on this target, so that the baseline does the same work.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn codec_engine() -> impl Engine {
    base64::engine::Simd::url_safe(base64::engine::general_purpose::NO_PAD)
}

/// The base64 engine the codec uses on this target, so that the baseline does the same work.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn codec_engine() -> impl Engine {
    URL_SAFE_NO_PAD
}

fn bare_sign(engine: &impl Engine, mac: Hmac<Sha256>, payload: &[u8]) -> String {
    let tag = mac.chain_update(payload).finalize().into_bytes();
    let mut raw = Vec::with_capacity(payload.len() + tag.len());
    raw.extend_from_slice(payload);
    raw.extend_from_slice(&tag);
    engine.encode(&raw)
}

fn bare_verify(engine: &impl Engine, mac: Hmac<Sha256>, token: &str) -> Option<Vec<u8>> {
    let mut raw = engine.decode(token).ok()?;
    let split = raw.len().checked_sub(32)?;
    let (payload, tag) = raw.split_at(split);
    mac.chain_update(payload).verify_slice(tag).ok()?;
    raw.truncate(split);
    Some(raw)
}

fn fresh_mac() -> Hmac<Sha256> {
    Hmac::<Sha256>::new_from_slice(black_box(&SECRET)).expect("HMAC takes keys of any length")
}

/// How many times each series is measured, interleaved; the fastest round is kept, being the
/// least disturbed by other work on the machine.
const ROUNDS: usize = 5;

/// A named measurement: runs its operation once per call.
struct Series<'a> {
    name: &'static str,
    op: Box<dyn FnMut() + 'a>,
    best_ns: f64,
}

impl<'a> Series<'a> {
    fn new<O>(name: &'static str, mut op: impl FnMut() -> O + 'a) -> Self {
        Self {
            name,
            op: Box::new(move || {
                black_box(op());
            }),
            best_ns: f64::INFINITY,
        }
    }
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
    let sealer = signer.clone().sealed();
    let sealed_token = sealer.sign_with_binding(&binding, &payload);
    assert_eq!(
        sealer.verify(&cx, &sealed_token).as_deref(),
        Ok(&payload[..])
    );
    let engine = codec_engine();
    let bare_token = bare_sign(&engine, fresh_mac(), &payload);
    assert_eq!(
        bare_verify(&engine, fresh_mac(), &bare_token).as_deref(),
        Some(&payload[..])
    );
    let prepared = fresh_mac();

    let (payload, binding, cx) = (&payload, &binding, &cx);
    let (signer, engine, prepared) = (&signer, &engine, &prepared);
    let (codec_token, bare_token) = (&codec_token, &bare_token);
    let (sealer, sealed_token) = (&sealer, &sealed_token);
    let mut series = [
        // 0..=2: the bare work, denominators of the ratios.
        Series::new("bare: hmac + base64 encode (sign)", || {
            bare_sign(engine, fresh_mac(), black_box(payload))
        }),
        Series::new("bare: base64 decode + hmac verify (verify)", || {
            bare_verify(engine, fresh_mac(), black_box(bare_token))
        }),
        Series::new("bare: sign + verify", || {
            let token = bare_sign(engine, fresh_mac(), black_box(payload));
            bare_verify(engine, fresh_mac(), &token)
        }),
        Series::new("bare: sign + verify, key prepared once", || {
            let token = bare_sign(engine, prepared.clone(), black_box(payload));
            bare_verify(engine, prepared.clone(), &token)
        }),
        Series::new("bare: sign + verify, scalar base64", || {
            let token = bare_sign(&URL_SAFE_NO_PAD, fresh_mac(), black_box(payload));
            bare_verify(&URL_SAFE_NO_PAD, fresh_mac(), &token)
        }),
        // 5..: the codec.
        Series::new("codec: sign", || {
            signer.sign_with_binding(black_box(binding), black_box(payload))
        }),
        Series::new("codec: verify", || {
            signer.verify_with_binding(black_box(binding), black_box(codec_token))
        }),
        Series::new("codec: sign + verify", || {
            let token = signer.sign_with_binding(black_box(binding), black_box(payload));
            signer.verify_with_binding(binding, &token)
        }),
        Series::new("codec: sign + verify, binding by default policy", || {
            let cx = black_box(cx);
            let token = signer.sign(cx, black_box(payload));
            signer.verify(cx, &token)
        }),
        Series::new("codec: one round (binding once, verify, sign)", || {
            let binding = signer.binding(black_box(cx));
            let payload = signer.verify_with_binding(&binding, black_box(codec_token));
            signer.sign_with_binding(&binding, &payload.unwrap_or_default())
        }),
        Series::new("default_binding alone", || default_binding(black_box(cx))),
        // 11: the codec's sign without drawing a state id, to price the draw.
        Series::new("codec: sign, state id given", || {
            signer.sign_with_id(
                black_box(binding),
                StateId::from_bytes([7; 16]),
                black_box(payload),
            )
        }),
        // 12..: sealed states, against the codec's sign + verify (7).
        Series::new("sealed: seal", || {
            sealer.sign_with_binding(black_box(binding), black_box(payload))
        }),
        Series::new("sealed: open", || {
            sealer.open_with_binding(black_box(binding), black_box(sealed_token))
        }),
        Series::new("sealed: seal + open", || {
            let token = sealer.sign_with_binding(black_box(binding), black_box(payload));
            sealer.open_with_binding(binding, &token)
        }),
    ];
    for _ in 0..ROUNDS {
        for series in &mut series {
            let ns = easybench::bench(&mut series.op).ns_per_iter;
            series.best_ns = series.best_ns.min(ns);
        }
    }

    let best = |index: usize| series[index].best_ns;
    let (bare_sign_ns, bare_verify_ns, bare_ns) = (best(0), best(1), best(2));
    let (codec_sign_ns, codec_verify_ns, codec_ns) = (best(5), best(6), best(7));
    println!(
        "payload: {PAYLOAD_LEN} bytes; signed token: {} characters, sealed token: {}; \
         fastest of {ROUNDS} rounds",
        codec_token.len(),
        sealed_token.len()
    );
    for (index, series) in series.iter().enumerate() {
        // Sign and verify alone compare with their bare halves; sealed figures with the
        // signed codec's.
        let (baseline, against) = match index {
            0 | 5 | 11 => (bare_sign_ns, "bare"),
            1 | 6 => (bare_verify_ns, "bare"),
            12 => (codec_sign_ns, "signed"),
            13 => (codec_verify_ns, "signed"),
            14 => (codec_ns, "signed"),
            _ => (bare_ns, "bare"),
        };
        if index == 5 || index == 12 {
            println!();
        }
        println!(
            "{:<48} {:>7.0} ns/op  {:>5.2}x {against}",
            series.name,
            series.best_ns,
            series.best_ns / baseline
        );
    }
    println!();
    println!(
        "drawing a state id: {:.0} ns per token (codec sign minus sign with the id given)",
        codec_sign_ns - best(11)
    );
    let verdict = |ratio: f64, budget: f64| if ratio <= budget { "within" } else { "OVER" };
    let ratio = codec_ns / bare_ns;
    println!(
        "codec sign + verify / bare sign + verify = {ratio:.2}x ({} the {BUDGET}x budget)",
        verdict(ratio, BUDGET)
    );
    let sealed_ratio = best(14) / codec_ns;
    println!(
        "sealed seal + open / codec sign + verify = {sealed_ratio:.2}x ({} the {SEALED_BUDGET}x \
         budget)",
        verdict(sealed_ratio, SEALED_BUDGET)
    );
}
