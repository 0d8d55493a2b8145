//! What a state is bound to, seen from outside: each part of the request on its own, the
//! arguments that bind alike, and policies that extend or replace the default binding.

use std::sync::Arc;

use mcp_runtime::state::{Binding, BindingContext, StateError, default_binding};
use serde_json::{Value, json};

#[path = "common/state.rs"]
mod state_common;

use state_common::{args, cx, sealer, signer};

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
