//! The methods a server answers, and which of them the registry offers now.

use super::Server;
use super::registry::Snapshot;

/// The methods a server may answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    Discover,
    ToolsList,
    ToolsCall,
    PromptsList,
    PromptsGet,
    Complete,
    ResourcesList,
    TemplatesList,
    ResourcesRead,
    Listen,
    Tasks(super::tasks::TaskMethod),
}

impl Server {
    /// The method `name` names, if the server answers it with the handlers of `snapshot` (its
    /// kind of handler is registered, or the extension that adds it is offered).
    pub(super) fn method(&self, name: &str, snapshot: &Snapshot) -> Option<Method> {
        let offered = snapshot.offered;
        let (tools, prompts, resources) = (offered.tools, offered.prompts, offered.resources);
        Some(match name {
            "server/discover" => Method::Discover,
            "subscriptions/listen" => Method::Listen,
            "tools/list" if tools => Method::ToolsList,
            "tools/call" if tools => Method::ToolsCall,
            "prompts/list" if prompts => Method::PromptsList,
            "prompts/get" if prompts => Method::PromptsGet,
            "completion/complete" if prompts || resources => Method::Complete,
            "resources/list" if resources => Method::ResourcesList,
            "resources/templates/list" if resources => Method::TemplatesList,
            "resources/read" if resources => Method::ResourcesRead,
            _ if self.inner.tasks.is_some() => {
                Method::Tasks(super::tasks::TaskMethod::from_name(name)?)
            }
            _ => return None,
        })
    }
}
