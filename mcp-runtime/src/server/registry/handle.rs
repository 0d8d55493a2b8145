//! [`Registry`]: the application's handle on a running server's handlers.

use std::sync::{Arc, Weak};

use super::{Changed, Entries, Entry, ToolEntry};
use crate::server::Inner;
use crate::server::build_check::{BuildError, check_state, check_tool, header_marks};
use crate::server::handler::ResourceDefinition;
use crate::server::register::{IntoPromptHandler, IntoResourceHandler, IntoToolHandler};
use crate::server::subscriptions::{Notice, announce};

/// A handle on a running server's tools, prompts, resources and resource templates: add,
/// remove, enable and disable them while the server serves, and announce that a resource
/// changed. Get one from [`Server::registry`](crate::server::Server::registry), or take `State<Registry>` in a handler (every
/// server registers its own).
///
/// Each change that alters a list is visible to the next request, and announced: listen
/// streams that asked for that list's changes get `notifications/{tools,prompts,resources}/list_changed`,
/// and so does every legacy session. A change that alters nothing (disabling a disabled
/// tool, removing an unknown one) returns `false` and announces nothing.
///
/// Lists keep registration order; an added handler goes last, a disabled one keeps its place
/// (so enabling it again puts it back where it was), and one removed and added again goes
/// last. A disabled handler is neither listed nor callable (`-32602`, as an unknown one).
///
/// The handle does not keep the server alive: once every clone of the [`Server`](crate::server::Server) is dropped,
/// changes return `false` (or `Ok(false)`) and do nothing.
///
/// ```
/// use mcp_runtime::server::Server;
/// use mcp_runtime::{Cx, ToolResult, text, tool};
///
/// /// Say hello.
/// #[tool]
/// async fn hello(cx: Cx) -> ToolResult {
///     let _ = cx;
///     Ok(text("Hello!"))
/// }
///
/// let server = Server::builder().build();
/// let registry = server.registry();
/// assert_eq!(registry.add_tool(hello), Ok(true));
/// assert!(registry.disable_tool("hello"));
/// assert!(!registry.disable_tool("hello"));
/// assert!(registry.remove_tool("hello"));
/// ```
#[derive(Clone)]
pub struct Registry {
    inner: Weak<Inner>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("serving", &(self.inner.strong_count() > 0))
            .finish()
    }
}

/// Which entries a change looks at, by key.
#[derive(Clone, Copy)]
enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Registry {
    pub(crate) fn of(inner: Weak<Inner>) -> Self {
        Self { inner }
    }

    /// Adds a tool, last in `tools/list`; `Ok(false)` once the server is gone. Refused, as
    /// [`ServerBuilder::try_build`](crate::server::ServerBuilder::try_build) refuses it, when
    /// a tool of that name is registered (enabled or not), its name is not a valid tool
    /// name, it takes a `State<T>` never registered, or its schemas are refused.
    pub fn add_tool<M>(&self, tool: impl IntoToolHandler<M>) -> Result<bool, BuildError> {
        let Some(inner) = self.inner.upgrade() else {
            return Ok(false);
        };
        let handler: Arc<dyn crate::server::ToolHandler> = Arc::new(tool.into_tool_handler());
        let definition = handler.definition();
        check_tool(&definition)?;
        check_state(&inner.state, &definition.name, &handler.required_state())?;
        let marks = header_marks(&definition)?;
        let entry = ToolEntry {
            entry: Entry {
                key: definition.name.clone(),
                definition,
                handler,
                enabled: true,
            },
            marks,
        };
        self.apply(&inner, |entries| {
            refuse_taken(
                "tool",
                &entry.entry.key,
                entries.tools.iter().map(|t| &t.entry.key),
            )?;
            entries.tools.push(entry);
            Ok(Some(Changed::Tools))
        })
    }

    /// Adds a prompt, last in `prompts/list`; refused when a prompt of that name is
    /// registered or it takes a `State<T>` never registered.
    pub fn add_prompt<M>(&self, prompt: impl IntoPromptHandler<M>) -> Result<bool, BuildError> {
        let Some(inner) = self.inner.upgrade() else {
            return Ok(false);
        };
        let handler: Arc<dyn crate::server::PromptHandler> = Arc::new(prompt.into_prompt_handler());
        let definition = handler.definition();
        check_state(&inner.state, &definition.name, &handler.required_state())?;
        let entry = Entry {
            key: definition.name.clone(),
            definition,
            handler,
            enabled: true,
        };
        self.apply(&inner, |entries| {
            refuse_taken("prompt", &entry.key, entries.prompts.iter().map(|p| &p.key))?;
            entries.prompts.push(entry);
            Ok(Some(Changed::Prompts))
        })
    }

    /// Adds a resource or resource template, last in its list; refused when one with the
    /// same URI (or URI template) is registered or it takes a `State<T>` never registered.
    pub fn add_resource<M>(
        &self,
        resource: impl IntoResourceHandler<M>,
    ) -> Result<bool, BuildError> {
        let Some(inner) = self.inner.upgrade() else {
            return Ok(false);
        };
        let handler: Arc<dyn crate::server::ResourceHandler> =
            Arc::new(resource.into_resource_handler());
        let definition = handler.definition();
        let key = match &definition {
            ResourceDefinition::Resource(resource) => resource.uri.clone(),
            ResourceDefinition::Template(template) => template.uri_template.clone(),
        };
        check_state(&inner.state, &key, &handler.required_state())?;
        let entry = Entry {
            key,
            definition,
            handler,
            enabled: true,
        };
        self.apply(&inner, |entries| {
            refuse_taken(
                "resource",
                &entry.key,
                entries.resources.iter().map(|r| &r.key),
            )?;
            entries.resources.push(entry);
            Ok(Some(Changed::Resources))
        })
    }

    /// Removes the tool `name`; whether there was one.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.remove(Kind::Tool, name)
    }

    /// Removes the prompt `name`; whether there was one.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.remove(Kind::Prompt, name)
    }

    /// Removes the resource with URI `uri`, or the template with URI template `uri`;
    /// whether there was one.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.remove(Kind::Resource, uri)
    }

    /// Enables the tool `name` again; whether it was disabled.
    pub fn enable_tool(&self, name: &str) -> bool {
        self.set_enabled(Kind::Tool, name, true)
    }

    /// Disables the tool `name`: no longer listed or callable; whether it was enabled.
    pub fn disable_tool(&self, name: &str) -> bool {
        self.set_enabled(Kind::Tool, name, false)
    }

    /// Enables the prompt `name` again; whether it was disabled.
    pub fn enable_prompt(&self, name: &str) -> bool {
        self.set_enabled(Kind::Prompt, name, true)
    }

    /// Disables the prompt `name`; whether it was enabled.
    pub fn disable_prompt(&self, name: &str) -> bool {
        self.set_enabled(Kind::Prompt, name, false)
    }

    /// Enables the resource (or template) `uri` again; whether it was disabled.
    pub fn enable_resource(&self, uri: &str) -> bool {
        self.set_enabled(Kind::Resource, uri, true)
    }

    /// Disables the resource (or template) `uri`: no longer listed, read or subscribable;
    /// whether it was enabled.
    pub fn disable_resource(&self, uri: &str) -> bool {
        self.set_enabled(Kind::Resource, uri, false)
    }

    /// The registered tools' names, in list order, each with whether it is enabled.
    pub fn tools(&self) -> Vec<(String, bool)> {
        let Some(inner) = self.inner.upgrade() else {
            return Vec::new();
        };
        inner.registry.read(|entries| {
            entries
                .tools
                .iter()
                .map(|tool| (tool.entry.key.clone(), tool.entry.enabled))
                .collect()
        })
    }

    /// Announces that the resource `uri` changed: `notifications/resources/updated` goes to
    /// the listen streams subscribed to `uri` and to the legacy sessions that sent
    /// `resources/subscribe` for it. The URI is compared as given, byte for byte.
    pub fn notify_resource_updated(&self, uri: &str) {
        if let Some(inner) = self.inner.upgrade() {
            announce(
                &inner.subscriptions,
                &inner.sessions,
                Notice::ResourceUpdated(uri),
            );
        }
    }

    fn remove(&self, kind: Kind, key: &str) -> bool {
        let Some(inner) = self.inner.upgrade() else {
            return false;
        };
        let removed = self.apply(&inner, |entries| {
            Ok(match kind {
                Kind::Tool => take(&mut entries.tools, |t| t.entry.key == key, Changed::Tools),
                Kind::Prompt => take(&mut entries.prompts, |p| p.key == key, Changed::Prompts),
                Kind::Resource => {
                    take(&mut entries.resources, |r| r.key == key, Changed::Resources)
                }
            })
        });
        removed == Ok(true)
    }

    fn set_enabled(&self, kind: Kind, key: &str, on: bool) -> bool {
        let Some(inner) = self.inner.upgrade() else {
            return false;
        };
        let changed = self.apply(&inner, |entries| {
            let (flag, changed) = match kind {
                Kind::Tool => (
                    entries
                        .tools
                        .iter_mut()
                        .find(|t| t.entry.key == key)
                        .map(|t| &mut t.entry.enabled),
                    Changed::Tools,
                ),
                Kind::Prompt => (
                    entries
                        .prompts
                        .iter_mut()
                        .find(|p| p.key == key)
                        .map(|p| &mut p.enabled),
                    Changed::Prompts,
                ),
                Kind::Resource => (
                    entries
                        .resources
                        .iter_mut()
                        .find(|r| r.key == key)
                        .map(|r| &mut r.enabled),
                    Changed::Resources,
                ),
            };
            Ok(match flag {
                Some(flag) if *flag != on => {
                    *flag = on;
                    Some(changed)
                }
                _ => None,
            })
        });
        changed == Ok(true)
    }

    /// Applies a change and announces it; whether it changed a list.
    fn apply(
        &self,
        inner: &Inner,
        change: impl FnOnce(&mut Entries) -> Result<Option<Changed>, BuildError>,
    ) -> Result<bool, BuildError> {
        let changed = inner.registry.change(change)?;
        let notice = match changed {
            None => return Ok(false),
            Some(Changed::Tools) => Notice::ToolsListChanged,
            Some(Changed::Prompts) => Notice::PromptsListChanged,
            Some(Changed::Resources) => Notice::ResourcesListChanged,
        };
        announce(&inner.subscriptions, &inner.sessions, notice);
        Ok(true)
    }
}

/// Removes the first entry `matches` accepts; which list changed, if one did.
fn take<T>(
    entries: &mut Vec<T>,
    matches: impl Fn(&T) -> bool,
    changed: Changed,
) -> Option<Changed> {
    let position = entries.iter().position(matches)?;
    entries.remove(position);
    Some(changed)
}

fn refuse_taken<'a>(
    kind: &'static str,
    key: &str,
    mut keys: impl Iterator<Item = &'a String>,
) -> Result<(), BuildError> {
    if keys.any(|taken| taken == key) {
        return Err(BuildError::Duplicate {
            kind,
            name: key.to_owned(),
        });
    }
    Ok(())
}
