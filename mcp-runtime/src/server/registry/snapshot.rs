//! What the registry holds (every handler, enabled or not, in a fixed order) and what one
//! request sees of it: an immutable [`Snapshot`] of the enabled handlers, their indexes and
//! their list pages, serialised once per change.

use std::collections::HashMap;
use std::sync::Arc;

use super::Settings;
use super::pages::{ListKind, Listing};
use crate::protocol::{
    DiscoverResult, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, Prompt, Resource, ResourceTemplate, ResultMeta,
    ServerCapabilities, Tool,
};
use crate::server::handler::{PromptHandler, ResourceDefinition, ResourceHandler, ToolHandler};
use crate::server::param_headers::ParamHeader;

/// One registered handler: its key (a tool or prompt name, a resource URI or URI template),
/// its definition, computed once, and whether it is enabled.
pub(crate) struct Entry<H: ?Sized, D> {
    pub(crate) key: String,
    pub(crate) definition: D,
    pub(crate) handler: Arc<H>,
    pub(crate) enabled: bool,
}

/// A tool's entry carries its `x-mcp-header` marks, checked when it was registered.
pub(crate) struct ToolEntry {
    pub(crate) entry: Entry<dyn ToolHandler, Tool>,
    pub(crate) marks: Vec<ParamHeader>,
}

/// Every handler registered, in registration order (an added handler goes last; one
/// removed and added again goes last too). Disabled ones keep their place.
#[derive(Default)]
pub(crate) struct Entries {
    pub(crate) tools: Vec<ToolEntry>,
    pub(crate) prompts: Vec<Entry<dyn PromptHandler, Prompt>>,
    pub(crate) resources: Vec<Entry<dyn ResourceHandler, ResourceDefinition>>,
}

/// What a kind of handler the server offers: at least one registered, enabled or not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Offered {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
}

/// Positions of handlers by name, as every call looks its handler up: hashed with
/// `foldhash`'s fast hasher (seeded per process) rather than the std map's SipHash, which
/// costs a lookup about as much again. An index holds the names the server registered,
/// never a client's: a client only looks names up, so it has no table to flood.
pub(crate) type Index = HashMap<String, usize, foldhash::fast::RandomState>;

/// The enabled handlers at one moment, as every request that starts then sees them.
pub(crate) struct Snapshot {
    pub(crate) tools: Vec<Arc<dyn ToolHandler>>,
    pub(crate) tool_index: Index,
    /// Each tool's `x-mcp-header` marks, by the tool's position.
    pub(crate) tool_marks: Vec<Vec<ParamHeader>>,
    pub(crate) prompts: Vec<Arc<dyn PromptHandler>>,
    pub(crate) prompt_index: Index,
    /// Resources and templates; a read goes to the first whose `matches` accepts the URI.
    pub(crate) resources: Vec<Arc<dyn ResourceHandler>>,
    pub(crate) offered: Offered,
    /// The four lists, paged and serialised in both eras' shapes.
    pub(crate) lists: [Listing; 4],
    /// `server/discover`'s result, serialised.
    pub(crate) discover: String,
    /// The capabilities a legacy session's `initialize` is told.
    pub(crate) legacy_capabilities: ServerCapabilities,
}

impl Snapshot {
    pub(crate) fn of(entries: &Entries, settings: &Settings) -> Self {
        let (cache, page_size) = (settings.cache, settings.page_size);
        let meta = || {
            settings.server_info.clone().map(|info| ResultMeta {
                server_info: Some(info),
                ..Default::default()
            })
        };
        let enabled_tools = entries.tools.iter().filter(|tool| tool.entry.enabled);
        let tools: Vec<Arc<dyn ToolHandler>> = enabled_tools
            .clone()
            .map(|tool| Arc::clone(&tool.entry.handler))
            .collect();
        let tool_defs: Vec<Tool> = enabled_tools
            .clone()
            .map(|tool| tool.entry.definition.clone())
            .collect();
        let tool_marks = enabled_tools.map(|tool| tool.marks.clone()).collect();
        let tool_index = position_by_key(tool_defs.iter().map(|tool| tool.name.as_str()));
        let enabled_prompts = entries.prompts.iter().filter(|prompt| prompt.enabled);
        let prompts: Vec<Arc<dyn PromptHandler>> = enabled_prompts
            .clone()
            .map(|prompt| Arc::clone(&prompt.handler))
            .collect();
        let prompt_defs: Vec<Prompt> = enabled_prompts
            .map(|prompt| prompt.definition.clone())
            .collect();
        let prompt_index = position_by_key(prompt_defs.iter().map(|prompt| prompt.name.as_str()));
        let mut resources = Vec::new();
        let mut resource_defs: Vec<Resource> = Vec::new();
        let mut template_defs: Vec<ResourceTemplate> = Vec::new();
        for entry in entries.resources.iter().filter(|entry| entry.enabled) {
            resources.push(Arc::clone(&entry.handler));
            match &entry.definition {
                ResourceDefinition::Resource(resource) => resource_defs.push(resource.clone()),
                ResourceDefinition::Template(template) => template_defs.push(template.clone()),
            }
        }
        let lists = [
            Listing::new(
                ListKind::Tools,
                &tool_defs,
                page_size,
                |tools, next_cursor| {
                    serialise(&ListToolsResult {
                        tools,
                        next_cursor,
                        cache,
                        meta: meta(),
                        ..Default::default()
                    })
                },
            ),
            Listing::new(
                ListKind::Prompts,
                &prompt_defs,
                page_size,
                |prompts, next_cursor| {
                    serialise(&ListPromptsResult {
                        prompts,
                        next_cursor,
                        cache,
                        meta: meta(),
                        ..Default::default()
                    })
                },
            ),
            Listing::new(
                ListKind::Resources,
                &resource_defs,
                page_size,
                |resources, next_cursor| {
                    serialise(&ListResourcesResult {
                        resources,
                        next_cursor,
                        cache,
                        meta: meta(),
                        ..Default::default()
                    })
                },
            ),
            Listing::new(
                ListKind::Templates,
                &template_defs,
                page_size,
                |resource_templates, next_cursor| {
                    serialise(&ListResourceTemplatesResult {
                        resource_templates,
                        next_cursor,
                        cache,
                        meta: meta(),
                        ..Default::default()
                    })
                },
            ),
        ];
        let offered = Offered {
            tools: !entries.tools.is_empty(),
            prompts: !entries.prompts.is_empty(),
            resources: !entries.resources.is_empty(),
        };
        let (mut modern, legacy_capabilities) = super::capabilities(offered);
        // Legacy sessions have no tasks of this extension.
        if settings.tasks {
            let tasks = (crate::server::TASKS_EXTENSION.to_owned(), JsonObject::new());
            modern.extensions = Some(std::iter::once(tasks).collect());
        }
        let discover = serialise(&DiscoverResult {
            capabilities: modern,
            ..settings.discover.clone()
        });
        Self {
            tools,
            tool_index,
            tool_marks,
            prompts,
            prompt_index,
            resources,
            offered,
            lists,
            discover,
            legacy_capabilities,
        }
    }

    /// The list of `kind`.
    pub(crate) fn list(&self, kind: ListKind) -> &Listing {
        &self.lists[kind as usize]
    }

    /// Whether an enabled resource or template serves `uri`.
    pub(crate) fn serves(&self, uri: &str) -> bool {
        self.resources.iter().any(|resource| resource.matches(uri))
    }
}

fn position_by_key<'a>(keys: impl Iterator<Item = &'a str>) -> Index {
    keys.enumerate()
        .map(|(position, key)| (key.to_owned(), position))
        .collect()
}

fn serialise(result: &impl serde::Serialize) -> String {
    serde_json::to_string(result).expect("a list result serialises to JSON")
}

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher as _;

    use super::*;

    #[test]
    fn an_index_finds_every_name_and_no_other() {
        let names: Vec<String> = (0..300)
            .map(|n| format!("tool_{n}"))
            .chain(
                [
                    "",
                    "a",
                    "ab",
                    "abcdefg",
                    "abcdefgh",
                    "abcdefghi",
                    "confirm_deploy",
                ]
                .map(String::from),
            )
            .collect();
        let index = position_by_key(names.iter().map(String::as_str));
        for (position, name) in names.iter().enumerate() {
            assert_eq!(index.get(name.as_str()), Some(&position), "{name}");
        }
        for missing in ["tool_300", "abcdefgh\0", "confirm_deplo", "Confirm_deploy"] {
            assert_eq!(index.get(missing), None, "{missing}");
        }
        // Names differing in one byte, anywhere, or in their length, hash apart.
        let hasher = index.hasher();
        let hashes: std::collections::HashSet<u64> = names
            .iter()
            .map(|name| hasher.hash_one(name.as_str()))
            .collect();
        assert_eq!(hashes.len(), names.len());
    }
}
