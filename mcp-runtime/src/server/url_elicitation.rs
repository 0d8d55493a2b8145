//! URL-mode elicitation on legacy (2025-11-25) sessions, which that revision shapes apart from
//! 2026-07-28: each `elicitation/create` in URL mode carries an `elicitationId`, the server may
//! tell the client `notifications/elicitation/complete` once the page's work is done, and a
//! request that cannot go on until the user has opened such pages may be answered `-32042`
//! (`URLElicitationRequiredError`) with them listed.
//!
//! The ids are the server's: `{call}-{key}`, where `{call}` is 16 random hexadecimal digits
//! drawn per call and `{key}` the question's input key, so a handler knows the id of a
//! question before asking it ([`RequestContext::elicitation_id`](super::RequestContext::elicitation_id)) and can put it in the URL.
//! On 2026-07-28 there are no ids: correlation travels in `requestState`.

use std::sync::OnceLock;

use serde_json::{Value, json};

use super::outbound::Outbound;
use crate::protocol::{
    ClientCapabilities, ElicitRequestParams, ErrorCode, ErrorObject, InputRequest, InputRequests,
    method,
};

/// What a call on a legacy session needs for its URL elicitations: its ids' prefix, and the
/// call's stream, where its notifications go.
pub(crate) struct LegacyCall {
    /// Drawn when the call first names an id: most calls never do, and the draw is a system
    /// call.
    prefix: OnceLock<String>,
    outbound: Outbound,
}

impl LegacyCall {
    /// A call sending on `outbound`; its ids' prefix is drawn on first use.
    pub(crate) fn new(outbound: Outbound) -> Self {
        Self {
            prefix: OnceLock::new(),
            outbound,
        }
    }

    /// The id a URL-mode question asked under `key` goes out with.
    pub(crate) fn id(&self, key: &str) -> String {
        let prefix = self.prefix.get_or_init(|| {
            let mut bytes = [0u8; 8];
            // Without the operating system's randomness the prefix is only less
            // unpredictable: ids stay distinct within the call through their keys.
            let _ = getrandom::fill(&mut bytes);
            bytes.iter().map(|byte| format!("{byte:02x}")).collect()
        });
        format!("{prefix}-{key}")
    }

    /// Sends `notifications/elicitation/complete` for `elicitation_id` on the call's stream;
    /// `false` once the call's stream is gone.
    pub(crate) fn complete(&self, elicitation_id: &str) -> bool {
        let notification = json!({
            "jsonrpc": "2.0",
            "method": method::NOTIFICATION_ELICITATION_COMPLETE,
            "params": {"elicitationId": elicitation_id},
        });
        self.outbound.send(notification.into()).is_ok()
    }
}

/// Gives every URL-mode question of a legacy round the id `id_of` its key, unless it has one.
pub(crate) fn assign_ids(requests: &mut InputRequests, id_of: impl Fn(&str) -> Option<String>) {
    for (key, request) in requests.iter_mut() {
        if let InputRequest::Elicit(ElicitRequestParams::Url(params)) = request
            && params.elicitation_id.is_none()
        {
            params.elicitation_id = id_of(key);
        }
    }
}

/// The `-32042` answer to a legacy round that cannot reach its client (its request takes no
/// event stream) when every question is a URL-mode elicitation the client can take: the
/// client opens the pages and retries. `None` when another answer fits.
pub(crate) fn required_error(
    requests: &InputRequests,
    capabilities: &ClientCapabilities,
) -> Option<ErrorObject> {
    let url_mode = capabilities
        .elicitation
        .as_ref()
        .is_some_and(|elicitation| elicitation.url.is_some());
    let mut elicitations = Vec::with_capacity(requests.len());
    for request in requests.values() {
        match request {
            InputRequest::Elicit(ElicitRequestParams::Url(params)) if url_mode => {
                elicitations.push(serde_json::to_value(params).ok()?);
            }
            _ => return None,
        }
    }
    if elicitations.is_empty() {
        return None;
    }
    Some(
        ErrorObject::new(
            ErrorCode::URL_ELICITATION_REQUIRED,
            "this request needs the user to open the pages listed in `data.elicitations` first; \
             retry it once they have",
        )
        .with_data(json!({ "elicitations": Value::Array(elicitations) })),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prefix of `id`: what comes before the key's `-`.
    fn prefix(id: &str) -> &str {
        id.split_once('-').map_or("", |(prefix, _)| prefix)
    }

    #[test]
    fn a_calls_ids_share_one_prefix_and_another_call_draws_its_own() {
        let (outbound, _receiver) = crate::server::outbound::channel();
        let call = LegacyCall::new(outbound.clone());
        let first = call.id("link");
        let again = call.id("link");
        let other_key = call.id("sign-in");
        assert_eq!(first, again);
        assert!(first.ends_with("-link"), "{first}");
        assert!(other_key.ends_with("-sign-in"), "{other_key}");
        assert_eq!(prefix(&first), prefix(&other_key));
        assert_eq!(prefix(&first).len(), 16, "{first}");
        assert!(
            prefix(&first)
                .bytes()
                .all(|digit| digit.is_ascii_digit() || (b'a'..=b'f').contains(&digit)),
            "{first}"
        );
        // 64 random bits: two calls drawing the same prefix would be a broken source.
        let another = LegacyCall::new(outbound).id("link");
        assert_ne!(prefix(&first), prefix(&another));
    }
}
