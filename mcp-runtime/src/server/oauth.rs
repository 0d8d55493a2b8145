//! The OAuth settings of [`ServerBuilder`], and the resource server a build makes of them.

use std::collections::HashMap;

use super::ServerBuilder;
use super::build_check::BuildError;
use crate::auth::{OAuth, ResourceServer, is_scope_token};

impl ServerBuilder {
    /// Makes the HTTP transport an OAuth 2.1 resource server: every request must carry a
    /// valid bearer token, whose subject states bind to, and the protected-resource metadata
    /// is served. Off by default; see [`crate::auth`].
    pub fn oauth(mut self, oauth: OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Scopes a `tools/call` of the tool `name` needs, beyond those every request needs. A
    /// token without one of them gets `403` with `error="insufficient_scope"` and every scope
    /// the call needs; the tool stays listed. Calls for the same tool add up.
    ///
    /// Needs [`oauth`](Self::oauth); [`try_build`](Self::try_build) refuses a tool never
    /// registered, or a scope that is not a scope token (printable ASCII without space, `"`
    /// or `\`).
    pub fn tool_scopes<S: Into<String>>(
        mut self,
        name: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let listed = self.tool_scopes.entry(name.into()).or_default();
        for scope in scopes {
            let scope = scope.into();
            if !listed.contains(&scope) {
                listed.push(scope);
            }
        }
        self
    }
}

/// The resource server of a build, its tool scopes checked against the registered tools.
pub(super) fn resource_server(
    oauth: Option<OAuth>,
    tool_scopes: HashMap<String, Vec<String>>,
    tools: &HashMap<String, usize>,
) -> Result<Option<ResourceServer>, BuildError> {
    let refuse = |tool: &str, problem: String| BuildError::ToolScopes {
        tool: tool.to_owned(),
        problem,
    };
    for (tool, scopes) in &tool_scopes {
        if !tools.contains_key(tool) {
            return Err(refuse(
                tool,
                "no tool has this name; register it with `tool`".into(),
            ));
        }
        if let Some(scope) = scopes.iter().find(|scope| !is_scope_token(scope)) {
            return Err(refuse(
                tool,
                format!(
                    "`{scope}` is not a scope token (printable ASCII without space, `\"` or `\\`)"
                ),
            ));
        }
        if oauth.is_none() {
            return Err(refuse(
                tool,
                "no token is checked without `oauth`; configure it".into(),
            ));
        }
    }
    Ok(oauth.map(|oauth| ResourceServer::new(oauth, tool_scopes)))
}
