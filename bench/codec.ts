// The cost of the payload codec (src/temporal/payload-codec.ts), alone: `npx tsx bench/codec.ts [iterations]`.
// A typical subscription workflow input (the input of a recorded history: the state the API persisted and
// its first charge's receipt), converted to a payload as the SDK does, then sealed and opened; beside it
// the JSON conversion the SDK does anyway. Single-threaded, a few seconds; not part of `npm run bench`.
import fs from 'node:fs';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { EncryptionCodec } from '../src/temporal/payload-codec';

const iterations = Number(process.argv[2] ?? 20_000);
const fixture = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', 'test', 'fixtures', 'histories', 'api-created-receipt.json'), 'utf8'),
) as {
  runs: { history: unknown }[];
};
const history = temporal.api.history.v1.History.fromObject(fixture.runs[0]!.history as object);
const input = defaultPayloadConverter.fromPayload(
  history.events[0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]! as never,
);

async function timed(what: string, work: () => unknown): Promise<number> {
  for (let i = 0; i < 1000; i += 1) await work();
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i += 1) await work();
  const micros = Number(process.hrtime.bigint() - started) / 1000 / iterations;
  console.log(`${what.padEnd(44)} ${micros.toFixed(1)} µs`);
  return micros;
}

async function main(): Promise<void> {
  const codec = new EncryptionCodec();
  const payload = defaultPayloadConverter.toPayload(input);
  const [sealed] = await codec.encode([payload]);
  console.log(
    `input: ${payload.data!.length} bytes of JSON; sealed payload ${sealed!.data!.length} bytes (+ ${sealed!.data!.length - payload.data!.length})`,
  );
  const json = await timed('JSON payload conversion (to and from)', () =>
    defaultPayloadConverter.fromPayload(defaultPayloadConverter.toPayload(input)),
  );
  const encode = await timed('codec encode', () => codec.encode([payload]));
  const decode = await timed('codec decode', () => codec.decode([sealed!]));
  console.log(
    `codec encode + decode: ${(encode + decode).toFixed(1)} µs per payload, ${((encode + decode) / json).toFixed(1)}x the JSON conversion`,
  );
}

void main();
