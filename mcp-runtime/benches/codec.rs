//! Cost of the request-state codec against the bare cryptographic work it cannot avoid.
//!
//! Run with `cargo bench -p mcp-runtime --bench codec`. Every figure comes from the same run:
//! the codec signs and verifies a 256-byte payload; the bare baseline computes HMAC-SHA256 over
//! the same 256 bytes and base64-encodes payload and tag, then decodes them and verifies the
//! tag, with the same base64 engine as the codec and, like the codec, an HMAC key prepared once
//! and cloned per use. The codec's budget is twice that bare work.
//!
//! Each row's ratio names the row it is divided by, since that baseline changes from row to
//! row. Sealed states are measured in the same run: a sealing signer seals and opens the same
//! payload, against the signed codec, and its budget is twice the signed codec's sign +
//! verify. Each minted token draws a fresh random state id, so the id's cost is in every codec
//! figure.

#[path = "support/verdict.rs"]
mod verdict;

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
    /// The series this one is divided by, by name.
    baseline: Option<&'static str>,
    best_ns: f64,
}

impl<'a> Series<'a> {
    fn new<O>(name: &'static str, mut op: impl FnMut() -> O + 'a) -> Self {
        Self {
            name,
            op: Box::new(move || {
                black_box(op());
            }),
            baseline: None,
            best_ns: f64::INFINITY,
        }
    }

    /// Compared with the series named `baseline`.
    fn against(mut self, baseline: &'static str) -> Self {
        self.baseline = Some(baseline);
        self
    }
}

// The baselines, by name.
const BARE_SIGN: &str = "bare: sign, key prepared once";
const BARE_VERIFY: &str = "bare: verify, key prepared once";
const BARE: &str = "bare: sign + verify, key prepared once";
const CODEC_SIGN: &str = "codec: sign";
const CODEC_VERIFY: &str = "codec: verify";
const CODEC: &str = "codec: sign + verify";
const STATE_ID_GIVEN: &str = "codec: sign, state id given";
const SEALED: &str = "sealed: seal + open";

fn main() {
    let mut verdicts = verdict::Verdicts::from_args();
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
        // The bare work the codec cannot avoid, as the codec does it (key prepared once).
        Series::new(BARE_SIGN, || {
            bare_sign(engine, prepared.clone(), black_box(payload))
        }),
        Series::new(BARE_VERIFY, || {
            bare_verify(engine, prepared.clone(), black_box(bare_token))
        }),
        Series::new(BARE, || {
            let token = bare_sign(engine, prepared.clone(), black_box(payload));
            bare_verify(engine, prepared.clone(), &token)
        }),
        // What preparing the key once and the SIMD base64 engine save.
        Series::new("bare: sign, key prepared per use", || {
            bare_sign(engine, fresh_mac(), black_box(payload))
        })
        .against(BARE_SIGN),
        Series::new("bare: verify, key prepared per use", || {
            bare_verify(engine, fresh_mac(), black_box(bare_token))
        })
        .against(BARE_VERIFY),
        Series::new("bare: sign + verify, key prepared per use", || {
            let token = bare_sign(engine, fresh_mac(), black_box(payload));
            bare_verify(engine, fresh_mac(), &token)
        })
        .against(BARE),
        Series::new("bare: sign + verify, scalar base64", || {
            let token = bare_sign(&URL_SAFE_NO_PAD, prepared.clone(), black_box(payload));
            bare_verify(&URL_SAFE_NO_PAD, prepared.clone(), &token)
        })
        .against(BARE),
        // The codec, against the same bare work.
        Series::new(CODEC_SIGN, || {
            signer.sign_with_binding(black_box(binding), black_box(payload))
        })
        .against(BARE_SIGN),
        Series::new(CODEC_VERIFY, || {
            signer.verify_with_binding(black_box(binding), black_box(codec_token))
        })
        .against(BARE_VERIFY),
        Series::new(CODEC, || {
            let token = signer.sign_with_binding(black_box(binding), black_box(payload));
            signer.verify_with_binding(binding, &token)
        })
        .against(BARE),
        Series::new("codec: sign + verify, binding by default policy", || {
            let cx = black_box(cx);
            let token = signer.sign(cx, black_box(payload));
            signer.verify(cx, &token)
        })
        .against(BARE),
        Series::new("codec: one round (binding once, verify, sign)", || {
            let binding = signer.binding(black_box(cx));
            let payload = signer.verify_with_binding(&binding, black_box(codec_token));
            signer.sign_with_binding(&binding, &payload.unwrap_or_default())
        })
        .against(BARE),
        Series::new("default_binding alone", || default_binding(black_box(cx))).against(BARE),
        // The codec's sign without drawing a state id, to price the draw.
        Series::new(STATE_ID_GIVEN, || {
            signer.sign_with_id(
                black_box(binding),
                StateId::from_bytes([7; 16]),
                black_box(payload),
            )
        })
        .against(BARE_SIGN),
        // Sealed states, against the signed codec.
        Series::new("sealed: seal", || {
            sealer.sign_with_binding(black_box(binding), black_box(payload))
        })
        .against(CODEC_SIGN),
        Series::new("sealed: open", || {
            sealer.open_with_binding(black_box(binding), black_box(sealed_token))
        })
        .against(CODEC_VERIFY),
        Series::new(SEALED, || {
            let token = sealer.sign_with_binding(black_box(binding), black_box(payload));
            sealer.open_with_binding(binding, &token)
        })
        .against(CODEC),
    ];
    for _ in 0..ROUNDS {
        for series in &mut series {
            let ns = easybench::bench(&mut series.op).ns_per_iter;
            series.best_ns = series.best_ns.min(ns);
        }
    }

    let best = |name: &str| {
        series
            .iter()
            .find(|series| series.name == name)
            .map_or_else(|| panic!("no series {name:?}"), |series| series.best_ns)
    };
    println!(
        "payload: {PAYLOAD_LEN} bytes; signed token: {} characters, sealed token: {}; \
         fastest of {ROUNDS} rounds",
        codec_token.len(),
        sealed_token.len()
    );
    println!();
    for series in &series {
        match series.baseline {
            Some(baseline) => println!(
                "{:<48} {:>7.0} ns/op  {:>5.2}x {baseline}",
                series.name,
                series.best_ns,
                series.best_ns / best(baseline)
            ),
            None => println!(
                "{:<48} {:>7.0} ns/op  (a baseline)",
                series.name, series.best_ns
            ),
        }
    }
    println!();
    println!(
        "drawing a state id: {:.0} ns per token ({CODEC_SIGN} minus {STATE_ID_GIVEN})",
        best(CODEC_SIGN) - best(STATE_ID_GIVEN)
    );
    let ratio = best(CODEC) / best(BARE);
    println!(
        "{CODEC} / {BARE} = {ratio:.2}x ({} the {BUDGET}x budget)",
        verdicts.judge("codec", ratio <= BUDGET)
    );
    let sealed_ratio = best(SEALED) / best(CODEC);
    println!(
        "{SEALED} / {CODEC} = {sealed_ratio:.2}x ({} the {SEALED_BUDGET}x budget)",
        verdicts.judge("sealed codec", sealed_ratio <= SEALED_BUDGET)
    );
    verdicts.finish();
}
