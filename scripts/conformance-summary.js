// Summarises the checks.json files the conformance suite wrote, for scripts/conformance.sh.
//
// usage: node conformance-summary.js RESULTS_DIR REQUIREMENTS_YAML
// RESULTS_DIR/one-by-one: every FAILURE or WARNING fails.
// RESULTS_DIR/requirements: a FAILURE in a scenario the revision scores fails; the rest is shown.
'use strict';
const fs = require('fs');
const path = require('path');

const [resultsDir, requirementsYaml] = process.argv.slice(2);

// The `server:` list of the requirements file: `  - name` lines up to the next top-level key.
function scoredServerScenarios(file) {
  const scored = new Set();
  let inServer = false;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (/^\S/.test(line)) inServer = line.startsWith('server:');
    const item = inServer && line.match(/^\s+-\s+([\w./-]+)\s*$/);
    if (item) scored.add(item[1]);
  }
  return scored;
}

// Each run folder is `server-<scenario>-<timestamp>` and holds checks.json.
function readRuns(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => fs.existsSync(path.join(dir, name, 'checks.json')))
    .map((name) => {
      const scenario = name.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+(\.\d+)?Z?$/, '');
      const checks = JSON.parse(fs.readFileSync(path.join(dir, name, 'checks.json'), 'utf8'));
      const count = (status) => checks.filter((check) => check.status === status).length;
      const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
      return {
        scenario,
        success: count('SUCCESS'),
        failure: count('FAILURE'),
        warning: count('WARNING'),
        skipped: count('SKIPPED'),
        bad,
      };
    })
    .sort((a, b) => a.scenario.localeCompare(b.scenario));
}

function show(run, mark) {
  const counts = `${run.success} passed, ${run.failure} failed, ${run.warning} warnings, ${run.skipped} skipped`;
  console.log(`  ${mark} ${run.scenario.padEnd(48)} ${counts}`);
  for (const check of run.bad) {
    console.log(`      ${check.status} ${check.id}: ${check.errorMessage ?? ''}`);
  }
}

let failed = false;

const oneByOne = readRuns(path.join(resultsDir, 'one-by-one'));
console.log(`== one by one (${oneByOne.length} scenarios; failures and warnings fail)`);
for (const run of oneByOne) {
  const ok = run.failure === 0 && run.warning === 0;
  failed ||= !ok;
  show(run, ok ? 'ok  ' : 'FAIL');
}
if (oneByOne.length === 0) {
  console.log('  no results');
  failed = true;
}

const scored = scoredServerScenarios(requirementsYaml);
const requirements = readRuns(path.join(resultsDir, 'requirements'));
const scoredRuns = requirements.filter((run) => scored.has(run.scenario));
const passedScored = scoredRuns.filter((run) => run.failure === 0).length;
console.log(
  `== --requirements 2026-07-28: ${passedScored}/${scored.size} scored scenarios pass ` +
    `(${requirements.length} run)`
);
for (const run of requirements) {
  const isScored = scored.has(run.scenario);
  const ok = run.failure === 0;
  if (isScored && !ok) failed = true;
  show(run, ok ? (run.warning ? 'warn' : 'ok  ') : isScored ? 'FAIL' : 'n/s ');
}
if (scoredRuns.length < scored.size) {
  const missing = [...scored].filter((name) => !scoredRuns.some((run) => run.scenario === name));
  console.log(`  scored scenarios without results: ${missing.join(', ')}`);
  failed = true;
}

process.exit(failed ? 1 : 0);
