#!/usr/bin/env node
// Installs the toolchain the service and its tests need into the git-ignored .tools/ folder, once.
// Versions are pinned in scripts/tool-versions.json (the Docker image builds from the same file).
//  - the Temporal CLI (dev server with Web UI; operator commands), built with `go install`;
//  - the Temporal server and temporal-sql-tool (the `server` engine, on PostgreSQL), with the module's
//    PostgreSQL schema folders copied beside them;
//  - the Temporal Web UI server (for the `server` engine);
//  - the Java time-skipping test server (io.temporal:temporal-test-server) from Maven Central, with a launcher;
//  - Stripe's test tools for the Stripe adapter's tests: stripe-mock (built with `go install`) and localstripe
//    (PyPI, in a virtual environment of its own). Without Go or Python they are skipped, saying so, and the
//    tests that need them skip too.
// Later runs reuse what is there. TEMPORAL_CLI or a `temporal` on PATH replaces the CLI build.
// SKIP_TOOLS_BOOTSTRAP=1 skips everything. `node scripts/bootstrap.mjs go` builds only the Go programs.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tools = process.env.TOOLS_DIR ?? path.join(root, '.tools');
const versions = JSON.parse(fs.readFileSync(path.join(root, 'scripts', 'tool-versions.json'), 'utf8'));
const TEST_SERVER_MARKER = 'slf4j-nop-1.7.36.jar'; // bump with pom.xml changes so an old tools folder is refreshed

function log(line) {
  console.log(`[bootstrap] ${line}`);
}

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function run(command, args, options = {}) {
  log(`$ ${command} ${args.join(' ')}`);
  execFileSync(command, args, { stdio: 'inherit', ...options });
}

function minutes(ms) {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * `go install` with progress: `-v` names each package as it is compiled; a line every 20 s says how
 * many so far and how long it has taken. On failure, says what to do.
 */
function goInstall(what, usually, gobin, packages) {
  if (!has('go')) {
    throw new Error(
      `Go is needed to build ${what} (https://go.dev/dl, 1.23 or newer), or set TEMPORAL_ENGINE=dev and skip it with SKIP_TOOLS_BOOTSTRAP=1.`,
    );
  }
  fs.mkdirSync(gobin, { recursive: true });
  log(`building ${what} (usually ${usually} on two cores; once, cached in ${path.relative(root, tools) || tools}/)`);
  log(`$ go install -v ${packages.join(' ')}`);
  const started = Date.now();
  let compiled = 0;
  let tail = [];
  return new Promise((resolve, reject) => {
    const child = spawn('go', ['install', '-v', ...packages], {
      env: { ...process.env, GOBIN: gobin, GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    const timer = setInterval(
      () => log(`  ${what}: ${compiled} packages compiled, ${minutes(Date.now() - started)} so far`),
      20_000,
    );
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      for (const line of chunk.split('\n')) {
        if (!line) continue;
        if (/^[\w.-]+(\/[\w.@+-]+)*$/.test(line)) compiled += 1;
        else tail = [...tail, line].slice(-30);
      }
    });
    child.on('exit', (code) => {
      clearInterval(timer);
      if (code === 0) {
        log(`  ${what}: built in ${minutes(Date.now() - started)}`);
        return resolve();
      }
      for (const line of tail) console.error(`[bootstrap]   ${line}`);
      reject(
        new Error(
          `building ${what} failed (go exited with ${code}). Check: \`go version\` (1.23+), that GOPROXY reaches the Go module proxy, ` +
            'free disk space for the Go build cache; then run `npm run bootstrap` again. ' +
            'The dev engine (TEMPORAL_ENGINE=dev, the default) does not need this build.',
        ),
      );
    });
  });
}

async function temporalCli() {
  const target = path.join(tools, 'bin', 'temporal');
  if (process.env.TEMPORAL_CLI) return log(`Temporal CLI: ${process.env.TEMPORAL_CLI} (TEMPORAL_CLI)`);
  if (fs.existsSync(target)) return log(`Temporal CLI: ${target} (reused)`);
  if (has('temporal')) return log('Temporal CLI: `temporal` on PATH');
  await goInstall(`the Temporal CLI ${versions.temporalCli}`, 'about 5 minutes', path.dirname(target), [
    `github.com/temporalio/cli/cmd/temporal@${versions.temporalCli}`,
  ]);
}

/** The Temporal server, temporal-sql-tool and the PostgreSQL schema, in .tools/temporal-server/<version>/. */
async function temporalServer() {
  const version = versions.temporalServer;
  const dir = path.join(tools, 'temporal-server', version);
  const ready = path.join(dir, '.complete');
  if (fs.existsSync(ready)) return log(`Temporal server ${version}: reused`);
  fs.rmSync(dir, { recursive: true, force: true });
  const gobin = path.join(dir, 'gobin');
  await goInstall(`the Temporal server ${version} and temporal-sql-tool`, 'about 5 minutes, after the CLI', gobin, [
    `go.temporal.io/server/cmd/server@${version}`,
    `go.temporal.io/server/cmd/tools/sql@${version}`,
  ]);
  fs.renameSync(path.join(gobin, 'server'), path.join(dir, 'temporal-server'));
  fs.renameSync(path.join(gobin, 'sql'), path.join(dir, 'temporal-sql-tool'));
  fs.rmSync(gobin, { recursive: true, force: true });
  // The schema the sql tool applies comes from the module itself, so it always matches the binary.
  const modCache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const schema = path.join(modCache, 'go.temporal.io', `server@${version}`, 'schema', 'postgresql', 'v12');
  fs.cpSync(schema, path.join(dir, 'schema', 'postgresql', 'v12'), { recursive: true });
  fs.chmodSync(dir, 0o755);
  execFileSync('chmod', ['-R', 'u+w,a+rX', path.join(dir, 'schema')]);
  fs.writeFileSync(ready, `${version}\n`);
}

/** The Web UI server (assets embedded) in .tools/temporal-ui-server/<version>/. */
async function temporalUiServer() {
  const version = versions.temporalUiServer;
  const dir = path.join(tools, 'temporal-ui-server', version);
  const binary = path.join(dir, 'temporal-ui-server');
  if (fs.existsSync(binary)) return log(`Temporal UI server ${version}: reused`);
  const gobin = path.join(dir, 'gobin');
  await goInstall(`the Temporal Web UI server ${version}`, 'under a minute, after the CLI', gobin, [
    `github.com/temporalio/ui-server/v2/cmd/server@${version}`,
  ]);
  fs.renameSync(path.join(gobin, 'server'), binary);
  fs.rmSync(gobin, { recursive: true, force: true });
}

function timeSkippingServer() {
  const version = versions.timeSkippingTestServer;
  const dir = path.join(tools, 'temporal-test-server');
  const lib = path.join(dir, 'lib');
  const launcher = path.join(dir, 'temporal-test-server');
  if (![`temporal-test-server-${version}.jar`, TEST_SERVER_MARKER].every((jar) => fs.existsSync(path.join(lib, jar)))) {
    if (!has('mvn') || !has('java'))
      throw new Error('Java and Maven are needed for the Temporal time-skipping test server.');
    log(`fetching io.temporal:temporal-test-server:${version} and its dependencies`);
    fs.rmSync(lib, { recursive: true, force: true });
    run('mvn', [
      '-q',
      '-B',
      '-f',
      path.join(root, 'scripts', 'test-server', 'pom.xml'),
      'dependency:copy-dependencies',
      `-DtestServerVersion=${version}`,
      '-DincludeScope=runtime',
      `-DoutputDirectory=${lib}`,
    ]);
  } else {
    log(`time-skipping test server ${version}: reused`);
  }
  // The SDK starts an `existing-path` server as `<path> <port> --enable-time-skipping`.
  fs.writeFileSync(
    launcher,
    '#!/bin/sh\nDIR=$(cd "$(dirname "$0")" && pwd)\nexec java -Xss1m -XX:+UseSerialGC -cp "$DIR/lib/*" io.temporal.testserver.TestServer "$@"\n',
  );
  fs.chmodSync(launcher, 0o755);
}

/** stripe-mock (Stripe's OpenAPI, validated requests, fixture answers) in .tools/stripe-mock/<version>/. */
async function stripeMock() {
  const version = versions.stripeMock;
  const dir = path.join(tools, 'stripe-mock', version);
  const binary = path.join(dir, 'stripe-mock');
  if (fs.existsSync(binary)) return log(`stripe-mock ${version}: reused`);
  if (!has('go')) return log(`stripe-mock ${version}: skipped, Go is not installed (the Stripe adapter's tests skip)`);
  const gobin = path.join(dir, 'gobin');
  await goInstall(`stripe-mock ${version}`, 'about a minute', gobin, [`github.com/stripe/stripe-mock@${version}`]);
  fs.renameSync(path.join(gobin, 'stripe-mock'), binary);
  fs.rmSync(gobin, { recursive: true, force: true });
}

/** localstripe (a stateful Stripe stand-in that declines Stripe's decline test cards) in a venv of its own. */
function localstripe() {
  const version = versions.localstripe;
  // A venv writes its own path into its scripts: the real one, so a tools folder reached through a
  // symbolic link (a worktree's) keeps working after that link is gone.
  fs.mkdirSync(tools, { recursive: true });
  const dir = path.join(fs.realpathSync(tools), 'localstripe', version);
  const ready = path.join(dir, '.complete');
  if (fs.existsSync(ready)) return log(`localstripe ${version}: reused`);
  if (!has('python3')) return log(`localstripe ${version}: skipped, python3 is not installed (its tests skip)`);
  fs.rmSync(dir, { recursive: true, force: true });
  try {
    run('python3', ['-m', 'venv', path.join(dir, 'venv')]);
    run(path.join(dir, 'venv', 'bin', 'pip'), ['install', '--quiet', `localstripe==${version}`]);
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    return log(`localstripe ${version}: skipped, install failed (${error.message}); \`npm run bootstrap\` tries again`);
  }
  fs.writeFileSync(ready, `${version}\n`);
}

async function main() {
  const onlyGo = process.argv[2] === 'go';
  // The CLI first: the server and UI builds then reuse most of its compiled packages.
  await temporalCli();
  await temporalServer();
  await temporalUiServer();
  if (!onlyGo) {
    timeSkippingServer();
    await stripeMock();
    localstripe();
  }
  log('toolchain ready');
}

if (process.env.SKIP_TOOLS_BOOTSTRAP === '1') {
  log('skipped (SKIP_TOOLS_BOOTSTRAP=1)');
} else {
  main().catch((error) => {
    console.error(`[bootstrap] failed: ${error.message}`);
    process.exit(1);
  });
}
