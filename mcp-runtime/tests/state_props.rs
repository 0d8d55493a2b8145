//! Properties of the request-state codec over random payloads, bindings and mutations.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_runtime::state::{Binding, BindingContext, Signer, StateError};
use proptest::prelude::*;

fn signer() -> Signer {
    Signer::new(3, &[0xa5; 32]).expect("a 32-byte secret is accepted")
}

/// The same key, minting sealed tokens.
fn sealer() -> Signer {
    signer().sealed()
}

fn cx() -> BindingContext<'static> {
    BindingContext::new("tools/call", "deploy").with_subject(Some("alice"))
}

/// One change to a token's text.
#[derive(Debug, Clone)]
enum Edit {
    Replace(usize, char),
    Insert(usize, char),
    Remove(usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    // Mostly characters of the token alphabet, so that edits reach the MAC; sometimes any.
    let ch = prop_oneof![
        4 => proptest::sample::select(
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                .iter()
                .map(|&b| char::from(b))
                .collect::<Vec<_>>()
        ),
        1 => any::<char>(),
    ];
    prop_oneof![
        (any::<usize>(), ch.clone()).prop_map(|(i, c)| Edit::Replace(i, c)),
        (any::<usize>(), ch).prop_map(|(i, c)| Edit::Insert(i, c)),
        any::<usize>().prop_map(Edit::Remove),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(token: &str, edit: &Edit) -> String {
    let mut chars: Vec<char> = token.chars().collect();
    let len = chars.len();
    match *edit {
        Edit::Replace(i, c) => chars[i % len] = c,
        Edit::Insert(i, c) => chars.insert(i % (len + 1), c),
        Edit::Remove(i) => {
            chars.remove(i % len);
        }
        Edit::Truncate(i) => chars.truncate(i % len),
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_payloads_round_trip(
        payload in proptest::collection::vec(any::<u8>(), 0..2048),
        binding in any::<[u8; 32]>(),
        sealed in any::<bool>(),
    ) {
        let signer = if sealed { sealer() } else { signer() };
        let binding = Binding::from_bytes(binding);
        let token = signer.sign_with_binding(&binding, &payload);
        prop_assert!(token.len() <= payload.len() * 4 / 3 + 100);
        let opened = signer.open_with_binding(&binding, &token);
        prop_assert_eq!(opened.as_ref().map(|o| o.is_sealed()), Ok(sealed));
        prop_assert_eq!(signer.verify_with_binding(&binding, &token), Ok(payload));
    }

    #[test]
    fn sealed_payloads_are_not_in_the_token(
        payload in proptest::collection::vec(any::<u8>(), 16..512),
    ) {
        // A payload of 16 bytes or more shows in no sealed token, not even as a run of 16 of
        // its bytes (chance alone would put one there with probability about 2^-120).
        let raw = URL_SAFE_NO_PAD
            .decode(sealer().sign(&cx(), &payload))
            .expect("tokens are base64");
        for window in payload.windows(16) {
            prop_assert!(!raw.windows(16).any(|w| w == window));
        }
    }

    #[test]
    fn another_binding_is_refused(
        payload in proptest::collection::vec(any::<u8>(), 0..256),
        minted in any::<[u8; 32]>(),
        offered in any::<[u8; 32]>(),
    ) {
        prop_assume!(minted != offered);
        let signer = signer();
        let token = signer.sign_with_binding(&Binding::from_bytes(minted), &payload);
        prop_assert_eq!(
            signer.verify_with_binding(&Binding::from_bytes(offered), &token),
            Err(StateError::BindingMismatch)
        );
        // A sealed token cannot tell another binding from tampering.
        let token = sealer().sign_with_binding(&Binding::from_bytes(minted), &payload);
        prop_assert_eq!(
            signer.verify_with_binding(&Binding::from_bytes(offered), &token),
            Err(StateError::BadSeal)
        );
    }

    #[test]
    fn arbitrary_strings_are_refused_without_panicking(input in any::<String>()) {
        prop_assert!(signer().verify(&cx(), &input).is_err());
    }

    #[test]
    fn arbitrary_base64_is_refused_without_panicking(
        raw in proptest::collection::vec(any::<u8>(), 0..512),
        header in proptest::collection::vec(any::<u8>(), 0..16),
    ) {
        // Random bytes, and random bytes behind a valid format byte (signed or sealed) and
        // key id, so that the parser's length handling is exercised too.
        let signer = signer();
        prop_assert!(signer.verify(&cx(), &URL_SAFE_NO_PAD.encode(&raw)).is_err());
        for format in [2, 3] {
            let mut framed = vec![format, 0, 3];
            framed.extend_from_slice(&header);
            framed.extend_from_slice(&raw);
            prop_assert!(signer.verify(&cx(), &URL_SAFE_NO_PAD.encode(&framed)).is_err());
        }
    }

    #[test]
    fn mutations_of_real_tokens_are_refused(
        payload in proptest::collection::vec(any::<u8>(), 0..300),
        edits in proptest::collection::vec(edit(), 1..4),
        sealed in any::<bool>(),
    ) {
        let signer = if sealed { sealer() } else { signer() };
        let token = signer.sign(&cx(), &payload);
        let mutated = edits.iter().fold(token.clone(), |token, edit| {
            if token.is_empty() { token } else { apply(&token, edit) }
        });
        prop_assume!(mutated != token);
        prop_assert!(signer.verify(&cx(), &mutated).is_err(), "{} accepted", mutated);
    }

    #[test]
    fn byte_mutations_of_real_tokens_are_refused(
        payload in proptest::collection::vec(any::<u8>(), 0..300),
        flips in proptest::collection::vec((any::<usize>(), 1..=255u8), 1..4),
        sealed in any::<bool>(),
    ) {
        let signer = if sealed { sealer() } else { signer() };
        let mut raw = URL_SAFE_NO_PAD
            .decode(signer.sign(&cx(), &payload))
            .expect("tokens are base64");
        let original = raw.clone();
        let len = raw.len();
        for (index, mask) in flips {
            raw[index % len] ^= mask;
        }
        // Two flips of the same byte may cancel out.
        prop_assume!(raw != original);
        prop_assert!(signer.verify(&cx(), &URL_SAFE_NO_PAD.encode(&raw)).is_err());
    }
}
