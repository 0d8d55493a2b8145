// Summarises the checks.json files the conformance suite wrote, for scripts/conformance.sh.
//
// usage: node conformance-summary.js RESULTS_DIR REQUIREMENTS_DIR REVISION...
//
// A scenario that reported no check, or only SKIPPED ones, checked nothing and fails wherever it
//   must pass.
// RESULTS_DIR/one-by-one: the 2026-07-28 scenarios run one by one; every FAILURE or WARNING fails.
// RESULTS_DIR/one-by-one-<REVISION>: scenarios run one by one at an older revision; every FAILURE
//   fails, warnings are shown.
// Each one-by-one folder's `<folder>.expected` (one scenario a line, written by conformance.sh)
//   lists what must have reported; a missing report fails.
// RESULTS_DIR/requirements-<REVISION>, for every REVISION given: the `--requirements` run. Every
//   scenario of the `server:` list of REQUIREMENTS_DIR/<REVISION>.yaml must have reported with no
//   FAILURE; the rest is shown. An empty or missing `server:` list fails too.
'use strict';
const fs = require('fs');
const path = require('path');

const [resultsDir, requirementsDir, ...revisions] = process.argv.slice(2);
if (!resultsDir || !requirementsDir || revisions.length === 0) {
  console.error('usage: node conformance-summary.js RESULTS_DIR REQUIREMENTS_DIR REVISION...');
  process.exit(2);
}

// The `server:` list of a requirements file: `  - name` lines up to the next top-level key.
function scoredServerScenarios(file) {
  const scored = new Set();
  if (!fs.existsSync(file)) return scored;
  let inServer = false;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (/^\S/.test(line)) inServer = /^server:\s*$/.test(line);
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
        // Nothing was checked: no check at all, or every one skipped.
        empty: checks.every((check) => check.status === 'SKIPPED'),
        bad,
      };
    })
    .sort((a, b) => a.scenario.localeCompare(b.scenario));
}

function show(run, mark) {
  const counts = `${run.success} passed, ${run.failure} failed, ${run.warning} warnings, ${run.skipped} skipped`;
  console.log(`  ${mark} ${run.scenario.padEnd(48)} ${counts}${run.empty ? ' (nothing checked)' : ''}`);
  for (const check of run.bad) {
    console.log(`      ${check.status} ${check.id}: ${check.errorMessage ?? ''}`);
  }
}

function expected(folder) {
  const file = path.join(resultsDir, `${folder}.expected`);
  if (!fs.existsSync(file)) return [];
  return [...new Set(fs.readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean))];
}

let failed = false;
const totals = [];

// A one-by-one folder; `strict` fails on warnings as well as failures.
function oneByOne(folder, label, strict) {
  const runs = readRuns(path.join(resultsDir, folder));
  const wanted = expected(folder);
  const rule = strict ? 'failures and warnings fail' : 'failures fail';
  console.log(`== ${label} one by one (${runs.length} scenarios; ${rule})`);
  let passed = 0;
  for (const run of runs) {
    const ok = run.failure === 0 && !run.empty && (!strict || run.warning === 0);
    if (ok) passed += 1;
    failed ||= !ok;
    show(run, ok ? (run.warning ? 'warn' : 'ok  ') : 'FAIL');
  }
  const missing = wanted.filter((name) => !runs.some((run) => run.scenario === name));
  if (missing.length > 0) {
    console.log(`  FAIL no results from: ${missing.join(', ')}`);
    failed = true;
  }
  if (runs.length === 0) {
    console.log('  FAIL no results');
    failed = true;
  }
  const total = Math.max(wanted.length, runs.length);
  totals.push(`${label} one by one: ${passed}/${total} scenarios passed`);
}

function requirements(revision) {
  const yaml = path.join(requirementsDir, `${revision}.yaml`);
  const scored = scoredServerScenarios(yaml);
  const runs = readRuns(path.join(resultsDir, `requirements-${revision}`));
  const scoredRuns = runs.filter((run) => scored.has(run.scenario));
  const passes = (run) => run.failure === 0 && !run.empty;
  const passedScored = new Set(scoredRuns.filter(passes).map((run) => run.scenario));
  // A scenario reported twice counts as passed only if every report passed.
  for (const run of scoredRuns) if (!passes(run)) passedScored.delete(run.scenario);
  console.log(
    `== --requirements ${revision}: ${passedScored.size}/${scored.size} scored scenarios pass ` +
      `(${runs.length} run)`
  );
  for (const run of runs) {
    const isScored = scored.has(run.scenario);
    const ok = passes(run);
    if (isScored && !ok) failed = true;
    show(run, ok ? (run.warning ? 'warn' : 'ok  ') : isScored ? 'FAIL' : 'n/s ');
  }
  if (scored.size === 0) {
    console.log(`  FAIL no scored server scenarios found in ${yaml}`);
    failed = true;
  }
  const missing = [...scored].filter((name) => !scoredRuns.some((run) => run.scenario === name));
  if (missing.length > 0) {
    console.log(`  FAIL scored scenarios without results: ${missing.join(', ')}`);
    failed = true;
  }
  if (runs.length < scored.size) {
    console.log(`  FAIL only ${runs.length} scenarios reported; ${revision} scores ${scored.size}`);
    failed = true;
  }
  const warnings = scoredRuns.reduce((sum, run) => sum + run.warning, 0);
  totals.push(
    `${revision}: ${passedScored.size}/${scored.size} scored scenarios passed` +
      ` (${warnings} warnings in scored scenarios)`
  );
}

oneByOne('one-by-one', '2026-07-28', true);
for (const revision of revisions) {
  if (fs.existsSync(path.join(resultsDir, `one-by-one-${revision}`)) || expected(`one-by-one-${revision}`).length) {
    oneByOne(`one-by-one-${revision}`, revision, false);
  }
}
for (const revision of revisions) requirements(revision);

console.log('== totals');
for (const line of totals) console.log(`  ${line}`);

process.exit(failed ? 1 : 0);
