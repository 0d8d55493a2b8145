//! What an exploration found: the points reached and the paths reaching them, how each path
//! ended, and the findings with the answers that reproduce them.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use crate::graph::FlowGraph;
use crate::protocol::ErrorObject;

/// A question point, known by the input keys one round asks (in key order).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PointKeys(pub(super) Vec<String>);

impl PointKeys {
    /// The keys asked at this point.
    pub fn keys(&self) -> &[String] {
        &self.0
    }

    /// Whether this is the graph's point `point`: each of its keys is asked here, a
    /// sub-flow call's key as the scope of the keys its questions are asked under
    /// (`placed` as `placed.answer`), and nothing else is.
    pub fn is_node(&self, point: &crate::graph::Point) -> bool {
        let under = |key: &str, scope: &str| {
            key == scope
                || key
                    .strip_prefix(scope)
                    .is_some_and(|rest| rest.starts_with('.'))
        };
        point
            .keys
            .iter()
            .all(|scope| self.0.iter().any(|key| under(key, scope)))
            && self
                .0
                .iter()
                .all(|key| point.keys.iter().any(|scope| under(key, scope)))
    }

    /// Whether this point asks exactly `keys` (in any order).
    pub fn is(&self, keys: &[&str]) -> bool {
        self.0.len() == keys.len() && keys.iter().all(|key| self.0.iter().any(|k| k == key))
    }
}

impl fmt::Display for PointKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys: Vec<String> = self.0.iter().map(|key| format!("`{key}`")).collect();
        f.write_str(&keys.join(" + "))
    }
}

/// How a path ended.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Ending {
    /// The call completed with this result (as it goes on the wire).
    Complete(Value),
    /// The server refused an answer out of bounds and asked again, as it must; the path
    /// stops there.
    Reasked,
    /// The call failed with this JSON-RPC error.
    Error(ErrorObject),
    /// This point was reached more often on the path than the loop bound allows.
    LoopBound(PointKeys),
    /// The path took as many rounds as the round bound allows and was still asking.
    RoundBound,
    /// The path was stopped here, where the flow went on after an answer it should have
    /// refused (a [`FindingKind::NotAskedAgain`]).
    Stopped(PointKeys),
}

/// One path through a flow: the answers given round after round, the points asked, and how
/// it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    pub(super) answers: Vec<Value>,
    pub(super) points: Vec<PointKeys>,
    pub(super) ending: Ending,
}

impl Path {
    /// The answers given, one `inputResponses` object per round after the first: what
    /// [`FlowTester::script`](crate::testing::FlowTester::script) takes to walk this path again.
    pub fn answers(&self) -> &[Value] {
        &self.answers
    }

    /// The points asked, round after round (the last one unanswered unless the path
    /// completed or failed after answering it).
    pub fn points(&self) -> &[PointKeys] {
        &self.points
    }

    /// How the path ended.
    pub fn ending(&self) -> &Ending {
        &self.ending
    }

    /// Whether the path asks the point of exactly `keys`.
    pub fn reaches(&self, keys: &[&str]) -> bool {
        self.points.iter().any(|point| point.is(keys))
    }

    /// A `FlowTester::script` call walking this path again, ready to paste into a test
    /// (`tester` being the tester explored).
    pub fn script(&self) -> String {
        let mut out = String::from("let rounds = tester\n    .script([\n");
        for answers in &self.answers {
            out.push_str(&format!("        json!({answers}),\n"));
        }
        out.push_str("    ])\n    .await;");
        out
    }
}

/// Something wrong an exploration found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FindingKind {
    /// The handler panicked (the server answered `-32603`); the panic's message.
    Panic(String),
    /// The call failed with `-32603` without a panic; the error's message.
    InternalError(String),
    /// The result does not match the tool's `outputSchema`; what is wrong.
    OutputSchema(String),
    /// An answer out of bounds under these keys was not refused and asked again.
    NotAskedAgain(Vec<String>),
}

/// Something wrong an exploration found, and the path that shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub(super) kind: FindingKind,
    pub(super) path: Path,
}

impl Finding {
    /// What is wrong.
    pub fn kind(&self) -> &FindingKind {
        &self.kind
    }

    /// The path that shows it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The test lines that walk the path again and show the finding, ready to paste into a
    /// test (`tester` being the tester explored).
    pub fn reproduction(&self) -> String {
        let check = match &self.kind {
            FindingKind::Panic(_) | FindingKind::InternalError(_) => {
                "let last = rounds.last().and_then(|round| round.error());\n\
                 assert_eq!(last.map(|error| error.code.0), Some(-32603));"
                    .to_owned()
            }
            FindingKind::OutputSchema(_) => {
                "// `script` panics: the result does not match the `outputSchema`".to_owned()
            }
            FindingKind::NotAskedAgain(keys) => format!(
                "// the last round should ask {} again",
                keys.iter()
                    .map(|key| format!("`{key}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!("{}\n{check}", self.path.script())
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Panic(message) => write!(f, "the handler panicked: {message}"),
            Self::InternalError(message) => write!(f, "internal error (-32603): {message}"),
            Self::OutputSchema(violation) => f.write_str(violation),
            Self::NotAskedAgain(keys) => write!(
                f,
                "an answer out of bounds under {} was taken, not asked again",
                keys.join(", ")
            ),
        }
    }
}

/// What [`FlowTester::explore`](crate::testing::FlowTester::explore) found.
///
/// Its `Display` is a summary for a test's failure message: the points reached, how the
/// paths ended, and each finding with the answers that reproduce it.
#[derive(Debug, Clone)]
pub struct Report {
    pub(super) target: String,
    pub(super) paths: Vec<Path>,
    pub(super) findings: Vec<Finding>,
    pub(super) rounds: usize,
    pub(super) unexplored: usize,
    pub(super) graph: Option<&'static FlowGraph>,
}

impl Report {
    /// Every path walked, in the order they ended.
    pub fn paths(&self) -> &[Path] {
        &self.paths
    }

    /// The findings, in the order they were found.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The points reached, in key order.
    pub fn points(&self) -> Vec<&PointKeys> {
        let mut points: Vec<&PointKeys> = self.paths.iter().flat_map(|path| &path.points).collect();
        points.sort();
        points.dedup();
        points
    }

    /// Whether some path reached the point asking exactly `keys`.
    pub fn reached(&self, keys: &[&str]) -> bool {
        self.paths.iter().any(|path| path.reaches(keys))
    }

    /// The paths reaching the point asking exactly `keys`.
    pub fn paths_reaching<'a>(&'a self, keys: &'a [&'a str]) -> impl Iterator<Item = &'a Path> {
        self.paths.iter().filter(move |path| path.reaches(keys))
    }

    /// The paths that took as many rounds as the round bound allows and were still asking.
    pub fn round_bound(&self) -> impl Iterator<Item = &Path> {
        self.paths
            .iter()
            .filter(|path| path.ending == Ending::RoundBound)
    }

    /// The static flow graph of the handler explored, if it has one (see
    /// [`graph`](crate::graph)).
    pub fn graph(&self) -> Option<&'static FlowGraph> {
        self.graph
    }

    /// The question points of the handler's flow graph that no path reached, in their
    /// numbers' order; `None` when the handler has no graph. A point can stay unreached
    /// because no answer leads there, or because a bound or the path budget stopped the
    /// paths that would have ([`unexplored`](Self::unexplored) says whether the budget did).
    pub fn unreached(&self) -> Option<Vec<&'static crate::graph::Point>> {
        let graph = self.graph?;
        let reached = self.points();
        Some(
            graph
                .points()
                .filter(|node| !reached.iter().any(|point| point.is_node(node)))
                .collect(),
        )
    }

    /// The points of the handler's flow graph that `point` is (one, unless several points
    /// ask the same keys); empty when the handler has no graph.
    pub fn nodes(&self, point: &PointKeys) -> Vec<&'static crate::graph::Point> {
        self.graph
            .map(|graph| graph.points().filter(|node| point.is_node(node)).collect())
            .unwrap_or_default()
    }

    /// The rounds sent, over all paths.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// The branches left unwalked because the path budget ran out (0 when every branch
    /// within the bounds was walked).
    pub fn unexplored(&self) -> usize {
        self.unexplored
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "explored {}: {} paths, {} rounds; {} branches left for the path budget",
            self.target,
            self.paths.len(),
            self.rounds,
            self.unexplored
        )?;
        writeln!(f, "points reached:")?;
        for point in self.points() {
            let reaching: Vec<&Path> = self
                .paths
                .iter()
                .filter(|p| p.points.contains(point))
                .collect();
            let shortest = reaching
                .iter()
                .map(|path| path.points.iter().position(|p| p == point).unwrap_or(0))
                .min()
                .unwrap_or(0);
            let numbers: Vec<String> = self
                .nodes(point)
                .iter()
                .map(|node| node.number.to_string())
                .collect();
            let node = match numbers.len() {
                0 => String::new(),
                _ => format!(" (graph point {})", numbers.join(", ")),
            };
            writeln!(
                f,
                "  {point}{node}: on {} paths, first asked in round {}",
                reaching.len(),
                shortest + 1
            )?;
        }
        match self.unreached() {
            None => writeln!(f, "points never reached: no flow graph to compare with")?,
            Some(unreached) if unreached.is_empty() => {
                writeln!(f, "points never reached: none of the flow graph's")?;
            }
            Some(unreached) => {
                writeln!(f, "points never reached, of the flow graph's:")?;
                for point in unreached {
                    let keys = PointKeys(point.keys.clone());
                    writeln!(f, "  point {}: {keys}", point.number)?;
                }
            }
        }
        let mut endings: BTreeMap<&str, usize> = BTreeMap::new();
        for path in &self.paths {
            let name = match &path.ending {
                Ending::Complete(_) => "complete",
                Ending::Reasked => "asked again after an answer out of bounds",
                Ending::Error(_) => "error",
                Ending::LoopBound(_) => "stopped at the loop bound",
                Ending::RoundBound => "stopped at the round bound",
                Ending::Stopped(_) => "stopped after an answer out of bounds was taken",
            };
            *endings.entry(name).or_default() += 1;
        }
        writeln!(f, "endings:")?;
        for (name, count) in endings {
            writeln!(f, "  {name}: {count}")?;
        }
        if let Some(path) = self.round_bound().next() {
            writeln!(f, "a path at the round bound:\n{}", indent(&path.script()))?;
        }
        writeln!(f, "findings: {}", self.findings.len())?;
        for (number, finding) in self.findings.iter().enumerate() {
            writeln!(f, "{}.\n{}", number + 1, indent(&finding.kind.to_string()))?;
            writeln!(f, "  reproduced by:\n{}", indent(&finding.reproduction()))?;
        }
        Ok(())
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|line| format!("    {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}
