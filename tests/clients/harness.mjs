// What the JavaScript client programs share: loading a client SDK from the folder a script
// installed it into, the command line (`--http URL` or `--stdio COMMAND [ARGS...]`), checks
// that fail a scenario, a bound on every wait, and the `PASS name` / `FAIL name: reason`
// lines with their closing count.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// A `require` for the SDK installed under .cache/FOLDER/node (the CommonJS build: ESM `import`
// ignores NODE_PATH); MCP_CLIENT_NODE_MODULES names another node_modules folder.
export function sdkRequire(folder) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const nodeModules =
    process.env.MCP_CLIENT_NODE_MODULES ??
    path.join(here, '..', '..', '.cache', folder, 'node', 'node_modules');
  return createRequire(path.join(nodeModules, 'noop.js'));
}

// The server to drive: `{ http: URL }` or `{ command, args }`; exits 2 on anything else.
export function target(program) {
  const argv = process.argv.slice(2);
  if (argv[0] === '--http' && argv.length === 2) return { http: argv[1] };
  if (argv[0] === '--stdio' && argv.length >= 2) return { command: argv[1], args: argv.slice(2) };
  console.error(`usage: ${program} --http URL | --stdio COMMAND [ARGS...]`);
  process.exit(2);
}

export class Failure extends Error {}

export function check(condition, message) {
  if (!condition) throw new Failure(message);
}

// `promise`, or a Failure naming `what` once `ms` have passed.
export function within(ms, promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Failure(`${what}: nothing after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// The scenarios' outcomes: a line each, then `N passed, N failed` and the exit code.
export class Tally {
  constructor() {
    this.passed = 0;
    this.failed = 0;
  }
  pass(name) {
    console.log(`PASS ${name}`);
    this.passed += 1;
  }
  fail(name, reason) {
    console.log(`FAIL ${name}: ${reason}`);
    this.failed += 1;
  }
  finish() {
    console.log(`${this.passed} passed, ${this.failed} failed`);
    process.exit(this.failed === 0 ? 0 : 1);
  }
}
