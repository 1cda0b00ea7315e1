#!/usr/bin/env node
// Installs the toolchain the service and its tests need into the git-ignored .tools/ folder, once:
//  - the Temporal CLI v1.5.1 (dev server with Web UI), built with `go install` from the Go module proxy;
//  - the Java time-skipping test server (io.temporal:temporal-test-server) from Maven Central, with a launcher.
// Later runs reuse what is there. TEMPORAL_CLI or a `temporal` on PATH replaces the CLI build.
// SKIP_TOOLS_BOOTSTRAP=1 skips everything (production images need neither).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tools = process.env.TOOLS_DIR ?? path.join(root, '.tools');
const TEMPORAL_CLI_VERSION = 'v1.5.1';
const TEST_SERVER_VERSION = '1.38.0';
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

function temporalCli() {
  const target = path.join(tools, 'bin', 'temporal');
  if (process.env.TEMPORAL_CLI) return log(`Temporal CLI: ${process.env.TEMPORAL_CLI} (TEMPORAL_CLI)`);
  if (fs.existsSync(target)) return log(`Temporal CLI: ${target} (reused)`);
  if (has('temporal')) return log('Temporal CLI: `temporal` on PATH');
  if (!has('go')) throw new Error('Go is needed to build the Temporal CLI (or set TEMPORAL_CLI to a temporal binary).');
  fs.mkdirSync(path.dirname(target), { recursive: true });
  log(`building the Temporal CLI ${TEMPORAL_CLI_VERSION} (a few minutes, once)`);
  run('go', ['install', `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`], {
    env: { ...process.env, GOBIN: path.dirname(target), GOFLAGS: '-mod=mod' },
  });
}

function timeSkippingServer() {
  const dir = path.join(tools, 'temporal-test-server');
  const lib = path.join(dir, 'lib');
  const launcher = path.join(dir, 'temporal-test-server');
  if (![`temporal-test-server-${TEST_SERVER_VERSION}.jar`, TEST_SERVER_MARKER].every((jar) => fs.existsSync(path.join(lib, jar)))) {
    if (!has('mvn') || !has('java')) throw new Error('Java and Maven are needed for the Temporal time-skipping test server.');
    log(`fetching io.temporal:temporal-test-server:${TEST_SERVER_VERSION} and its dependencies`);
    fs.rmSync(lib, { recursive: true, force: true });
    run('mvn', [
      '-q',
      '-B',
      '-f',
      path.join(root, 'scripts', 'test-server', 'pom.xml'),
      'dependency:copy-dependencies',
      '-DincludeScope=runtime',
      `-DoutputDirectory=${lib}`,
    ]);
  } else {
    log(`time-skipping test server ${TEST_SERVER_VERSION}: reused`);
  }
  // The SDK starts an `existing-path` server as `<path> <port> --enable-time-skipping`.
  fs.writeFileSync(
    launcher,
    '#!/bin/sh\nDIR=$(cd "$(dirname "$0")" && pwd)\nexec java -Xss1m -XX:+UseSerialGC -cp "$DIR/lib/*" io.temporal.testserver.TestServer "$@"\n',
  );
  fs.chmodSync(launcher, 0o755);
}

if (process.env.SKIP_TOOLS_BOOTSTRAP === '1') {
  log('skipped (SKIP_TOOLS_BOOTSTRAP=1)');
} else {
  try {
    temporalCli();
    timeSkippingServer();
    log('toolchain ready');
  } catch (error) {
    console.error(`[bootstrap] failed: ${error.message}`);
    process.exit(1);
  }
}
