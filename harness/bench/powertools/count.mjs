// countRequests counts the requests a DynamoDB client sends, as the Go
// harness does: each attempt per command, with a middleware at the end of
// the finalizeRequest step (after the retry middleware), and the calls at
// the initialize step, so the SDK's retries show apart.
export function countRequests(client, counts) {
  client.middlewareStack.add(
    (next) => async (args) => {
      counts.calls++;
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: 'idemqBenchCalls' },
  );
  // The capacity every call consumes, asked for and added up as the Go
  // harness's Counter does: a failed condition returns none, and is billed
  // by the size of the item that holds the key (at least one unit).
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const op = (context.commandName ?? '').replace(/Command$/, '');
      if (CAPACITY_OPS.has(op)) args.input.ReturnConsumedCapacity = 'TOTAL';
      let result;
      try {
        result = await next(args);
      } catch (err) {
        if (err?.name === 'ConditionalCheckFailedException') {
          counts.writeUnits += writeUnits(itemBytes(err.Item ?? {}));
        }
        throw err;
      }
      const consumed = [result.output?.ConsumedCapacity ?? []].flat();
      const units = consumed.reduce((n, c) => n + (c?.CapacityUnits ?? 0), 0);
      if (op === 'GetItem') counts.readUnits += units;
      else counts.writeUnits += units;
      return result;
    },
    { step: 'initialize', priority: 'high', name: 'idemqBenchCapacity' },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const op = (context.commandName ?? 'unknown').replace(/Command$/, '');
      counts.attempts.set(op, (counts.attempts.get(op) ?? 0) + 1);
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'idemqBenchAttempts' },
  );
}

const CAPACITY_OPS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'GetItem', 'TransactWriteItems']);

// itemBytes is an item's size as DynamoDB bills it, as bench/itemsize.go
// computes it: per attribute its name's UTF-8 length plus its value's size.
export function itemBytes(item) {
  let n = 0;
  for (const [name, v] of Object.entries(item)) n += utf8(name) + valueBytes(v);
  return n;
}

function utf8(s) {
  return Buffer.byteLength(s, 'utf8');
}

function numberBytes(s) {
  const digits = s.toLowerCase().split('e')[0].replace(/[^0-9]/g, '').replace(/^0+|0+$/g, '');
  return Math.floor((digits.length + 1) / 2) + 1;
}

function valueBytes(v) {
  if (v.S !== undefined) return utf8(v.S);
  if (v.B !== undefined) return v.B.length;
  if (v.N !== undefined) return numberBytes(v.N);
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.SS !== undefined) return v.SS.reduce((n, s) => n + utf8(s), 0);
  if (v.BS !== undefined) return v.BS.reduce((n, b) => n + b.length, 0);
  if (v.NS !== undefined) return v.NS.reduce((n, s) => n + numberBytes(s), 0);
  if (v.L !== undefined) return v.L.reduce((n, e) => n + 1 + valueBytes(e), 3);
  if (v.M !== undefined) {
    return Object.entries(v.M).reduce((n, [k, e]) => n + 1 + utf8(k) + valueBytes(e), 3);
  }
  return 0;
}

function writeUnits(bytes) {
  return Math.max(1, Math.ceil(bytes / 1024));
}

// newCounts returns counts at zero.
export function newCounts() {
  return { calls: 0, attempts: new Map(), writeUnits: 0, readUnits: 0 };
}

// take returns the attempts per command, the retries and the capacity
// units, and starts again from zero.
export function take(counts) {
  const requests = Object.fromEntries(counts.attempts);
  let attempts = 0;
  for (const n of counts.attempts.values()) attempts += n;
  const retries = attempts - counts.calls;
  const { writeUnits, readUnits } = counts;
  counts.calls = 0;
  counts.writeUnits = 0;
  counts.readUnits = 0;
  counts.attempts.clear();
  return { requests, retries, writeUnits, readUnits };
}
