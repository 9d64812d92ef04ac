// driver.mjs runs benchmark trials with the Powertools handler
// (handler.mjs) for the Go harness (bench/powertools.go), which starts it
// as `node --expose-gc driver.mjs` with IDEMQ_DYNAMODB_ENDPOINT, the AWS
// credentials, region and function name in the environment.
//
// Protocol, one JSON object per line: it first writes
// {"ready":true,"node":...,"versions":{...}}; then for each trial read from
// stdin ({table, modelMs, cacheEntries, prep, prepBatches, batches,
// answers, settleMs}) it writes {records, wallNs, cpuUs, cpuMarksUs,
// cpuTailUs, requests, retries, writeUnits, readUnits, failures,
// executions, firstError} or {error}. answers, when given, are JSON
// documents: record i (its key's last six digits) is answered with
// answers[i % length], parsed (each checked to be written back byte for
// byte by JSON.stringify, so both sides return the same answer);
// Powertools stores the object as a DynamoDB map. Only protocol lines go
// to stdout; console.log goes to stderr.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { FullBatchFailureError } from '@aws-lambda-powertools/batch';
import { countRequests, newCounts, take } from './count.mjs';
import { newHandler } from './handler.mjs';
import { lambdaContext } from './lambdacontext.mjs';

const INVOCATION_TIMEOUT_MS = 5 * 60 * 1000; // as the Go harness's
// The simulated model's answer: the same bytes the Go harness returns.
const COMPLETION = {
  id: 'cmpl-bench',
  model: 'bench-model',
  content:
    "A three-sentence summary of the document, as long as a short answer from a model would be.",
};

const out = process.stdout.write.bind(process.stdout);
console.log = console.error;

const endpoint = process.env.IDEMQ_DYNAMODB_ENDPOINT;
if (!endpoint) {
  console.error('driver: IDEMQ_DYNAMODB_ENDPOINT is not set');
  process.exit(2);
}

// One client per worker, made once, as a container makes it at init.
const counts = newCounts();
const client = new DynamoDBClient({ endpoint });
countRequests(client, counts);
const otherClient = new DynamoDBClient({ endpoint }); // the worker holding keys

function version(pkg) {
  const url = new URL(`./node_modules/${pkg}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).version;
}

async function runTrial(t) {
  let executions = 0;
  const answers = (t.answers ?? []).map((doc) => {
    const v = JSON.parse(doc);
    if (JSON.stringify(v) !== doc) {
      throw new Error('an answer that JSON.stringify does not write back byte for byte');
    }
    return v;
  });
  const work = async (record) => {
    executions++;
    if (t.modelMs > 0) await sleep(t.modelMs);
    if (answers.length === 0) return COMPLETION;
    const key = JSON.parse(record.body).idempotency_key;
    return answers[Number(key.slice(-6)) % answers.length];
  };
  const fn = newHandler({
    client,
    tableName: t.table,
    work,
    cacheEntries: t.cacheEntries,
  });
  let release = async () => {};
  if (t.prep === 'complete') {
    await runBatches(fn, t.prepBatches);
  } else if (t.prep === 'hold') {
    release = await hold(t);
  }
  take(counts);
  executions = 0;
  // The clock covers what the Go side's does (bench/clock.go): a forced
  // collection and an idle settleMs before it starts; the CPU read before
  // each batch; after it stops, a forced collection and an idle settleMs
  // again, their CPU kept apart (the tail).
  await settle(t.settleMs);
  const cpuMarksUs = [];
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let failures;
  let firstError;
  let wallNs;
  let cpu;
  let cpuTailUs;
  try {
    ({ failures, firstError } = await runBatches(fn, t.batches, () => {
      const c = process.cpuUsage(cpu0);
      cpuMarksUs.push(c.user + c.system);
    }));
  } finally {
    // The clock stops before the holder is let go, as on the Go side:
    // releasing the other worker is preparation, not the measured work.
    wallNs = Number(process.hrtime.bigint() - t0);
    cpu = process.cpuUsage(cpu0);
    await settle(t.settleMs);
    const all = process.cpuUsage(cpu0);
    cpuTailUs = all.user + all.system - (cpu.user + cpu.system);
    await release();
  }
  const { requests, retries, writeUnits, readUnits } = take(counts);
  return {
    records: t.batches.reduce((n, ev) => n + ev.Records.length, 0),
    wallNs,
    cpuUs: cpu.user + cpu.system,
    cpuMarksUs,
    cpuTailUs,
    requests,
    retries,
    writeUnits,
    readUnits,
    failures,
    executions,
    firstError,
  };
}

// runBatches invokes fn's handler with each batch in turn, as Lambda
// would one container, counts the batch item failures and describes the
// first record's error (firstError, '' without one) from fn's processor,
// which keeps a batch's errors until the next. A batch whose every record
// failed makes processPartialResponse throw: Lambda then retries the whole
// batch, so all its records count as failures.
async function runBatches(fn, batches, mark) {
  let failures = 0;
  let firstError = '';
  for (const event of batches) {
    mark?.();
    try {
      const resp = await fn.handler(event, lambdaContext(INVOCATION_TIMEOUT_MS));
      failures += resp.batchItemFailures.length;
    } catch (err) {
      if (!(err instanceof FullBatchFailureError)) throw err;
      failures += event.Records.length;
    }
    if (!firstError && fn.processor.errors.length > 0) {
      firstError = describe(fn.processor.errors[0]);
    }
  }
  return { failures, firstError };
}

// describe names an error and its causes.
function describe(err) {
  let s = `${err?.name}: ${err?.message}`;
  for (let c = err?.cause; c; c = c.cause) s += ` (cause: ${c?.name}: ${c?.message})`;
  return s;
}

// settle collects the garbage (node runs with --expose-gc) and idles for
// ms milliseconds.
async function settle(ms) {
  if (!globalThis.gc) throw new Error('driver: run node with --expose-gc');
  globalThis.gc();
  await sleep(ms ?? 0);
}

// hold has another worker, with a client of its own, claim every key of
// the one preparation batch and keep it IN_PROGRESS in its work until the
// returned release is called.
async function hold(t) {
  if (t.prepBatches.length !== 1) {
    throw new Error(`hold wants one batch, got ${t.prepBatches.length}`);
  }
  const event = t.prepBatches[0];
  let entered = 0;
  let open;
  const gate = new Promise((resolve) => {
    open = resolve;
  });
  const { handler: holder } = newHandler({
    client: otherClient,
    tableName: t.table,
    work: async () => {
      entered++;
      await gate;
      return COMPLETION;
    },
  });
  let ended = false;
  // done settles with the holder's error, or null.
  const done = holder(event, lambdaContext(INVOCATION_TIMEOUT_MS)).then(
    () => null,
    (err) => err,
  );
  done.then(() => {
    ended = true;
  });
  const deadline = Date.now() + 60_000;
  while (entered < event.Records.length) {
    if (ended) {
      throw new Error(
        `the holding worker ended holding ${entered} of ${event.Records.length} keys: ${await done}`,
      );
    }
    if (Date.now() > deadline) {
      open();
      await done;
      throw new Error(
        `the holding worker holds ${entered} of ${event.Records.length} keys after a minute`,
      );
    }
    await sleep(1);
  }
  return async () => {
    open();
    await done;
  };
}

out(
  `${JSON.stringify({
    ready: true,
    node: process.version,
    versions: Object.fromEntries(
      [
        '@aws-lambda-powertools/idempotency',
        '@aws-lambda-powertools/batch',
        '@aws-sdk/client-dynamodb',
        '@aws-sdk/lib-dynamodb',
      ].map((p) => [p, version(p)]),
    ),
  })}\n`,
);

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let reply;
  try {
    reply = await runTrial(JSON.parse(line));
  } catch (err) {
    reply = { error: err?.stack ?? String(err) };
  }
  out(`${JSON.stringify(reply)}\n`);
}
