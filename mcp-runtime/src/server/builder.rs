//! [`ServerBuilder`]: registering handlers and settings, and what a built server holds.

use std::collections::HashMap;
use std::sync::Arc;

use super::Server;
use super::app_state::AppState;
use super::build_check::{BuildError, check_state, check_tool, header_marks, index_by_name};
use super::handler::{FlowLimits, PromptHandler, ResourceDefinition, ResourceHandler, ToolHandler};
use super::register::{IntoPromptHandler, IntoResourceHandler, IntoToolHandler};
use super::registry::{Entries, Entry, Registry, Settings, Store, ToolEntry};
use super::session::{SessionSettings, Sessions};
use super::subscriptions::{ListenLimits, Subscriptions};
use crate::protocol::{
    CacheHints, CacheScope, DiscoverResult, Implementation, Prompt, ResultMeta, Tool,
};
use crate::state::{MemoryReplayStore, ReplayStore, Signer};
use crate::transport::{HttpLimits, HttpState};

/// Turns the parts of an HTTP request into the subject a request state is bound to.
pub type SubjectHook = dyn Fn(&axum::http::request::Parts) -> Option<String> + Send + Sync;

/// The default request body limit of the HTTP transport: 4 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 4 * 1024 * 1024;

/// The default nesting limit of arguments and answers: 32 levels of arrays and objects.
pub const DEFAULT_MAX_JSON_DEPTH: usize = 32;

/// Builds a [`Server`]: handlers, identity and settings.
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
/// let server = Server::builder()
///     .name("greeter")
///     .version("1.0.0")
///     .tool(hello)
///     .build();
/// # drop(server);
/// ```
#[must_use]
pub struct ServerBuilder {
    pub(crate) name: String,
    version: String,
    title: Option<String>,
    instructions: Option<String>,
    tools: Vec<Arc<dyn ToolHandler>>,
    prompts: Vec<Arc<dyn PromptHandler>>,
    resources: Vec<Arc<dyn ResourceHandler>>,
    signer: Option<Signer>,
    subject: Option<Arc<SubjectHook>>,
    cache: CacheHints,
    limits: FlowLimits,
    body_limit: usize,
    max_json_depth: usize,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    pub(super) sessions: SessionSettings,
    pub(super) http: HttpLimits,
    replay: Option<Arc<dyn ReplayStore>>,
    tasks: Option<super::Tasks>,
    single_use: bool,
    audience: Option<String>,
    state: AppState,
    pub(super) oauth: Option<crate::auth::OAuth>,
    pub(super) tool_scopes: HashMap<String, Vec<String>>,
    pub(super) page_size: Option<usize>,
    pub(super) listen: ListenLimits,
    pub(super) context: super::context::ContextSettings,
}

impl Default for ServerBuilder {
    fn default() -> Self {
        Self {
            name: env!("CARGO_PKG_NAME").to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            title: None,
            instructions: None,
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            signer: None,
            subject: None,
            cache: CacheHints::default(),
            limits: FlowLimits::default(),
            body_limit: DEFAULT_BODY_LIMIT,
            max_json_depth: DEFAULT_MAX_JSON_DEPTH,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            sessions: SessionSettings::default(),
            http: HttpLimits::default(),
            replay: None,
            tasks: None,
            single_use: false,
            audience: None,
            state: AppState::default(),
            oauth: None,
            tool_scopes: HashMap::new(),
            page_size: None,
            listen: ListenLimits {
                per_owner: super::DEFAULT_MAX_LISTENERS_PER_OWNER,
                total: super::DEFAULT_MAX_LISTENERS,
                queue: super::LISTEN_QUEUE,
            },
            context: super::context::ContextSettings::default(),
        }
    }
}

impl ServerBuilder {
    /// The server's name, as `server/discover` reports it.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The server's version, as `server/discover` reports it.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// A human-readable title for the server.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Natural-language guidance for clients about the server, sent in `server/discover`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Offers the tasks extension with these settings (where tasks are kept, how long, how
    /// often they may be polled): see [`Tasks`](super::Tasks). A server with a
    /// [`task`](super::task) tool and no call of this keeps its tasks in process with the
    /// default settings.
    pub fn tasks(mut self, tasks: super::Tasks) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// Registers a tool. `tools/list` lists tools in registration order.
    pub fn tool<M>(mut self, tool: impl IntoToolHandler<M>) -> Self {
        self.tools.push(Arc::new(tool.into_tool_handler()));
        self
    }

    /// Registers a prompt. `prompts/list` lists prompts in registration order.
    pub fn prompt<M>(mut self, prompt: impl IntoPromptHandler<M>) -> Self {
        self.prompts.push(Arc::new(prompt.into_prompt_handler()));
        self
    }

    /// Registers a resource or resource template. Reads go to the first registered handler
    /// whose [`matches`](ResourceHandler::matches) accepts the URI.
    pub fn resource<M>(mut self, resource: impl IntoResourceHandler<M>) -> Self {
        self.resources
            .push(Arc::new(resource.into_resource_handler()));
        self
    }

    /// Registers handlers already shared (the testing driver's).
    pub(crate) fn handlers(
        mut self,
        tool: Option<Arc<dyn ToolHandler>>,
        prompt: Option<Arc<dyn PromptHandler>>,
        resource: Option<Arc<dyn ResourceHandler>>,
    ) -> Self {
        self.tools.extend(tool);
        self.prompts.extend(prompt);
        self.resources.extend(resource);
        self
    }

    /// The signer that mints and verifies request states. Without one, the server uses a
    /// random key: states then survive no restart and verify on no other instance.
    pub fn signer(mut self, signer: Signer) -> Self {
        self.signer = Some(signer);
        self
    }

    /// A hook that derives the caller's subject from an HTTP request's parts (for example
    /// from an `Authorization` header validated by the application, or from a request
    /// extension set by an authentication layer). States are bound to this subject.
    /// Requests that must be refused are best refused by a layer in front of the router.
    /// With [`oauth`](Self::oauth) too, the hook runs after the token is verified, sees its
    /// claims in the extensions, and its answer wins over the token's subject
    /// ([`crate::auth`], Subjects).
    pub fn subject(
        mut self,
        hook: impl Fn(&axum::http::request::Parts) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.subject = Some(Arc::new(hook));
        self
    }

    /// Caching hints on list results and `resources/read` (default: `ttlMs: 0`, `private`).
    pub fn cache_hints(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
        self.cache = CacheHints {
            ttl_ms,
            cache_scope: scope,
        };
        self
    }

    /// Limits on multi-round flows (default: [`FlowLimits::default`]).
    pub fn flow_limits(mut self, limits: FlowLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The largest HTTP request body accepted, in bytes (default [`DEFAULT_BODY_LIMIT`]);
    /// larger bodies are answered `413`. The stdio transport applies it per line.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// How deeply the client's answers and tool and prompt arguments may nest JSON arrays and
    /// objects (default [`DEFAULT_MAX_JSON_DEPTH`]). The limit is checked on the raw message,
    /// before it is parsed, as `depth + 4` levels: room for the envelope around an answer's
    /// content (arguments, two levels in, get two levels more). A message nested deeper is
    /// refused with `-32600` (HTTP 400), so the cost of any message stays proportional to its
    /// size.
    pub fn max_json_depth(mut self, depth: usize) -> Self {
        self.max_json_depth = depth;
        self
    }

    /// Accepts HTTP requests whose `Host` is `host` (with or without a port), besides
    /// `localhost`, `127.0.0.1` and `[::1]`. `"*"` accepts every host, which disables the
    /// DNS-rebinding protection: use it only behind a proxy that checks hosts itself.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into().to_ascii_lowercase());
        self
    }

    /// Accepts HTTP requests carrying `Origin: origin` (for example
    /// `"https://app.example.com"`), besides local origins.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins
            .push(origin.into().to_ascii_lowercase());
        self
    }

    /// The store that makes request states single-use (see [`ServerBuilder::single_use`] and
    /// `#[tool(single_use)]`): a [`MemoryReplayStore`] for one instance, a `RedisReplayStore`
    /// for several. Without one, handlers marked single-use get an in-process store.
    pub fn replay_store(mut self, store: impl ReplayStore) -> Self {
        self.replay = Some(Arc::new(store));
        self
    }

    /// Makes every state the server hands out single-use, not only those of handlers marked
    /// `#[tool(single_use)]` (default: off, since each echoed state then costs a store round
    /// trip). A state used again with other answers is refused; with the same answers (a
    /// retry after a lost response) it gets the first use's reply, and no handler code runs
    /// again, even when the first use's client went away mid-round ([a round cut
    /// off](crate::state::ReplayStore#a-round-cut-off)).
    pub fn single_use(mut self, on: bool) -> Self {
        self.single_use = on;
        self
    }

    /// The server's identity in the binding of its states (default: its name), so that two
    /// services sharing a key and a tool name do not accept each other's states.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Registers a value of application state, handed to every handler that takes a
    /// [`State<T>`](crate::State) parameter (and to [`Cx::state`](crate::Cx::state)). One
    /// value per type: registering a type again replaces its value. The value is shared, never
    /// copied and never part of a request state. See [`app_state`](super::app_state).
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// Replaces the application state with `state` (the flow tester's, shared by its rounds).
    pub(crate) fn app_state(mut self, state: AppState) -> Self {
        self.state = state;
        self
    }

    /// Builds the server.
    ///
    /// # Panics
    ///
    /// On any [`BuildError`]: two tools or two prompts that share a name, a tool name that is
    /// not 1 to 128 characters of `A-Z a-z 0-9 _ - .`, a handler taking `State<T>` for a type
    /// never registered, a structured result whose schema is not an object,
    /// [`tool_scopes`](Self::tool_scopes) for an unknown tool or without
    /// [`oauth`](Self::oauth). All are
    /// programming errors; [`try_build`](Self::try_build) returns them instead.
    pub fn build(self) -> Server {
        self.try_build().unwrap_or_else(|error| panic!("{error}"))
    }

    /// Builds the server, or says which registration is wrong.
    pub fn try_build(mut self) -> Result<Server, BuildError> {
        let cache = self.cache;
        let discovered = discover_result(&self);
        let legacy = LegacyInfo::new(&self);
        // Handlers may take `State<Registry>`: the server's own handle is inserted below.
        self.state.insert(Registry::of(std::sync::Weak::new()));
        let entries = entries(&self)?;
        let context = std::mem::take(&mut self.context).checked(&legacy.server_info)?;
        let audience = self.audience.clone().unwrap_or_else(|| self.name.clone());
        let offered = tasks_offered(&self);
        let marked = self.tools.iter().any(|tool| tool.single_use())
            || self.prompts.iter().any(|prompt| prompt.single_use())
            || self.resources.iter().any(|resource| resource.single_use());
        let replay = match self.replay {
            Some(store) => Some(store),
            None if marked || self.single_use => Some(Arc::new(MemoryReplayStore::new()) as _),
            None => None,
        };
        let replay = super::single_use::Replay::new(replay, self.http.max_concurrent_requests);
        let signer = self.signer.unwrap_or_else(|| {
            tracing::warn!("no request-state signer configured; using a random key");
            Signer::random().expect("a random key is long enough")
        });
        let tool_index = entries
            .tools
            .iter()
            .enumerate()
            .map(|(position, tool)| (tool.entry.key.clone(), position))
            .collect();
        let tasks = offered.then(|| {
            let settings = self.tasks.take().unwrap_or_default();
            Arc::new(super::tasks::Hub::new(settings, Arc::clone(signer.clock())))
        });
        let auth = super::oauth::resource_server(
            self.oauth.take(),
            std::mem::take(&mut self.tool_scopes),
            &tool_index,
        )?;
        let registry = Store::new(
            entries,
            Settings {
                cache,
                page_size: self.page_size,
                discover: discovered,
                // 2026-07-28 lists carry the server's identity; legacy ones none.
                server_info: context.server_info().cloned(),
                tasks: offered,
            },
        );
        let mut subscriptions = Subscriptions::new(self.listen, self.sessions.max_subscriptions);
        if tasks.is_some() {
            subscriptions.accept_field(super::tasks::listen_field());
        }
        let mut state = self.state;
        // The flows' own limits travel with the state every round's driver is handed, not
        // in every request.
        state.set_flow_limits(self.limits);
        let inner = Arc::new_cyclic(|weak| {
            state.insert(Registry::of(weak.clone()));
            if let Some(tasks) = &tasks {
                tasks.attach(weak.clone());
            }
            Inner {
                registry,
                subscriptions,
                legacy,
                sessions: Sessions::new(self.sessions),
                signer,
                subject: self.subject,
                cache,
                limits: self.limits,
                body_limit: self.body_limit,
                max_json_depth: self.max_json_depth,
                allowed_hosts: self.allowed_hosts,
                allowed_origins: self.allowed_origins,
                http: HttpState::new(self.http),
                replay,
                single_use_all: self.single_use,
                audience,
                state,
                auth,
                context,
                tasks,
            }
        });
        Ok(Server { inner })
    }
}

/// The registry's entries for the builder's handlers, each checked as at run time.
fn entries(builder: &ServerBuilder) -> Result<Entries, BuildError> {
    let mut entries = Entries::default();
    let tools: Vec<Tool> = builder.tools.iter().map(|tool| tool.definition()).collect();
    index_by_name(tools.iter().map(|tool| tool.name.as_str()), "tool")?;
    for (definition, handler) in tools.into_iter().zip(&builder.tools) {
        check_tool(&definition)?;
        check_state(&builder.state, &definition.name, &handler.required_state())?;
        let marks = header_marks(&definition)?;
        entries.tools.push(ToolEntry {
            entry: entry(definition.name.clone(), definition, handler),
            marks,
        });
    }
    let prompts: Vec<Prompt> = builder
        .prompts
        .iter()
        .map(|prompt| prompt.definition())
        .collect();
    index_by_name(prompts.iter().map(|prompt| prompt.name.as_str()), "prompt")?;
    for (definition, handler) in prompts.into_iter().zip(&builder.prompts) {
        check_state(&builder.state, &definition.name, &handler.required_state())?;
        entries
            .prompts
            .push(entry(definition.name.clone(), definition, handler));
    }
    for handler in &builder.resources {
        let definition = handler.definition();
        let key = match &definition {
            ResourceDefinition::Resource(resource) => resource.uri.clone(),
            ResourceDefinition::Template(template) => template.uri_template.clone(),
        };
        check_state(&builder.state, &key, &handler.required_state())?;
        entries.resources.push(entry(key, definition, handler));
    }
    Ok(entries)
}

fn entry<H: ?Sized, D>(key: String, definition: D, handler: &Arc<H>) -> Entry<H, D> {
    Entry {
        key,
        definition,
        handler: Arc::clone(handler),
        enabled: true,
    }
}

/// Everything a built server holds; shared by every clone of the [`Server`].
pub(crate) struct Inner {
    /// The handlers, which the application may change while the server runs.
    pub(crate) registry: Store,
    /// The listen streams, and what they may ask for.
    pub(crate) subscriptions: Subscriptions,
    /// What legacy sessions are told about the server.
    pub(crate) legacy: LegacyInfo,
    pub(crate) sessions: Sessions,
    pub(crate) signer: Signer,
    pub(crate) subject: Option<Arc<SubjectHook>>,
    pub(crate) cache: CacheHints,
    pub(crate) limits: FlowLimits,
    pub(crate) body_limit: usize,
    pub(crate) max_json_depth: usize,
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) http: HttpState,
    /// Where single use is recorded; `None` when no handler needs it.
    pub(crate) replay: Option<super::single_use::Replay>,
    /// The tasks extension, when offered.
    pub(crate) tasks: Option<Arc<super::tasks::Hub>>,
    /// Every handler's states are single-use.
    pub(crate) single_use_all: bool,
    /// The server's identity in its states' binding.
    pub(crate) audience: String,
    /// Application state, handed to every round of every handler.
    pub(crate) state: AppState,
    /// The OAuth resource server, when configured.
    pub(crate) auth: Option<crate::auth::ResourceServer>,
    /// Which headers handlers see; whether results carry the server's identity.
    pub(crate) context: super::context::ContextSettings,
}

/// What a legacy session's `initialize` is told besides its capabilities (which follow the
/// registry).
pub(crate) struct LegacyInfo {
    pub(crate) server_info: Implementation,
    pub(crate) instructions: Option<String>,
}

impl LegacyInfo {
    fn new(builder: &ServerBuilder) -> Self {
        let mut server_info = Implementation::new(&builder.name, &builder.version);
        server_info.title.clone_from(&builder.title);
        Self {
            server_info,
            instructions: builder.instructions.clone(),
        }
    }
}

/// Whether the server offers the tasks extension: configured, or needed by a tool.
fn tasks_offered(builder: &ServerBuilder) -> bool {
    builder.tasks.is_some()
        || builder
            .tools
            .iter()
            .any(|tool| tool.task_support() != super::TaskSupport::Never)
}

fn discover_result(builder: &ServerBuilder) -> DiscoverResult {
    let mut server_info = Implementation::new(&builder.name, &builder.version);
    server_info.title.clone_from(&builder.title);
    DiscoverResult {
        supported_versions: super::SUPPORTED_VERSIONS
            .iter()
            .map(|&version| version.to_owned())
            .collect(),
        instructions: builder.instructions.clone(),
        cache: builder.cache,
        meta: Some(ResultMeta {
            server_info: Some(server_info),
            ..Default::default()
        }),
        ..Default::default()
    }
}
