//! Target 3: the answer parser of every form of the examples, two ways.
//!
//! - **Parser differential** (first byte below 128): the rest of the input, as JSON content,
//!   goes to `from_content` of one of the example crate's forms, and the verdict is compared
//!   with a JSON Schema validator's (boon, formats asserted) on the form's own requested
//!   schema.
//! - **Flows** (first byte from 128): a call of the example or conformance server that asks
//!   for input (every tool and prompt of both that does, found through their lists) runs
//!   round by round on the 2026-07-28 wire, each round answered from one NUL-separated
//!   segment of the input: `r` + raw `inputResponses` JSON; `c` + content JSON, given as an
//!   accepted answer to every question asked (or as the whole answer to a sampling or roots
//!   request); `a` + a whole answer JSON to every question. Every round must end in a
//!   question, a result or a client error, never an internal one; and when one form was
//!   asked and answered with content, whether the server took it (went on) or re-asked
//!   ("Please correct") is compared with the validator's verdict on the schema it sent.
//!
//! Both comparisons read the content as the documented decisions do (`mcp_runtime::form`): a
//! `null` field is absent, and a missing required field with a default takes the default.
//! Content taken must be valid; valid content must be taken, except where a documented rule
//! goes beyond what the wire schema can state (an integer no 64-bit type holds, a value
//! picked twice in a multi-select). A parsed form's
//! `to_content` must parse back to itself.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

use mcp_runtime::ElicitForm;
use mcp_runtime::server::Server;
use serde_json::{Map, Value, json};

use crate::Target;
use crate::oracle;
use crate::servers;

/// The target.
pub const TARGET: Target = Target {
    name: "forms",
    run,
    seeds,
    dictionary: DICTIONARY,
};

/// The most rounds one input drives.
const MAX_ROUNDS: usize = 8;

/// A form's answer content.
type Content = Map<String, Value>;

/// A form of the example crate, with its schema and a type-erased parser.
struct Form {
    name: &'static str,
    schema: Value,
    /// `from_content`, then `to_content` of what it parsed.
    parse: fn(&Content) -> Result<Content, String>,
}

impl Form {
    fn of<T: ElicitForm>(name: &'static str) -> Self {
        Self {
            name,
            schema: serde_json::to_value(T::requested_schema()).expect("a schema serialises"),
            parse: |content| {
                T::from_content(content)
                    .map(|parsed| parsed.to_content())
                    .map_err(|errors| errors.to_string())
            },
        }
    }
}

/// A call that asks for input.
struct Flow {
    server: usize,
    method: &'static str,
    params: Value,
}

struct Fixtures {
    servers: Vec<Server>,
    flows: Vec<Flow>,
    forms: Vec<Form>,
}

thread_local! {
    static RUNTIME: tokio::runtime::Runtime = super::paused_runtime();
    /// Compiled requested schemas, by their JSON text.
    static VALIDATORS: RefCell<(boon::Schemas, HashMap<String, boon::SchemaIndex>)> =
        RefCell::new((boon::Schemas::new(), HashMap::new()));
}

fn fixtures() -> &'static Fixtures {
    static FIXTURES: OnceLock<Fixtures> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let servers = vec![servers::examples(), servers::conformance()];
        let mut flows = Vec::new();
        for (index, server) in servers.iter().enumerate() {
            for (list, method, key) in [
                ("tools/list", "tools/call", "tools"),
                ("prompts/list", "prompts/get", "prompts"),
            ] {
                let listed = RUNTIME.with(|runtime| {
                    super::modern_round(runtime, server, list, &json!({}), None, None)
                });
                for entry in listed["result"][key].as_array().into_iter().flatten() {
                    let params = json!({"name": entry["name"], "arguments": arguments(entry)});
                    let first = RUNTIME.with(|runtime| {
                        super::modern_round(runtime, server, method, &params, None, None)
                    });
                    if first["result"]["resultType"] == "input_required" {
                        flows.push(Flow {
                            server: index,
                            method,
                            params,
                        });
                    }
                }
            }
        }
        let forms = vec![
            Form::of::<mcp_examples::deploy::Target>("deploy::Target"),
            Form::of::<mcp_examples::deploy::Confirm>("deploy::Confirm"),
            Form::of::<mcp_examples::order::LineItem>("order::LineItem"),
            Form::of::<mcp_examples::order::Confirm>("order::Confirm"),
            Form::of::<mcp_examples::tracker::IssueForm>("tracker::IssueForm"),
            Form::of::<mcp_examples::tracker::PriorityForm>("tracker::PriorityForm"),
            Form::of::<mcp_examples::tracker::CloseConfirm>("tracker::CloseConfirm"),
            Form::of::<mcp_examples::release::Approval>("release::Approval"),
            Form::of::<mcp_examples::release::Publish>("release::Publish"),
        ];
        Fixtures {
            servers,
            flows,
            forms,
        }
    })
}

/// Arguments for a listed tool or prompt: `"x"` for every required string, `{}` otherwise.
fn arguments(entry: &Value) -> Value {
    let mut out = Map::new();
    if let Some(required) = entry["inputSchema"]["required"].as_array() {
        for name in required.iter().filter_map(Value::as_str) {
            out.insert(name.to_owned(), json!("x"));
        }
    }
    for argument in entry["arguments"].as_array().into_iter().flatten() {
        if argument["required"] == true
            && let Some(name) = argument["name"].as_str()
        {
            out.insert(name.to_owned(), json!("x"));
        }
    }
    Value::Object(out)
}

fn run(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let fixtures = fixtures();
    if first < 128 {
        let form = &fixtures.forms[usize::from(first) % fixtures.forms.len()];
        if let Ok(content) = serde_json::from_slice::<Map<String, Value>>(rest) {
            let taken = (form.parse)(&content);
            if let Ok(out) = &taken {
                let again = (form.parse)(out).unwrap_or_else(|error| {
                    panic!(
                        "{}: content it produced is refused: {error}\ncontent: {}",
                        form.name,
                        Value::Object(out.clone())
                    )
                });
                assert_eq!(
                    &again, out,
                    "{}: to_content of a parsed answer does not parse back to itself",
                    form.name
                );
            }
            compare(form.name, &form.schema, &content, taken.map(drop));
        }
    } else if !fixtures.flows.is_empty() {
        let flow = &fixtures.flows[usize::from(first - 128) % fixtures.flows.len()];
        RUNTIME.with(|runtime| drive(runtime, fixtures, flow, rest));
    }
}

/// Compares whether `content` was taken with the validator's verdict on `schema`.
fn compare(name: &str, schema: &Value, content: &Map<String, Value>, taken: Result<(), String>) {
    let normalized = normalize(schema, content);
    let verdict = VALIDATORS.with(|validators| {
        let (schemas, indices) = &mut *validators.borrow_mut();
        let text = schema.to_string();
        let index = match indices.get(&text) {
            Some(index) => *index,
            None => {
                let url = format!("urn:mcp-fuzz:form:{}", indices.len());
                let mut compiler = boon::Compiler::new();
                compiler.enable_format_assertions();
                compiler
                    .add_resource(&url, schema.clone())
                    .expect("a requested schema is a resource");
                let index = compiler.compile(&url, schemas).unwrap_or_else(|error| {
                    panic!("{name}: the requested schema does not compile: {error}\n{schema}")
                });
                indices.insert(text, index);
                index
            }
        };
        schemas
            .validate(&Value::Object(normalized.clone()), index)
            .map_err(|error| format!("{error:#}"))
    });
    let shown = || {
        format!(
            "content: {}\nnormalized: {}\nschema: {schema}",
            Value::Object(content.clone()),
            Value::Object(normalized.clone())
        )
    };
    match (taken, verdict) {
        (Ok(()), Err(report)) => panic!(
            "{name}: content its own schema refuses was taken\n{}\nvalidator: {report}",
            shown()
        ),
        (Err(problem), Ok(())) if !refused_by_design(schema, &normalized) => panic!(
            "{name}: content its own schema accepts was refused\n{}\nparser: {problem}",
            shown()
        ),
        _ => {}
    }
}

/// The content as the documented decisions read it: `null` fields are absent, and a missing
/// required field with a default has that default.
fn normalize(schema: &Value, content: &Map<String, Value>) -> Map<String, Value> {
    let mut out: Map<String, Value> = content
        .iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    for key in schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !out.contains_key(key)
            && let Some(default) = schema["properties"][key].get("default")
        {
            out.insert(key.to_owned(), default.clone());
        }
    }
    out
}

/// Whether the content breaks a documented rule the wire schema cannot state: an integer
/// field holds a whole number no 64-bit integer holds (no wrapping, no saturation, though no
/// bound is written), or a multi-select holds a value twice (the spec's multi-select schema
/// has no `uniqueItems`).
fn refused_by_design(schema: &Value, content: &Map<String, Value>) -> bool {
    content.iter().any(|(key, value)| {
        let field = &schema["properties"][key];
        let huge_integer = field["type"] == "integer"
            && value.is_number()
            && value.as_i64().is_none()
            && value.as_u64().is_none();
        let repeated = field["type"] == "array"
            && value.as_array().is_some_and(|items| {
                items
                    .iter()
                    .enumerate()
                    .any(|(at, item)| items[..at].contains(item))
            });
        huge_integer || repeated
    })
}

fn drive(runtime: &tokio::runtime::Runtime, fixtures: &Fixtures, flow: &Flow, data: &[u8]) {
    let server = &fixtures.servers[flow.server];
    let mut response = super::modern_round(runtime, server, flow.method, &flow.params, None, None);
    for segment in super::segments(data).take(MAX_ROUNDS) {
        let result = &response["result"];
        let Some(state) = result["requestState"].as_str() else {
            return;
        };
        let requests = result["inputRequests"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let Some((&shape, text)) = segment.split_first() else {
            continue;
        };
        let value = serde_json::from_slice::<Value>(text)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(text).into_owned()));
        let per_key = |make: &dyn Fn(&Value) -> Value| -> Value {
            Value::Object(
                requests
                    .iter()
                    .map(|(key, request)| (key.clone(), make(request)))
                    .collect(),
            )
        };
        let answers = match shape {
            b'c' => per_key(&|request| {
                if request["method"] == "elicitation/create" {
                    json!({ "action": "accept", "content": value })
                } else {
                    value.clone()
                }
            }),
            b'a' => per_key(&|_| value.clone()),
            _ => value.clone(),
        };
        let next = super::modern_round(
            runtime,
            server,
            flow.method,
            &flow.params,
            Some(state),
            Some(answers),
        );
        // One form asked and answered with content: did the server take it?
        if shape == b'c'
            && let (1, Some((key, request)), Some(content)) =
                (requests.len(), requests.iter().next(), value.as_object())
            && request["method"] == "elicitation/create"
            && let Some(schema) = request.pointer("/params/requestedSchema")
        {
            let reasked = next["result"]["inputRequests"][key]["params"]["message"]
                .as_str()
                .and_then(|message| message.find("Please correct:").map(|at| &message[at..]));
            let taken = match reasked {
                Some(problem) => Err(problem.to_owned()),
                None if next.get("error").is_some() => return,
                None => Ok(()),
            };
            let name = format!(
                "{} `{}`, question `{key}`",
                flow.method, flow.params["name"]
            );
            compare(&name, schema, content, taken);
        }
        if let Some(error) = next.get("error") {
            oracle::error(error, &"a flow round");
            return;
        }
        response = next;
    }
}

fn seeds() -> Vec<Vec<u8>> {
    let fixtures = fixtures();
    let mut seeds = Vec::new();
    let contents: &[(&str, Value)] = &[
        (
            "deploy::Target",
            json!({"environment": "production", "replicas": 3, "reason": "release"}),
        ),
        ("deploy::Target", json!({"environment": "staging"})),
        (
            "deploy::Target",
            json!({"environment": "moon", "replicas": 13.0, "reason": null}),
        ),
        ("deploy::Confirm", json!({"ok": true})),
        (
            "order::LineItem",
            json!({"product": "tea", "quantity": 2, "more": true}),
        ),
        (
            "order::LineItem",
            json!({"product": "", "quantity": 1.5, "more": false}),
        ),
        ("order::Confirm", json!({"ok": false})),
        ("release::Approval", json!({"approve": true})),
        ("release::Publish", json!({"publish": "yes"})),
        (
            "tracker::IssueForm",
            json!({"title": "Crash on start", "priority": "urgent"}),
        ),
        ("tracker::IssueForm", json!({"title": "ab"})),
        (
            "tracker::IssueForm",
            json!({"title": "Slow", "priority": "later"}),
        ),
        ("tracker::PriorityForm", json!({})),
        ("tracker::PriorityForm", json!({"priority": "low"})),
        ("tracker::CloseConfirm", json!({"close": true})),
        ("tracker::CloseConfirm", json!({"close": "yes"})),
    ];
    for (name, content) in contents {
        if let Some(index) = fixtures.forms.iter().position(|form| form.name == *name) {
            let mut seed = vec![u8::try_from(index).expect("few forms")];
            seed.extend_from_slice(content.to_string().as_bytes());
            seeds.push(seed);
        }
    }
    let sampled =
        json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"});
    let roots = json!({"roots": [{"uri": "file:///tmp", "name": "tmp"}]});
    let rounds: &[(&str, &[(&str, Value)])] = &[
        (
            "deploy",
            &[
                ("c", json!({"environment": "production", "replicas": 3})),
                ("c", json!({"ok": true})),
            ],
        ),
        (
            "deploy",
            &[(
                "c",
                json!({"environment": "staging", "replicas": 12, "reason": "x"}),
            )],
        ),
        ("deploy", &[("a", json!({"action": "decline"}))]),
        (
            "confirm_deploy",
            &[(
                "r",
                json!({"confirm": {"action": "accept", "content": {"ok": false}}}),
            )],
        ),
        (
            "order",
            &[
                ("c", json!({"product": "tea", "quantity": 2, "more": true})),
                ("c", json!({"product": "cake", "more": false})),
                ("c", json!({"ok": true})),
            ],
        ),
        (
            "create_issue",
            &[(
                "c",
                json!({"title": "Crash on start", "priority": "urgent"}),
            )],
        ),
        (
            "create_issue",
            &[
                ("c", json!({"title": "ab"})),
                ("c", json!({"title": "Crash on start"})),
            ],
        ),
        (
            "test_elicitation_sep1330_enums",
            &[(
                "c",
                json!({"untitledMulti": ["option2"], "titledSingle": "value3", "legacyEnum": "opt1", "titledMulti": ["value1", "value3"]}),
            )],
        ),
        (
            "test_elicitation_sep1034_defaults",
            &[(
                "c",
                json!({"name": "Jo", "age": 3, "score": 1.5, "status": "pending", "verified": false}),
            )],
        ),
        (
            "test_input_required_result_multiple_inputs",
            &[("c", json!({"name": "Ada"}))],
        ),
        ("test_input_required_result_sampling", &[("a", sampled)]),
        ("test_input_required_result_list_roots", &[("a", roots)]),
        (
            "test_input_required_result_multi_round",
            &[
                ("c", json!({"name": "Ada"})),
                ("c", json!({"color": "red"})),
            ],
        ),
        (
            "test_input_required_result_prompt",
            &[("c", json!({"context": "x"}))],
        ),
        (
            "test_elicitation",
            &[("c", json!({"username": "ada", "email": "a@b.c"}))],
        ),
    ];
    for (name, answers) in rounds {
        let Some(index) = fixtures
            .flows
            .iter()
            .position(|flow| flow.params["name"] == *name)
        else {
            continue;
        };
        let mut seed = vec![128 + u8::try_from(index).expect("few flows")];
        for (number, (shape, answer)) in answers.iter().enumerate() {
            if number > 0 {
                seed.push(0);
            }
            seed.extend_from_slice(shape.as_bytes());
            seed.extend_from_slice(answer.to_string().as_bytes());
        }
        seeds.push(seed);
    }
    for index in 0..fixtures.flows.len() {
        seeds.push(vec![
            128 + u8::try_from(index).expect("few flows"),
            b'c',
            b'{',
            b'}',
        ]);
    }
    seeds
}

const DICTIONARY: &[&str] = &[
    "\"action\"",
    "\"accept\"",
    "\"decline\"",
    "\"cancel\"",
    "\"content\"",
    "\"environment\"",
    "\"production\"",
    "\"staging\"",
    "\"replicas\"",
    "\"reason\"",
    "\"ok\"",
    "\"product\"",
    "\"quantity\"",
    "\"more\"",
    "\"name\"",
    "\"username\"",
    "\"email\"",
    "\"age\"",
    "\"score\"",
    "\"status\"",
    "\"active\"",
    "\"inactive\"",
    "\"pending\"",
    "\"verified\"",
    "\"untitledSingle\"",
    "\"titledSingle\"",
    "\"legacyEnum\"",
    "\"untitledMulti\"",
    "\"titledMulti\"",
    "\"option1\"",
    "\"option2\"",
    "\"option3\"",
    "\"value1\"",
    "\"value2\"",
    "\"value3\"",
    "\"opt1\"",
    "\"opt2\"",
    "\"opt3\"",
    "\"color\"",
    "\"context\"",
    "\"role\"",
    "\"assistant\"",
    "\"model\"",
    "\"roots\"",
    "\"uri\"",
    "\"type\"",
    "\"text\"",
    "\"file:///\"",
    "true",
    "false",
    "null",
    "1e308",
    "-0",
    "0.5",
    "4294967296",
    "18446744073709551616",
    "1.0",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "\x00c",
    "\x00a",
    "\x00r",
];
