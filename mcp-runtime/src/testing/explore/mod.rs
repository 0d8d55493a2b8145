//! [`FlowTester::explore`]: every path of a flow, walked through the server's own dispatch.
//!
//! The explorer answers each round the way a user could: from each form's `requestedSchema`
//! as it goes on the wire, it draws every choice, booleans both ways, number bounds and one
//! value beyond each, defaults, absent optional fields, short strings and strings at their
//! maximum length; and it declines and cancels every question. It walks the paths breadth
//! first from one signed state to the next, so each branch starts from the state the server
//! handed out, as a client retrying would.

use std::collections::{BTreeMap, VecDeque};

use serde_json::{Value, json};
use tracing::dispatcher::Dispatch;
use tracing::instrument::WithSubscriber;

use super::{FlowTester, Host, Outcome, Target, schema};
use crate::graph::FlowGraph;

mod combine;
mod form;
mod panics;
mod question;
mod report;

pub use report::{Ending, Finding, FindingKind, Path, PointKeys, Report};

use panics::Panics;
use question::Answers;

/// How [`FlowTester::explore`] walks a flow: its bounds, and the answers it gives where a
/// form's schema says nothing (sampling, roots, or a key the caller answers itself).
///
/// Strings are tried up to 4,096 characters: a field allowing more is not tried at its
/// maximum length, nor past it.
///
/// ```
/// use mcp_runtime::testing::{Explore, accept};
/// use serde_json::json;
///
/// let options = Explore::new()
///     .max_rounds(8)
///     .max_paths(500)
///     .loop_bound(2)
///     .answers("ticket", [accept(json!({"id": "T-1"}))]);
/// # let _ = options;
/// ```
#[derive(Debug, Clone)]
pub struct Explore {
    max_rounds: usize,
    max_paths: usize,
    loop_bound: usize,
    max_combinations: usize,
    answers: BTreeMap<String, Vec<Value>>,
    sampling: Vec<Value>,
    roots: Vec<Value>,
}

impl Default for Explore {
    fn default() -> Self {
        Self::new()
    }
}

impl Explore {
    /// The defaults: 12 rounds a path, 1,000 paths, a point asked at most 3 times a path,
    /// 16 combinations of a form's choices and of a round's questions.
    pub fn new() -> Self {
        Self {
            max_rounds: 12,
            max_paths: 1000,
            loop_bound: 3,
            max_combinations: 16,
            answers: BTreeMap::new(),
            sampling: vec![json!({
                "role": "assistant",
                "content": {"type": "text", "text": "A reply from the model."},
                "model": "explorer",
            })],
            roots: vec![
                json!({"roots": []}),
                json!({"roots": [{"uri": "file:///home/user/project", "name": "project"}]}),
            ],
        }
    }

    /// The most rounds one path takes, the first included (at least 1): a path still
    /// asking after them stops, and [`Report::round_bound`] lists it.
    #[must_use]
    pub fn max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds.max(1);
        self
    }

    /// The most paths walked (at least 1). Branches beyond it are left, and
    /// [`Report::unexplored`] counts them.
    #[must_use]
    pub fn max_paths(mut self, paths: usize) -> Self {
        self.max_paths = paths.max(1);
        self
    }

    /// How many times one path may reach the same point (at least 1): a loop is unrolled
    /// that many times, and the path stops when it comes round once more.
    #[must_use]
    pub fn loop_bound(mut self, times: usize) -> Self {
        self.loop_bound = times.max(1);
        self
    }

    /// The most combinations tried (at least 1) of a form's choice and boolean fields, and of
    /// the answers to the questions of one round that asks several. Every answer to each
    /// question is still tried at least once; the cap limits how they are combined.
    #[must_use]
    pub fn max_combinations(mut self, combinations: usize) -> Self {
        self.max_combinations = combinations.max(1);
        self
    }

    /// The answers to try to the question under `key` as it goes on the wire (a sub-flow's
    /// question under its scope, such as `placed.answer`), each as a client sends it (such as
    /// [`accept`](super::accept)`(...)` or [`decline`](super::decline)`()`), instead of the
    /// ones drawn from its schema. No answers leaves the drawn ones.
    #[must_use]
    pub fn answers(
        mut self,
        key: impl Into<String>,
        answers: impl IntoIterator<Item = Value>,
    ) -> Self {
        let answers: Vec<Value> = answers.into_iter().collect();
        if !answers.is_empty() {
            self.answers.insert(key.into(), answers);
        }
        self
    }

    /// The results to try for every sampling question (`sampling/createMessage`); by default
    /// one text reply. No results leaves the default.
    #[must_use]
    pub fn sampling(mut self, results: impl IntoIterator<Item = Value>) -> Self {
        let results: Vec<Value> = results.into_iter().collect();
        if !results.is_empty() {
            self.sampling = results;
        }
        self
    }

    /// The results to try for every roots question (`roots/list`); by default no roots, and
    /// one root. No results leaves the default.
    #[must_use]
    pub fn roots(mut self, results: impl IntoIterator<Item = Value>) -> Self {
        let results: Vec<Value> = results.into_iter().collect();
        if !results.is_empty() {
            self.roots = results;
        }
        self
    }
}

/// A path walked so far.
#[derive(Debug, Clone, Default)]
struct Walked {
    answers: Vec<Value>,
    points: Vec<PointKeys>,
}

impl Walked {
    fn end(self, ending: Ending) -> Path {
        Path {
            answers: self.answers,
            points: self.points,
            ending,
        }
    }
}

/// A path that stopped at a question, to be continued with each answer to it.
struct Open {
    walked: Walked,
    state: Option<String>,
    /// The questions asked, by key, as they went on the wire.
    requests: Vec<(String, Value)>,
}

impl FlowTester {
    /// Walks every path of the flow within the bounds of `options`, each round through the
    /// server's own dispatch with the states it signs, and reports the points reached, the
    /// paths reaching them, and what went wrong: panics, `-32603` errors, results that do
    /// not match the tool's `outputSchema`, and answers out of bounds that were not asked
    /// again. Each finding comes with the answers that reproduce it, for a
    /// [`script`](Self::script) test.
    ///
    /// Paths branch from the state a round handed out, so the server must take a state more
    /// than once: a server with single-use states (a [`ServerTester`](super::ServerTester)
    /// over one) answers the second branch with an error. While a round runs, the explorer
    /// reads the server's log for panics and hands every event on to the subscriber in place.
    ///
    /// ```
    /// use mcp_runtime::testing::{Explore, FlowTester};
    /// use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
    ///
    /// #[derive(ElicitForm)]
    /// struct Confirm {
    ///     ok: bool,
    /// }
    ///
    /// /// Delete everything, once confirmed.
    /// #[tool]
    /// async fn wipe(cx: Cx) -> ToolResult {
    ///     let confirm: Confirm = cx.elicit("Really?").await?;
    ///     Ok(text(if confirm.ok { "Wiped." } else { "Kept." }))
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let report = FlowTester::tool(wipe).explore(&Explore::new()).await;
    /// assert!(report.findings().is_empty(), "{report}");
    /// assert!(report.reached(&["confirm"]));
    /// // Accept both ways, decline, cancel.
    /// assert_eq!(report.paths().len(), 4);
    /// # });
    /// ```
    pub async fn explore(&self, options: &Explore) -> Report {
        let panics = Panics::default();
        let mut walk = Walk {
            tester: self,
            options,
            dispatch: panics.dispatch(),
            panics,
            paths: Vec::new(),
            findings: Vec::new(),
            rounds: 0,
            unexplored: 0,
            open: VecDeque::new(),
        };
        let first = walk.send(None, None).await;
        walk.settle(Walked::default(), first, &[]);
        while let Some(open) = walk.open.pop_front() {
            let answers = question::round(&open.requests, options);
            // The open path is one of the paths the budget counts; its branches replace it.
            let used = walk.paths.len() + walk.open.len();
            let room = options.max_paths.saturating_sub(used).max(1);
            walk.unexplored += answers.len().saturating_sub(room);
            for Answers { responses, invalid } in answers.into_iter().take(room) {
                let outcome = walk.send(open.state.clone(), Some(responses.clone())).await;
                let mut walked = open.walked.clone();
                walked.answers.push(responses);
                walk.settle(walked, outcome, &invalid);
            }
        }
        let target = match &self.target {
            Target::Tool(name) => format!("the tool `{name}`"),
            Target::Prompt(name) => format!("the prompt `{name}`"),
            Target::Resource(uri) => format!("the resource `{uri}`"),
        };
        Report {
            target,
            paths: walk.paths,
            findings: walk.findings,
            rounds: walk.rounds,
            unexplored: walk.unexplored,
            graph: self.flow_graph(),
        }
    }

    /// The flow graph of the handler under test, if it has one.
    fn flow_graph(&self) -> Option<&'static FlowGraph> {
        let graphs = self.server().flow_graphs();
        match &self.target {
            Target::Tool(name) => graphs.tools.get(name).copied(),
            Target::Prompt(name) => graphs.prompts.get(name).copied(),
            // A resource is registered under its URI or its URI template: a tester made from
            // one resource knows which, a server's tester finds it by its URI alone.
            Target::Resource(uri) => match (&self.host, graphs.resources.len()) {
                (Host::Own { .. }, 1) => graphs.resources.values().next().copied(),
                _ => graphs.resources.get(uri).copied(),
            },
        }
    }
}

/// One exploration under way.
struct Walk<'a> {
    tester: &'a FlowTester,
    options: &'a Explore,
    /// The subscriber every round runs under, made once: making one registers it with
    /// every callsite of the process.
    dispatch: Dispatch,
    panics: Panics,
    paths: Vec<Path>,
    findings: Vec<Finding>,
    rounds: usize,
    unexplored: usize,
    open: VecDeque<Open>,
}

/// What one round came to, with the panics logged while it ran.
struct Sent {
    outcome: Outcome,
    panics: Vec<String>,
}

impl Walk<'_> {
    async fn send(&mut self, state: Option<String>, answers: Option<Value>) -> Sent {
        self.rounds += 1;
        let (outcome, _) = self
            .tester
            .exchange(state, answers)
            .with_subscriber(self.dispatch.clone())
            .await;
        Sent {
            outcome,
            panics: self.panics.take(),
        }
    }

    /// Ends `walked` or leaves it open, from what its last round came to; `invalid` are the
    /// keys whose answer that round the server had to refuse.
    fn settle(&mut self, mut walked: Walked, sent: Sent, invalid: &[String]) {
        let mut found = Vec::new();
        let reasked = |asked: &PointKeys| invalid.iter().all(|key| asked.0.contains(key));
        let ending = match sent.outcome {
            Outcome::Asked { requests, state } => {
                let point = PointKeys(requests.keys().cloned().collect());
                let times = walked.points.iter().filter(|p| **p == point).count() + 1;
                walked.points.push(point.clone());
                if !invalid.is_empty() {
                    // An answer refused is no new branch: the rest is walked from before it.
                    if reasked(&point) {
                        Ending::Reasked
                    } else {
                        found.push(FindingKind::NotAskedAgain(invalid.to_vec()));
                        Ending::Stopped(point)
                    }
                } else if times > self.options.loop_bound {
                    Ending::LoopBound(point)
                } else if walked.answers.len() + 1 >= self.options.max_rounds {
                    Ending::RoundBound
                } else {
                    let requests = requests
                        .iter()
                        .map(|(key, request)| {
                            (
                                key.clone(),
                                serde_json::to_value(request).unwrap_or_default(),
                            )
                        })
                        .collect();
                    self.open.push_back(Open {
                        walked,
                        state,
                        requests,
                    });
                    return;
                }
            }
            Outcome::Complete(result) => {
                if !invalid.is_empty() {
                    found.push(FindingKind::NotAskedAgain(invalid.to_vec()));
                }
                if let Target::Tool(name) = &self.tester.target
                    && let Some(violation) = schema::violation(&self.tester.server(), name, &result)
                {
                    found.push(FindingKind::OutputSchema(violation));
                }
                Ending::Complete(result)
            }
            Outcome::Error(error) => {
                if !invalid.is_empty() {
                    found.push(FindingKind::NotAskedAgain(invalid.to_vec()));
                }
                if let Some(panic) = sent.panics.into_iter().next() {
                    found.push(FindingKind::Panic(panic));
                } else if error.code == crate::protocol::ErrorCode::INTERNAL_ERROR {
                    found.push(FindingKind::InternalError(error.message.clone()));
                }
                Ending::Error(error)
            }
        };
        let path = walked.end(ending);
        self.findings.extend(found.into_iter().map(|kind| Finding {
            kind,
            path: path.clone(),
        }));
        self.paths.push(path);
    }
}
