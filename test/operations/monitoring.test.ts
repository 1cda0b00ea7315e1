import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { serveWorkerMetrics } from '../../src/temporal/worker-metrics';
import { startTestApp, type TestApp } from '../support/harness';
import { families } from '../support/metrics';

/**
 * deploy/prometheus (scrape config, alert rules and their promtool tests) and deploy/grafana (the
 * dashboard): the rules pass `promtool check rules` and `promtool test rules`, and every metric a rule
 * or a panel names is one the API or a worker exports (docs/operations.md, "Metrics and alerts").
 */
const root = path.join(__dirname, '..', '..');
const prometheusDir = path.join(root, 'deploy', 'prometheus');
const RULES = path.join(prometheusDir, 'billing-rules.yml');
const DASHBOARD = path.join(root, 'deploy', 'grafana', 'billing-dashboard.json');

const PROMTOOL = process.env.PROMTOOL_PATH ?? 'promtool';
const havePromtool = spawnSync(PROMTOOL, ['--version'], { stdio: 'ignore' }).status === 0;
if (!havePromtool)
  console.warn(
    `test/operations/monitoring.test.ts: no promtool (apt-get install prometheus, or set PROMTOOL_PATH): the promtool checks are skipped`,
  );

const promtool = (...args: string[]) =>
  execFileSync(PROMTOOL, args, { cwd: prometheusDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

(havePromtool ? it : it.skip)(
  'the rules are valid and their unit tests pass (promtool check rules, test rules, check config)',
  () => {
    expect(promtool('check', 'rules', 'billing-rules.yml')).toContain('SUCCESS');
    expect(promtool('test', 'rules', 'billing-rules.test.yml')).toContain('SUCCESS');
    expect(promtool('check', 'config', 'prometheus.yml')).toContain('SUCCESS');
  },
);

interface RuleFile {
  groups: { name: string; rules: { record?: string; alert?: string; expr: string }[] }[];
}
const rules = parse(fs.readFileSync(RULES, 'utf8')) as RuleFile;
const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
};

/** Metric names in a PromQL expression: identifiers of the service's families and Prometheus' `up`, not labels or functions. */
function metricNames(expr: string): string[] {
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const withoutLabels = withoutStrings
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  return [
    ...withoutLabels.matchAll(
      /\b(billing_[a-z0-9_]+|billing:[a-z0-9_:]+|process_[a-z0-9_]+|nodejs_[a-z0-9_]+|temporal_[a-z0-9_]+|up)\b(?!\s*\()/g,
    ),
  ].map((match) => match[1]!);
}

it('finds the metric names of an expression, not its labels, label values or functions', () => {
  expect(metricNames('sum by (billing_x) (rate(billing_nope_total{status="billing_y"}[5m])) / on (up) up')).toEqual([
    'billing_nope_total',
    'up',
  ]);
});

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

it('every metric a rule or a dashboard panel names is exported by the API or a worker, or recorded by a rule', async () => {
  const api = await (await fetch(`${app.baseUrl}/metrics`)).text();
  const worker = await serveWorkerMetrics({ port: 0, host: '127.0.0.1', sdkMetricsUrl: 'http://127.0.0.1:9/metrics' });
  let workerText: string;
  try {
    workerText = await (await fetch(`http://127.0.0.1:${worker.port}/metrics`)).text();
  } finally {
    await worker.close();
  }
  const exported = new Set([...families(api), ...families(workerText)]);
  // Counted on the Temporal SDK's meter, served by the worker's SDK exporter (not read here: no worker runs).
  const sdkMeter = new Set(['billing_webhook_attempts', 'billing_periods_not_invoiced']);
  const histograms = [...api.matchAll(/^# TYPE (\S+) histogram$/gm)].map((match) => match[1]!);
  for (const name of histograms) for (const suffix of ['_bucket', '_sum', '_count']) exported.add(`${name}${suffix}`);
  const recorded = new Set(
    rules.groups.flatMap((group) => group.rules.map((rule) => rule.record).filter((name) => name !== undefined)),
  );
  const known = (name: string) => exported.has(name) || sdkMeter.has(name) || recorded.has(name) || name === 'up';

  const ruleExprs = rules.groups.flatMap((group) =>
    group.rules.map((rule) => ({ where: `rule ${rule.alert ?? rule.record}`, expr: rule.expr })),
  );
  const panelExprs = dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr })),
  );
  expect(ruleExprs.length).toBeGreaterThan(5);
  expect(panelExprs.length).toBeGreaterThan(10);
  const unknown = [...ruleExprs, ...panelExprs].flatMap(({ where, expr }) =>
    metricNames(expr)
      .filter((name) => !known(name))
      .map((name) => `${where}: ${name}`),
  );
  expect(unknown).toEqual([]);

  // Each signal of the service is on the dashboard, and the alerts watch the ones that page.
  const onDashboard = new Set(panelExprs.flatMap(({ expr }) => metricNames(expr)));
  const billing = [...exported].filter((name) => name.startsWith('billing_') && !/_(bucket|sum|count)$/.test(name));
  expect(billing.filter((name) => !onDashboard.has(name) && !onDashboard.has(`${name}_bucket`))).toEqual([]);
  const alerted = new Set(ruleExprs.flatMap(({ expr }) => metricNames(expr)));
  for (const name of [
    'billing_charges_total',
    'billing_subscriptions',
    'billing_payment_plans',
    'billing_workflow_starts_oldest_age_seconds',
    'billing_webhook_deliveries_oldest_age_seconds',
    'billing_webhook_deliveries_backlog',
    'billing_terminal_payments_stuck',
    'billing_metrics_database_up',
    'billing_periods_not_invoiced',
  ]) {
    expect(alerted.has(name)).toBe(true);
  }
});

it('the dashboard is valid JSON with a Prometheus query on every panel but its rows', () => {
  for (const panel of dashboard.panels) {
    if (panel.type === 'row') continue;
    expect({ title: panel.title, targets: panel.targets?.length ?? 0 }).toEqual({
      title: panel.title,
      targets: expect.any(Number),
    });
    expect(panel.targets?.length ?? 0).toBeGreaterThan(0);
    for (const target of panel.targets!) expect(target.expr).toMatch(/\S/);
  }
});
