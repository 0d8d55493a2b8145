// A real MCP client on the legacy wire (revision 2025-11-25): the TypeScript SDK v1, driving
// the `deploy` example's elicitation flows through `initialize`, sessions and server-to-client
// `elicitation/create` requests.
//
//   node tests/clients/legacy_client.mjs --http http://127.0.0.1:PORT/mcp
//   node tests/clients/legacy_client.mjs --stdio target/debug/deploy --stdio
//
// The SDK is not a dependency of the repository: scripts/legacy-clients.sh installs it into
// .cache/legacy-clients/node. It is loaded from there with createRequire (so the CommonJS
// build; ESM `import` ignores NODE_PATH); set MCP_CLIENT_NODE_MODULES to use another
// node_modules folder. Each scenario prints `PASS name` or `FAIL name: reason`; the last line
// is `N passed, N failed` and the exit code is 1 when any failed.

import { Failure, Tally, check, sdkRequire, target as parseTarget, within } from './harness.mjs';

const require = sdkRequire('legacy-clients');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { ElicitRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

const EXPECTED_VERSION = '2025-11-25';
// Bounds every call, so a server that never answers fails one scenario instead of the run.
const CALL_TIMEOUT_MS = 20_000;

const target = parseTarget('legacy_client.mjs');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One connected client whose elicitation handler follows a script: each request is answered by
// the first unused rule whose pattern matches its message. Concurrent calls are told apart by
// their messages, which name the service.
class Session {
  constructor() {
    this.rules = [];
    this.messages = [];
    this.unexpected = [];
    this.negotiated = undefined;
    this.client = new Client(
      { name: 'legacy-client-ts', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    this.client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const params = request.params;
      this.messages.push(params.message);
      const rule = this.rules.find((r) => !r.used && r.match.test(params.message));
      if (!rule) {
        this.unexpected.push(params.message);
        return { action: 'decline' };
      }
      rule.used = true;
      rule.params = params;
      return rule.reply(params, extra);
    });
  }

  async connect() {
    if (target.http) {
      this.transport = new StreamableHTTPClientTransport(new URL(target.http));
    } else {
      this.transport = new StdioClientTransport({
        command: target.command,
        args: target.args,
        // The SDK passes only a minimal environment by default; the harness's settings (such
        // as MCP_REQUEST_STATE_KEY or RUST_LOG) should reach the server.
        env: { ...process.env },
        stderr: 'inherit', // the server's log goes where ours goes
      });
    }
    // The client hands the negotiated revision to the transport (HTTP sends it as a header);
    // wrapping the hook sees it on stdio too, which has no such header.
    const transport = this.transport;
    const original = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version) => {
      this.negotiated = version;
      original?.(version);
    };
    await within(CALL_TIMEOUT_MS, this.client.connect(transport), 'initialize');
  }

  // Rules are { match: RegExp, reply: (params, extra) => result }; all must be used by the end.
  expect(...rules) {
    this.rules.push(...rules.map((r) => ({ ...r, used: false })));
    return this.rules.slice(-rules.length);
  }

  async call(name, args, options = {}) {
    const result = await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: CALL_TIMEOUT_MS,
      ...options,
    });
    return result;
  }

  // The text of a completed, non-error result.
  async text(name, args, options) {
    const result = await this.call(name, args, options);
    const text = (result.content ?? [])
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('\n');
    check(!result.isError, `${name} returned isError: ${text}`);
    return text;
  }

  verifyScript() {
    check(this.unexpected.length === 0, `unexpected elicitation(s): ${JSON.stringify(this.unexpected)}`);
    const unused = this.rules.filter((r) => !r.used).map((r) => String(r.match));
    check(unused.length === 0, `expected elicitation(s) never came: ${unused.join(', ')}`);
  }

  async close() {
    // Over HTTP, end the session as a well-behaved client does (DELETE; 405 is accepted).
    if (target.http && this.transport.sessionId) await this.transport.terminateSession();
    await this.client.close();
  }
}

const accept = (content) => () => ({ action: 'accept', content });

function describe(error) {
  if (error instanceof Failure) return error.message;
  const cause = error?.cause?.message ? ` (${error.cause.message})` : '';
  return `${error?.name ?? 'Error'}: ${error?.message ?? error}${cause}`;
}

const tally = new Tally();
async function scenario(name, body) {
  const session = new Session();
  try {
    await session.connect();
    await body(session);
    session.verifyScript();
    tally.pass(name);
  } catch (error) {
    tally.fail(name, describe(error).split('\n').join(' | '));
  } finally {
    await within(CALL_TIMEOUT_MS, session.close(), 'closing the session').catch((error) => {
      tally.fail(`${name} (closing the session)`, describe(error));
    });
  }
}

function expectText(actual, expected) {
  const ok = expected instanceof RegExp ? expected.test(actual) : actual === expected;
  check(ok, `expected ${expected instanceof RegExp ? expected : JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

await scenario('initialize', async (s) => {
  check(s.negotiated === EXPECTED_VERSION, `negotiated ${s.negotiated}, expected ${EXPECTED_VERSION}`);
  check(s.client.getServerVersion()?.name, 'no serverInfo.name');
  check(s.client.getServerCapabilities()?.tools, 'server capabilities lack tools');
  if (target.http) check(s.transport.sessionId, 'no Mcp-Session-Id issued by initialize');
  const { tools } = await s.client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === '["confirm_deploy","deploy","deployments"]', `tools/list gave ${names}`);
  const deploy = tools.find((t) => t.name === 'deploy');
  check(deploy.inputSchema?.properties?.service, 'deploy has no `service` argument');
});

await scenario('accept', async (s) => {
  const [form] = s.expect({
    match: /^Where should api go\?/,
    reply: accept({ environment: 'staging', replicas: 3, reason: 'release' }),
  });
  expectText(await s.text('deploy', { service: 'api' }), /^Deployed 3 replicas of api to Staging \(release\)\.$/);
  // What a client renders the form from: the enum with titles, the integer bounds.
  const props = form.params.requestedSchema?.properties ?? {};
  const consts = (props.environment?.oneOf ?? []).map((o) => o.const);
  check(JSON.stringify(consts) === '["staging","production"]', `environment oneOf: ${JSON.stringify(props.environment)}`);
  check(props.environment.oneOf.every((o) => typeof o.title === 'string'), 'environment choices lack titles');
  check(props.replicas?.type === 'integer' && props.replicas.minimum === 1 && props.replicas.maximum === 12,
    `replicas: ${JSON.stringify(props.replicas)}`);
});

await scenario('two-rounds-confirmed', async (s) => {
  s.expect(
    { match: /^Where should api go\?/, reply: accept({ environment: 'production', replicas: 3, reason: 'release' }) },
    { match: /^Ship 3 replicas of api to production\?/, reply: accept({ ok: true }) },
  );
  expectText(await s.text('deploy', { service: 'api' }), /^Deployed 3 replicas of api to Production/);
});

await scenario('two-rounds-refused', async (s) => {
  s.expect(
    { match: /^Where should api go\?/, reply: accept({ environment: 'production', replicas: 2 }) },
    { match: /^Ship 2 replicas of api to production\?/, reply: accept({ ok: false }) },
  );
  expectText(await s.text('deploy', { service: 'api' }), 'Nothing deployed.');
});

await scenario('decline', async (s) => {
  s.expect({ match: /^Where should api go\?/, reply: () => ({ action: 'decline' }) });
  expectText(await s.text('deploy', { service: 'api' }), 'The user declined the request; nothing was done.');
});

await scenario('cancel', async (s) => {
  s.expect({ match: /^Where should api go\?/, reply: () => ({ action: 'cancel' }) });
  expectText(await s.text('deploy', { service: 'api' }), 'The user cancelled the request; nothing was done.');
});

await scenario('invalid-answer-asked-again', async (s) => {
  const [, again] = s.expect(
    { match: /^Where should api go\?/, reply: accept({ environment: 'staging', replicas: 99 }) },
    { match: /^Where should api go\?/, reply: accept({ environment: 'staging', replicas: 4 }) },
  );
  expectText(await s.text('deploy', { service: 'api' }), /^Deployed 4 replicas of api to Staging\.$/);
  check(/replicas/.test(again.params?.message ?? ''),
    `the second question does not name the problem: ${JSON.stringify(again.params?.message)}`);
});

await scenario('concurrent-calls', async (s) => {
  // Both questions must be pending at once before either is answered: each reply waits for
  // the other call's question, so a server that serialises calls fails here.
  let seenA, seenB;
  const askedA = new Promise((r) => (seenA = r));
  const askedB = new Promise((r) => (seenB = r));
  s.expect(
    { match: /^Where should alpha go\?/, reply: async () => {
      seenA();
      await within(10_000, askedB, 'the second call’s question while the first is pending');
      return { action: 'accept', content: { environment: 'staging', replicas: 1 } };
    } },
    { match: /^Where should beta go\?/, reply: async () => {
      seenB();
      await within(10_000, askedA, 'the first call’s question while the second is pending');
      return { action: 'accept', content: { environment: 'staging', replicas: 5, reason: 'beta' } };
    } },
  );
  const [a, b] = await Promise.all([
    s.text('deploy', { service: 'alpha' }),
    s.text('deploy', { service: 'beta' }),
  ]);
  expectText(a, 'Deployed 1 replicas of alpha to Staging.');
  expectText(b, 'Deployed 5 replicas of beta to Staging (beta).');
});

await scenario('call-after-cancelled-call', async (s) => {
  const stop = new AbortController();
  let asked;
  const pending = new Promise((r) => (asked = r));
  s.expect(
    // The first question stays open until the call is aborted (or the server withdraws it),
    // then gets a late `cancel` the server must tolerate.
    { match: /^Deploy to production\?/, reply: (params, extra) => new Promise((resolve) => {
      asked();
      const late = () => setTimeout(() => resolve({ action: 'cancel' }), 200);
      stop.signal.addEventListener('abort', late);
      extra.signal.addEventListener('abort', late);
    }) },
    { match: /^Deploy to production\?/, reply: accept({ ok: true }) },
  );
  // The SDK sends notifications/cancelled for the call when its signal aborts.
  const first = s.call('confirm_deploy', {}, { signal: stop.signal });
  const outcome = first.then(() => 'completed', (error) => error);
  await within(CALL_TIMEOUT_MS, pending, 'the first call’s question');
  stop.abort('the user stopped the call');
  const result = await outcome;
  check(result !== 'completed', 'the aborted call completed');
  await sleep(300);
  expectText(await s.text('confirm_deploy', {}), 'Deployment confirmed.');
});

await scenario('confirm-deploy', async (s) => {
  const [confirm] = s.expect({ match: /^Deploy to production\?$/, reply: accept({ ok: true }) });
  expectText(await s.text('confirm_deploy', {}), 'Deployment confirmed.');
  const ok = confirm.params.requestedSchema?.properties?.ok;
  check(ok?.type === 'boolean', `confirm.ok: ${JSON.stringify(ok)}`);
});

await scenario('structured-result', async (s) => {
  // `deployments` declares an outputSchema: the SDK compiles it when it lists the tools and
  // checks every structuredContent against it, so a schema it cannot read or a result that
  // does not match fails the call.
  s.expect({ match: /^Where should ledger go\?/, reply: accept({ environment: 'staging', replicas: 2 }) });
  expectText(await s.text('deploy', { service: 'ledger' }), 'Deployed 2 replicas of ledger to Staging.');
  const { tools } = await s.client.listTools();
  const listed = tools.find((tool) => tool.name === 'deployments');
  check(listed?.outputSchema?.type === 'object', `outputSchema: ${JSON.stringify(listed?.outputSchema)}`);
  check(listed?.annotations?.readOnlyHint === true, `annotations: ${JSON.stringify(listed?.annotations)}`);
  const result = await s.call('deployments', {});
  const records = result.structuredContent?.deployments ?? [];
  const ours = records.filter((record) => record.service === 'ledger');
  check(ours.length >= 1 && ours.every((record) => record.replicas === 2 && record.environment === 'staging'),
    `structuredContent: ${JSON.stringify(result.structuredContent)}`);
  const text = JSON.parse(result.content?.[0]?.text ?? 'null');
  check(JSON.stringify(text) === JSON.stringify(result.structuredContent), 'the text block repeats the structured result');
});

tally.finish();
