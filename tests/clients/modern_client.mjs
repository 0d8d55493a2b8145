// A real MCP client on the 2026-07-28 wire: the TypeScript SDK v2 (`@modelcontextprotocol/client`),
// pinned to that revision, listening to the `tracker` example with `subscriptions/listen`.
//
//   node tests/clients/modern_client.mjs --http http://127.0.0.1:PORT/mcp
//   node tests/clients/modern_client.mjs --stdio target/debug/tracker --stdio
//
// The SDK is not a dependency of the repository: scripts/modern-clients.sh installs it into
// .cache/modern-clients/node. It is loaded from there with createRequire (the CommonJS build);
// set MCP_CLIENT_NODE_MODULES to use another node_modules folder. The server must be fresh (no
// issue filed yet). Each scenario prints `PASS name` or `FAIL name: reason`; the last line is
// `N passed, N failed` and the exit code is 1 when any failed.

import { Tally, check, sdkRequire, target as parseTarget, within } from './harness.mjs';

const require = sdkRequire('modern-clients');
const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');

// Bounds every wait, so a server that never answers fails one scenario instead of the run.
const WAIT_MS = 20_000;

const target = parseTarget('modern_client.mjs');

// Notifications by method, each a queue the scenarios wait on.
class Inbox {
  constructor() {
    this.queues = new Map();
    this.waiters = new Map();
  }
  push(method, notification) {
    const waiter = this.waiters.get(method)?.shift();
    if (waiter) waiter(notification);
    else this.queue(method).push(notification);
  }
  queue(method) {
    if (!this.queues.has(method)) this.queues.set(method, []);
    return this.queues.get(method);
  }
  next(method) {
    const queued = this.queue(method).shift();
    if (queued) return Promise.resolve(queued);
    return within(
      WAIT_MS,
      new Promise((resolve) => {
        if (!this.waiters.has(method)) this.waiters.set(method, []);
        this.waiters.get(method).push(resolve);
      }),
      method,
    );
  }
}

const client = new Client(
  { name: 'modern-client-ts', version: '1.0.0' },
  { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
const inbox = new Inbox();
for (const method of ['notifications/tools/list_changed', 'notifications/resources/updated']) {
  client.setNotificationHandler(method, (notification) => inbox.push(method, notification));
}
const transport = target.http
  ? new StreamableHTTPClientTransport(new URL(target.http))
  : new StdioClientTransport({ command: target.command, args: target.args, stderr: 'ignore' });

const tally = new Tally();
const reason = (error) => String(error?.message ?? error).replace(/\s+/g, ' ');
async function scenario(name, body) {
  try {
    await body();
    tally.pass(name);
  } catch (error) {
    tally.fail(name, reason(error));
  }
}

const toolNames = async () => (await client.listTools()).tools.map((tool) => tool.name);

try {
  await within(WAIT_MS, client.connect(transport), 'connect');
  let subscription;
  await scenario('listen-acknowledged', async () => {
    subscription = await within(
      WAIT_MS,
      client.listen({
        toolsListChanged: true,
        promptsListChanged: true,
        resourceSubscriptions: ['tracker://issues/1'],
      }),
      'listen',
    );
    const honored = subscription.honoredFilter;
    check(honored.toolsListChanged === true, `toolsListChanged not honoured: ${JSON.stringify(honored)}`);
    check(!honored.promptsListChanged, `prompts honoured by a server without prompts: ${JSON.stringify(honored)}`);
    check(
      JSON.stringify(honored.resourceSubscriptions) === '["tracker://issues/1"]',
      `subscriptions: ${JSON.stringify(honored)}`,
    );
  });
  await scenario('resource-updated', async () => {
    const result = await within(
      WAIT_MS,
      client.callTool({ name: 'create_issue', arguments: { title: 'Checkout times out', priority: 'low' } }),
      'create_issue',
    );
    check(result.structuredContent?.number === 1, `filed: ${JSON.stringify(result)}`);
    const updated = await inbox.next('notifications/resources/updated');
    check(updated.params.uri === 'tracker://issues/1', `updated: ${JSON.stringify(updated)}`);
  });
  await scenario('tools-list-changed', async () => {
    const off = await client.callTool({
      name: 'set_tool_enabled',
      arguments: { name: 'list_issues', enabled: false },
    });
    check(off.structuredContent?.changed === true, `switched: ${JSON.stringify(off)}`);
    await inbox.next('notifications/tools/list_changed');
    const names = await toolNames();
    check(!names.includes('list_issues'), `still listed: ${names}`);
    await client.callTool({ name: 'set_tool_enabled', arguments: { name: 'list_issues', enabled: true } });
    await inbox.next('notifications/tools/list_changed');
    const again = await toolNames();
    check(
      again.join() === 'create_issue,close_issues,list_issues,set_tool_enabled',
      `order after enabling again: ${again}`,
    );
  });
  await scenario('close-local', async () => {
    check(subscription, 'no subscription to close');
    await subscription.close();
    const how = await within(WAIT_MS, subscription.closed, 'closed');
    check(how === 'local', `closed: ${how}`);
  });
} catch (error) {
  tally.fail('connect', reason(error));
} finally {
  await client.close().catch(() => {});
}
tally.finish();
