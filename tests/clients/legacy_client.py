"""A real MCP client on the legacy wire (revision 2025-11-25): the Python SDK 1.x, driving the
`deploy` example's elicitation flows through `initialize`, sessions and server-to-client
`elicitation/create` requests.

    python tests/clients/legacy_client.py --http http://127.0.0.1:PORT/mcp
    python tests/clients/legacy_client.py --stdio target/debug/deploy --stdio

Run it with the venv that scripts/legacy-clients.sh makes (.cache/legacy-clients/venv, which
has the pinned `mcp` package). Each scenario prints `PASS name` or `FAIL name: reason`; the last
line is `N passed, N failed` and the exit code is 1 when any failed.

The 1.x client runs the elicitation callback inside its receive loop, so while one callback
runs no other message is read: concurrent calls get their questions answered one at a time.
"""

from __future__ import annotations

import json
import os
import re
import sys
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Awaitable, Callable

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

EXPECTED_VERSION = "2025-11-25"
# Bounds every call, so a server that never answers fails one scenario instead of the run.
CALL_TIMEOUT = 20.0


class Failure(Exception):
    pass


def check(condition: Any, message: str) -> None:
    if not condition:
        raise Failure(message)


def usage() -> None:
    print("usage: legacy_client.py --http URL | --stdio COMMAND [ARGS...]", file=sys.stderr)
    sys.exit(2)


Reply = Callable[[Any], "types.ElicitResult | Awaitable[types.ElicitResult]"]


@dataclass
class Rule:
    """Answers the first elicitation whose message matches `pattern` and no earlier rule took."""

    pattern: str
    reply: Reply
    used: bool = False
    params: Any = None


def accept(content: dict[str, Any]) -> Reply:
    return lambda _params: types.ElicitResult(action="accept", content=content)


def action(name: str) -> Reply:
    return lambda _params: types.ElicitResult(action=name)


@dataclass
class Script:
    rules: list[Rule] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)

    def expect(self, *rules: Rule) -> list[Rule]:
        self.rules.extend(rules)
        return list(rules)

    async def callback(self, _context: Any, params: Any) -> types.ElicitResult | types.ErrorData:
        message = getattr(params, "message", "")
        rule = next((r for r in self.rules if not r.used and re.search(r.pattern, message)), None)
        if rule is None:
            self.unexpected.append(message)
            return types.ElicitResult(action="decline")
        rule.used = True
        rule.params = params
        answer = rule.reply(params)
        if isinstance(answer, Awaitable):
            answer = await answer
        return answer

    def verify(self) -> None:
        check(not self.unexpected, f"unexpected elicitation(s): {self.unexpected}")
        unused = [r.pattern for r in self.rules if not r.used]
        check(not unused, f"expected elicitation(s) never came: {unused}")


class Client:
    """One connection and session; the body of a scenario runs inside it."""

    def __init__(self, target: dict[str, Any], stack: AsyncExitStack) -> None:
        self.target = target
        self.stack = stack
        self.script = Script()
        self.session: ClientSession
        self.init: types.InitializeResult
        self.session_id: Callable[[], str | None] = lambda: None

    async def connect(self) -> None:
        if "http" in self.target:
            read, write, self.session_id = await self.stack.enter_async_context(
                streamable_http_client(self.target["http"])
            )
        else:
            params = StdioServerParameters(
                command=self.target["command"],
                args=self.target["args"],
                # The SDK passes only a minimal environment by default; the harness's settings
                # (such as MCP_REQUEST_STATE_KEY or RUST_LOG) should reach the server.
                env=dict(os.environ),
            )
            read, write = await self.stack.enter_async_context(stdio_client(params))
        self.session = await self.stack.enter_async_context(
            ClientSession(
                read,
                write,
                elicitation_callback=self.script.callback,
                client_info=types.Implementation(name="legacy-client-py", version="1.0.0"),
            )
        )
        with anyio.fail_after(CALL_TIMEOUT):
            self.init = await self.session.initialize()

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        return await self.session.call_tool(
            name, arguments, read_timeout_seconds=timedelta(seconds=CALL_TIMEOUT)
        )

    async def text(self, name: str, arguments: dict[str, Any]) -> str:
        """The text of a completed, non-error result."""
        result = await self.call(name, arguments)
        text = "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
        check(not result.isError, f"{name} returned isError: {text}")
        return text


def expect_text(actual: str, expected: str | re.Pattern[str]) -> None:
    if isinstance(expected, re.Pattern):
        check(expected.search(actual), f"expected /{expected.pattern}/, got {actual!r}")
    else:
        check(actual == expected, f"expected {expected!r}, got {actual!r}")


def reason_of(error: BaseException) -> str:
    # Task groups wrap failures; the innermost one says what went wrong.
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    if isinstance(error, Failure):
        return str(error)
    if isinstance(error, TimeoutError):
        return "timed out"
    return f"{type(error).__name__}: {error}".replace("\n", " | ")


# ---- scenarios ---------------------------------------------------------------------------------


async def initialize(c: Client) -> None:
    version = c.init.protocolVersion
    check(version == EXPECTED_VERSION, f"negotiated {version}, expected {EXPECTED_VERSION}")
    check(c.init.serverInfo.name, "no serverInfo.name")
    check(c.init.capabilities.tools is not None, "server capabilities lack tools")
    if "http" in c.target:
        check(c.session_id(), "no Mcp-Session-Id issued by initialize")
    tools = (await c.session.list_tools()).tools
    names = sorted(t.name for t in tools)
    check(names == ["confirm_deploy", "deploy", "deployments"], f"tools/list gave {names}")
    deploy = next(t for t in tools if t.name == "deploy")
    check("service" in deploy.inputSchema.get("properties", {}), "deploy has no `service` argument")


async def accept_scenario(c: Client) -> None:
    (target,) = c.script.expect(
        Rule(r"^Where should api go\?", accept({"environment": "staging", "replicas": 3, "reason": "release"}))
    )
    expect_text(await c.text("deploy", {"service": "api"}), re.compile(r"^Deployed 3 replicas of api to Staging \(release\)\.$"))
    # What a client renders the form from: the enum with titles, the integer bounds.
    props = target.params.requestedSchema.get("properties", {})
    choices = props.get("environment", {}).get("oneOf", [])
    check([o.get("const") for o in choices] == ["staging", "production"], f"environment: {props.get('environment')}")
    check(all(isinstance(o.get("title"), str) for o in choices), "environment choices lack titles")
    replicas = props.get("replicas", {})
    check(
        replicas.get("type") == "integer" and replicas.get("minimum") == 1 and replicas.get("maximum") == 12,
        f"replicas: {replicas}",
    )


async def two_rounds_confirmed(c: Client) -> None:
    c.script.expect(
        Rule(r"^Where should api go\?", accept({"environment": "production", "replicas": 3, "reason": "release"})),
        Rule(r"^Ship 3 replicas of api to production\?", accept({"ok": True})),
    )
    expect_text(await c.text("deploy", {"service": "api"}), re.compile(r"^Deployed 3 replicas of api to Production"))


async def two_rounds_refused(c: Client) -> None:
    c.script.expect(
        Rule(r"^Where should api go\?", accept({"environment": "production", "replicas": 2})),
        Rule(r"^Ship 2 replicas of api to production\?", accept({"ok": False})),
    )
    expect_text(await c.text("deploy", {"service": "api"}), "Nothing deployed.")


async def decline(c: Client) -> None:
    c.script.expect(Rule(r"^Where should api go\?", action("decline")))
    expect_text(await c.text("deploy", {"service": "api"}), "The user declined the request; nothing was done.")


async def cancel(c: Client) -> None:
    c.script.expect(Rule(r"^Where should api go\?", action("cancel")))
    expect_text(await c.text("deploy", {"service": "api"}), "The user cancelled the request; nothing was done.")


async def invalid_answer_asked_again(c: Client) -> None:
    _, again = c.script.expect(
        Rule(r"^Where should api go\?", accept({"environment": "staging", "replicas": 99})),
        Rule(r"^Where should api go\?", accept({"environment": "staging", "replicas": 4})),
    )
    expect_text(await c.text("deploy", {"service": "api"}), re.compile(r"^Deployed 4 replicas of api to Staging\.$"))
    message = getattr(again.params, "message", "")
    check("replicas" in message, f"the second question does not name the problem: {message!r}")


async def concurrent_calls(c: Client) -> None:
    c.script.expect(
        Rule(r"^Where should alpha go\?", accept({"environment": "staging", "replicas": 1})),
        Rule(r"^Where should beta go\?", accept({"environment": "staging", "replicas": 5, "reason": "beta"})),
    )
    results: dict[str, str] = {}

    async def run(service: str) -> None:
        results[service] = await c.text("deploy", {"service": service})

    async with anyio.create_task_group() as group:
        group.start_soon(run, "alpha")
        group.start_soon(run, "beta")
    expect_text(results["alpha"], "Deployed 1 replicas of alpha to Staging.")
    expect_text(results["beta"], "Deployed 5 replicas of beta to Staging (beta).")


async def call_after_cancelled_call(c: Client) -> None:
    asked, stopped = anyio.Event(), anyio.Event()

    async def hold(_params: Any) -> types.ElicitResult:
        # The question stays open until the call is cancelled, then gets a late `cancel` the
        # server must tolerate.
        asked.set()
        await stopped.wait()
        await anyio.sleep(0.2)
        return types.ElicitResult(action="cancel")

    c.script.expect(
        Rule(r"^Deploy to production\?", hold),
        Rule(r"^Deploy to production\?", accept({"ok": True})),
    )
    outcome: dict[str, Any] = {}
    scope = anyio.CancelScope()

    async def first() -> None:
        # The id this request gets (private in 1.x; there is no public way to learn it).
        outcome["id"] = c.session._request_id
        with scope:
            outcome["result"] = await c.call("confirm_deploy", {})

    async with anyio.create_task_group() as group:
        group.start_soon(first)
        with anyio.fail_after(CALL_TIMEOUT):
            await asked.wait()
        scope.cancel()
        # The 1.x client does not tell the server when a call's task is cancelled; a client
        # that stops a call sends this notification, as the TypeScript SDK does.
        await c.session.send_notification(
            types.ClientNotification(
                types.CancelledNotification(
                    params=types.CancelledNotificationParams(requestId=outcome["id"], reason="the user stopped the call")
                )
            )
        )
        stopped.set()
    check("result" not in outcome, "the cancelled call completed")
    await anyio.sleep(0.3)
    expect_text(await c.text("confirm_deploy", {}), "Deployment confirmed.")


async def confirm_deploy(c: Client) -> None:
    (confirm,) = c.script.expect(Rule(r"^Deploy to production\?$", accept({"ok": True})))
    expect_text(await c.text("confirm_deploy", {}), "Deployment confirmed.")
    ok = confirm.params.requestedSchema.get("properties", {}).get("ok", {})
    check(ok.get("type") == "boolean", f"confirm.ok: {ok}")


async def structured_result(c: Client) -> None:
    # `deployments` declares an outputSchema: the SDK checks structuredContent against the
    # schema it listed, so a schema it cannot read or a result that does not match fails.
    c.script.expect(Rule(r"^Where should ledger go\?", accept({"environment": "staging", "replicas": 2})))
    expect_text(await c.text("deploy", {"service": "ledger"}), "Deployed 2 replicas of ledger to Staging.")
    tools = (await c.session.list_tools()).tools
    listed = next(t for t in tools if t.name == "deployments")
    check((listed.outputSchema or {}).get("type") == "object", f"outputSchema: {listed.outputSchema}")
    check(listed.annotations is not None and listed.annotations.readOnlyHint is True, f"annotations: {listed.annotations}")
    result = await c.call("deployments", {})
    records = (result.structuredContent or {}).get("deployments", [])
    ours = [r for r in records if r.get("service") == "ledger"]
    check(
        ours and all(r.get("replicas") == 2 and r.get("environment") == "staging" for r in ours),
        f"structuredContent: {result.structuredContent}",
    )
    text = next(b.text for b in result.content if isinstance(b, types.TextContent))
    check(json.loads(text) == result.structuredContent, "the text block repeats the structured result")


SCENARIOS = [
    ("initialize", initialize),
    ("accept", accept_scenario),
    ("two-rounds-confirmed", two_rounds_confirmed),
    ("two-rounds-refused", two_rounds_refused),
    ("decline", decline),
    ("cancel", cancel),
    ("invalid-answer-asked-again", invalid_answer_asked_again),
    ("concurrent-calls", concurrent_calls),
    ("call-after-cancelled-call", call_after_cancelled_call),
    ("confirm-deploy", confirm_deploy),
    ("structured-result", structured_result),
]


async def run_scenario(target: dict[str, Any], body: Callable[[Client], Awaitable[None]]) -> str | None:
    """None when the scenario passed, else why it failed."""
    try:
        # Generous overall bound: connecting, the calls (each bounded) and closing. It encloses
        # the exit stack, whose task groups must close inside the scope they opened in.
        with anyio.fail_after(3 * CALL_TIMEOUT):
            async with AsyncExitStack() as stack:
                client = Client(target, stack)
                await client.connect()
                await body(client)
                client.script.verify()
        return None
    except BaseException as error:  # noqa: BLE001 - any failure of a scenario is reported
        if isinstance(error, KeyboardInterrupt):
            raise
        return reason_of(error)


async def main() -> int:
    argv = sys.argv[1:]
    if len(argv) == 2 and argv[0] == "--http":
        target: dict[str, Any] = {"http": argv[1]}
    elif len(argv) >= 2 and argv[0] == "--stdio":
        target = {"command": argv[1], "args": argv[2:]}
    else:
        usage()
    passed = failed = 0
    for name, body in SCENARIOS:
        reason = await run_scenario(target, body)
        if reason is None:
            print(f"PASS {name}", flush=True)
            passed += 1
        else:
            print(f"FAIL {name}: {reason}", flush=True)
            failed += 1
    print(f"{passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(anyio.run(main))
