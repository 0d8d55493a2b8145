#!/usr/bin/env python3
"""The generator and the report of scripts/build-cost.sh.

  generate DIR --tools N --questions Q --chain K,K,... --runtime PATH --lock PATH
      writes a Cargo workspace of leaf crates into DIR (see build-cost.sh for the variants);
  edit FILE REV [--shift]
      rewrites the first `(rev N)` marker of FILE: the one-line edit of the edit loop; with
      --shift, also adds a line before it, or takes the added line away, which moves every
      line after it;
  report TIMINGS --tools N --questions Q --runs R
      prints the table from the timings build-cost.sh recorded (lines of `mode variant wall
      cpu`, in seconds).
"""

import argparse
import json
import re
import shutil
import statistics
import sys
from pathlib import Path

FIELDS = """\
    /// The service to act on.
    pub service: String,
    /// How many instances.
    pub replicas: u32,
    /// Why, for the log.
    pub reason: Option<String>,
"""

CONFIRM = """\
/// A yes-or-no answer.
#[derive(ElicitForm)]
pub struct Confirm {
    /// Go ahead?
    pub ok: bool,
}
"""


def args_struct(name):
    return (
        f"/// The arguments of a tool.\n"
        f"#[derive(Debug, Deserialize, schemars::JsonSchema)]\n"
        f"pub struct {name} {{\n{FIELDS}}}\n"
    )


def questions(count, what, shape="row"):
    """`count` yes/no questions, each counted in `yes`: in a row (`row`), each inside an `if` of
    its own (`nested`), each in an arm of a `match` of its own (`match`), in a row inside one
    loop's body, run once (`loop`), or each inside an `if` of its own inside one loop's body
    (`loop-if`)."""
    lines = []
    for k in range(count):
        asked = [
            f"let answer_{k}: Confirm = cx",
            f'    .elicit(format!("Question {k + 1} of {count} ({what}) for {{}}?", '
            "args.service))",
            "    .await?;",
            f"if answer_{k}.ok {{",
            "    yes += 1;",
            "}",
        ]
        if shape in ("nested", "loop-if"):
            asked = ["if args.replicas > 0 {", *("    " + line for line in asked), "}"]
        if shape == "match":
            asked = [
                "match args.replicas {",
                "    0 => {}",
                "    _ => {",
                *("        " + line for line in asked),
                "    }",
                "}",
            ]
        lines += ["    " + line for line in asked]
    if shape in ("loop", "loop-if"):
        lines = ["    loop {", *("    " + line for line in lines), "        break;", "    }"]
    return lines


def result(what, count):
    """The final expression: the same text in every variant."""
    tally = f" {{yes}} of {count} yes" if count else ""
    return (
        f'text(format!("{what} (rev 0): {{}} x{{}} ({{}}){tally}", args.service, '
        f'args.replicas, args.reason.as_deref().unwrap_or("no reason")))'
    )


def macro_tool(name, args, count, what, doc, shape="row"):
    body = []
    if count:
        body.append("    let mut yes: u32 = 0;")
        body += questions(count, what, shape)
    body.append(f"    Ok({result(what, count)})")
    cx = ", cx: Cx" if count else ""
    return (
        f"/// {doc}\n#[tool]\npub async fn {name}(args: {args}{cx}) -> ToolResult {{\n"
        + "\n".join(body)
        + "\n}\n"
    )


def hand_tool(name, args, what, doc):
    tool = name.title().replace("_", "")
    return f"""\
/// {doc}
pub struct {tool};

impl ToolHandler for {tool} {{
    fn definition(&self) -> Tool {{
        definition::<{args}>("{name}", "{doc}")
    }}

    fn call(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {{
        Box::pin(async move {{
            let args: {args} = match arguments("{name}", request) {{
                Ok(args) => args,
                Err(refused) => return Ok(Reply::Complete(refused)),
            }};
            Ok(Reply::Complete({result(what, 0)}))
        }})
    }}
}}
"""


HAND_HELPERS = """\
/// The `Tool` of a tool whose arguments are `A`, as `#[tool]` lists it.
fn definition<A: JsonSchema>(name: &str, description: &str) -> Tool {
    let mut schema = match schemars::schema_for!(A).to_value() {
        Value::Object(schema) => schema,
        _ => Map::new(),
    };
    schema.remove("title");
    schema.insert("type".to_owned(), Value::from("object"));
    Tool {
        name: name.to_owned(),
        description: Some(description.to_owned()),
        input_schema: schema,
        ..Tool::default()
    }
}

/// The call's arguments, or the tool result that tells the model why they are wrong.
fn arguments<A: DeserializeOwned>(name: &str, request: Request) -> Result<A, CallToolResult> {
    let arguments = Value::Object(request.arguments.unwrap_or_default());
    A::deserialize(&arguments).map_err(|error| {
        CallToolResult::error(format!("invalid arguments for tool `{name}`: {error}"))
    })
}
"""


def server(registrations):
    return (
        "/// The server builder with every tool of this crate registered.\n"
        "pub fn server() -> ServerBuilder {\n"
        '    Server::builder()\n        .name("build-cost")\n        .version("0.1.0")\n'
        + "".join(f"        .tool({r})\n" for r in registrations)
        + "}\n"
    )


def macro_leaf(tools, count):
    out = [
        f"//! Generated by scripts/build-cost.py: {tools} tools written with `#[tool]`, "
        f"{count} questions each.\n",
        "use mcp_runtime::server::{Server, ServerBuilder};",
        "use mcp_runtime::{ElicitForm, ToolResult, text, tool};" if count == 0 else
        "use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};",
        "use serde::Deserialize;\n",
        CONFIRM,
    ]
    for i in range(tools):
        out.append(args_struct(f"Args{i}"))
        doc = f"Tool {i}: says what it did."
        out.append(macro_tool(f"tool_{i}", f"Args{i}", count, f"tool {i}", doc))
    out.append(server(f"tool_{i}" for i in range(tools)))
    return "\n".join(out)


def hand_leaf(tools):
    out = [
        f"//! Generated by scripts/build-cost.py: {tools} tools written as hand-written "
        "`ToolHandler` impls.\n",
        "use mcp_runtime::protocol::{CallToolResult, Tool};",
        "use mcp_runtime::server::{",
        "    BoxFuture, HandlerResult, Reply, Request, Server, ServerBuilder, ToolHandler,",
        "};",
        "use mcp_runtime::{ElicitForm, text};",
        "use schemars::JsonSchema;",
        "use serde::Deserialize;",
        "use serde::de::DeserializeOwned;",
        "use serde_json::{Map, Value};\n",
        # The form is declared in every variant, so the derive's cost is in every baseline.
        CONFIRM,
        HAND_HELPERS,
    ]
    for i in range(tools):
        out.append(args_struct(f"Args{i}"))
        out.append(hand_tool(f"tool_{i}", f"Args{i}", f"tool {i}", f"Tool {i}: says what it did."))
    out.append(server(f"Tool{i}" for i in range(tools)))
    return "\n".join(out)


SHAPES = {
    "row": "in a row",
    "nested": "each inside an `if` of its own",
    "match": "each in an arm of a `match` of its own",
    "loop": "in a row inside one loop's body",
    "loop-if": "each inside an `if` of its own inside one loop's body",
}


def chain_leaf(count, shape="row"):
    said = SHAPES[shape]
    out = [
        f"//! Generated by scripts/build-cost.py: one `#[tool]` of {count} yes/no questions "
        f"{said}.\n",
        "use mcp_runtime::server::{Server, ServerBuilder};",
        "use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};",
        "use serde::Deserialize;\n",
        CONFIRM,
        args_struct("ChainArgs"),
    ]
    body = macro_tool("chain", "ChainArgs", count, "chain", f"Asks {count} questions {said}.",
                      shape)
    if count == 0:
        body = body.replace("(args: ChainArgs)", "(args: ChainArgs, _cx: Cx)")
    out.append(body)
    out.append(server(["chain"]))
    return "\n".join(out)


CHECK_TEST = """\
//! The hand-written tools register and serve what the `#[tool]` ones do.

use mcp_runtime::protocol::PROTOCOL_VERSION;
use mcp_runtime::protocol::meta::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use mcp_runtime::server::{RequestFacts, Server};
use serde_json::{Value, json};

{consts}
async fn ask(server: &Server, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        META_PROTOCOL_VERSION: PROTOCOL_VERSION,
        META_CLIENT_CAPABILITIES: {"elicitation": {"form": {}}},
    });
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let outcome = server
        .handle(message.to_string().as_bytes(), RequestFacts::stdio())
        .finish()
        .await;
    serde_json::from_slice(&outcome.body.expect("an answer")).expect("JSON")
}

#[tokio::test]
async fn hand_written_tools_list_and_answer_as_the_macro_ones() {
    let by_macro = leaf_macro_q0::server().build();
    let by_hand = leaf_hand_q0::server().build();
    let asking = leaf_macro_asking::server().build();
    let list = ask(&by_macro, "tools/list", json!({})).await;
    assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(TOOLS));
    assert_eq!(list, ask(&by_hand, "tools/list", json!({})).await);
    assert_eq!(list, ask(&asking, "tools/list", json!({})).await);
    for i in 0..TOOLS {
        for arguments in [
            json!({"service": "api", "replicas": 3, "reason": "load"}),
            json!({"service": "api", "replicas": 3}),
            json!({"service": 7}),
        ] {
            let params = json!({"name": format!("tool_{i}"), "arguments": arguments});
            let answer = ask(&by_macro, "tools/call", params.clone()).await;
            assert!(answer["result"]["content"][0]["text"].is_string(), "{answer}");
            assert_eq!(answer, ask(&by_hand, "tools/call", params).await);
        }
    }
    if QUESTIONS > 0 {
        let params = json!({"name": "tool_0", "arguments": {"service": "api", "replicas": 1}});
        let first = ask(&asking, "tools/call", params).await;
        assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    }
}
"""


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def manifest(name, runtime, extra=""):
    return f"""\
[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
mcp-runtime = {{ path = {json.dumps(str(runtime))} }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
schemars = "1"
{extra}"""


def generate(opts):
    root = Path(opts.dir)
    runtime = Path(opts.runtime).resolve()
    if root.exists():
        shutil.rmtree(root / "crates", ignore_errors=True)
    leaves = {
        "leaf-macro-q0": macro_leaf(opts.tools, 0),
        "leaf-hand-q0": hand_leaf(opts.tools),
        "leaf-macro-asking": macro_leaf(opts.tools, opts.questions),
    }
    for k in opts.chain:
        leaves[f"leaf-chain-k{k}"] = chain_leaf(k)
    for k in opts.nested:
        leaves[f"leaf-nested-k{k}"] = chain_leaf(k, "nested")
        leaves[f"leaf-match-k{k}"] = chain_leaf(k, "match")
        leaves[f"leaf-loop-k{k}"] = chain_leaf(k, "loop")
        leaves[f"leaf-loopif-k{k}"] = chain_leaf(k, "loop-if")
    for name, source in leaves.items():
        write(root / "crates" / name / "Cargo.toml", manifest(name, runtime))
        write(root / "crates" / name / "src" / "lib.rs", source)
    check = "build-cost-check"
    dev = "".join(
        f'{n.replace("-", "_")} = {{ package = "{n}", path = "../{n}" }}\n'
        for n in ["leaf-macro-q0", "leaf-hand-q0", "leaf-macro-asking"]
    )
    dev += 'tokio = { version = "1", features = ["rt", "macros"] }\n'
    dev = "\n[dev-dependencies]\n" + dev
    write(root / "crates" / check / "Cargo.toml", manifest(check, runtime, dev))
    write(root / "crates" / check / "src" / "lib.rs", "//! Holds the test only.\n")
    consts = f"const TOOLS: usize = {opts.tools};\nconst QUESTIONS: usize = {opts.questions};\n"
    write(root / "crates" / check / "tests" / "same.rs", CHECK_TEST.replace("{consts}", consts))
    members = ", ".join(json.dumps(f"crates/{n}") for n in [*leaves, check])
    write(root / "Cargo.toml", f'[workspace]\nresolver = "3"\nmembers = [{members}]\n')
    # The repository's lock file: the same dependency versions, nothing new to fetch.
    shutil.copyfile(opts.lock, root / "Cargo.lock")


def edit(opts):
    path = Path(opts.file)
    text, count = re.subn(r"\(rev \d+\)", f"(rev {opts.rev})", path.read_text(), count=1)
    if count != 1:
        sys.exit(f"error: no `(rev N)` marker in {path}")
    if opts.shift:
        added = re.compile(r"^ *let _rev: u32 = \d+;\n", re.MULTILINE)
        if added.search(text):
            text = added.sub("", text, count=1)
        else:
            line = text.rindex("\n", 0, text.index(f"(rev {opts.rev})")) + 1
            indent = re.match(r" *", text[line:]).group()
            text = f"{text[:line]}{indent}let _rev: u32 = {opts.rev};\n{text[line:]}"
    path.write_text(text)


def series_growth(series, get, prefix, title):
    """Prints the K series of leaves named `prefix`K (K=0 is the question-free chain) and
    returns its growth from K=20 to K=40 above K=0, by metric."""
    nan = float("nan")
    ks = sorted(
        int(variant.removeprefix(prefix))
        for mode, variant in series
        if mode == "clean" and variant.startswith(prefix)
    )
    growth = {}
    if not ks:
        return growth
    base = "leaf-chain-k0"
    print(f"\n{title}, clean leaf, seconds:\n")
    print(f"  {'':>3}{'wall':>24}{'CPU':>24}")
    print(f"  {'K':>3}" + f" {'total':>7} {'over K=0':>8} {'per q':>6}" * 2)
    for k in ks:
        line = f"  {k:>3}"
        for metric in (0, 1):
            total = get("clean", f"{prefix}{k}", metric)
            over = total - get("clean", base, metric)
            line += f" {total:>7.2f} {over:>8.2f} {over / k if k else nan:>6.3f}"
        print(line)
    if {20, 40} <= set(ks):
        print()
        for metric, name in ((0, "wall"), (1, "CPU")):
            t0 = get("clean", base, metric)
            t20, t40 = (get("clean", f"{prefix}{k}", metric) for k in (20, 40))
            growth[metric] = (t40 - t0) / (t20 - t0)
            print(f"  growth from K=20 to K=40 above K=0, {name}: {growth[metric]:.2f}x "
                  f"(2x linear, 4x quadratic; whole leaf {t40 / t20:.2f}x)")
    return growth


def report(opts):
    series = {}
    for line in Path(opts.timings).read_text().splitlines():
        mode, variant, wall, cpu = line.split()
        series.setdefault((mode, variant), []).append((float(wall), float(cpu)))
    nan = float("nan")

    def get(mode, variant, metric):
        runs = series.get((mode, variant))
        return statistics.median(run[metric] for run in runs) if runs else nan

    n, q = opts.tools, opts.questions
    modes = ("clean", "edit", "shift")
    columns = [(mode, metric) for mode in modes for metric in (0, 1)]
    print(f"\nLeaf crate rebuilds, seconds, median of {opts.runs} (dependencies pre-built):\n")
    print(f"  {'':<44}{'clean leaf':>16}{'edit in line':>16}{'edit + line':>16}")
    print(f"  {'':<44}" + f"{'wall':>8}{'CPU':>8}" * 3)
    variants = ["leaf-macro-q0", "leaf-hand-q0", "leaf-macro-asking"]
    labels = [
        f"{n} tools, #[tool], no questions",
        f"{n} tools, hand-written ToolHandler",
        f"{n} tools, #[tool], {q} questions each",
    ]
    for label, variant in zip(labels, variants):
        print(f"  {label:<44}" + "".join(f" {get(m, variant, k):>7.2f}" for m, k in columns))
    figures = {}
    for column in columns:
        macro, hand, asking = (get(column[0], v, column[1]) for v in variants)
        figures[column] = (
            macro / hand,
            (macro - hand) / n * 1000,
            (asking - macro) / (n * q) * 1000 if q else nan,
        )
    print()
    for i, (label, unit) in enumerate([
        ("macro / hand-written", "x"),
        ("ms per tool (macro - hand) / N", " "),
        ("ms per question point / (N*Q)", " "),
    ]):
        digits = 2 if unit == "x" else 1
        print(f"  {label:<44}" + "".join(f" {figures[c][i]:>6.{digits}f}{unit}" for c in columns))

    growth = {}
    for prefix, title in (
        ("leaf-chain-k", "One #[tool] of K yes/no questions in a row"),
        ("leaf-nested-k", "One #[tool] of K yes/no questions, each inside an `if` of its own"),
        ("leaf-match-k", "One #[tool] of K yes/no questions, each in an arm of a `match` of "
                         "its own"),
        ("leaf-loop-k", "One #[tool] of K yes/no questions in a row inside one loop's body"),
        ("leaf-loopif-k", "One #[tool] of K yes/no questions, each inside an `if` of its own "
                          "inside one loop's body"),
    ):
        found = series_growth(series, get, prefix, title)
        for metric, value in found.items():
            growth[metric] = max(growth.get(metric, 0), value)
    print("\nBudgets (issue 32): a question-free handler at most 1.1x hand-written, each question\n"
          "point at most 5 ms, linear growth in K (at most 2.0x from K=20 to K=40):")

    def verdict(ok):
        return f"{'within' if ok else 'OVER':>8}"

    print(f"  {'':<44}{'clean leaf':>16}{'edit in line':>16}{'edit + line':>16}")
    print(f"  {'':<44}" + f"{'wall':>8}{'CPU':>8}" * 3)
    print(f"  {'question-free handler / hand-written':<44}"
          + "".join(verdict(figures[c][0] <= 1.1) for c in columns))
    if q:
        print(f"  {'question point':<44}"
              + "".join(verdict(figures[c][2] <= 5) for c in columns))
    if growth:
        print(f"  {'growth in K, any shape (clean leaf)':<44}"
              + "".join(verdict(growth[m] <= 2.0) for m in (0, 1)))


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("dir")
    g.add_argument("--tools", type=int, required=True)
    g.add_argument("--questions", type=int, required=True)
    g.add_argument("--chain", type=lambda s: [int(k) for k in s.split(",") if k], required=True)
    g.add_argument("--nested", type=lambda s: [int(k) for k in s.split(",") if k], default=[])
    g.add_argument("--runtime", required=True)
    g.add_argument("--lock", required=True)
    e = sub.add_parser("edit")
    e.add_argument("file")
    e.add_argument("rev", type=int)
    e.add_argument("--shift", action="store_true")
    r = sub.add_parser("report")
    r.add_argument("timings")
    r.add_argument("--tools", type=int, required=True)
    r.add_argument("--questions", type=int, required=True)
    r.add_argument("--runs", type=int, required=True)
    opts = parser.parse_args()
    {"generate": generate, "edit": edit, "report": report}[opts.command](opts)


if __name__ == "__main__":
    main()
