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
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const op = (context.commandName ?? 'unknown').replace(/Command$/, '');
      counts.attempts.set(op, (counts.attempts.get(op) ?? 0) + 1);
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'idemqBenchAttempts' },
  );
}

// newCounts returns counts at zero.
export function newCounts() {
  return { calls: 0, attempts: new Map() };
}

// take returns the attempts per command and the retries, and starts again
// from zero.
export function take(counts) {
  const requests = Object.fromEntries(counts.attempts);
  let attempts = 0;
  for (const n of counts.attempts.values()) attempts += n;
  const retries = attempts - counts.calls;
  counts.calls = 0;
  counts.attempts.clear();
  return { requests, retries };
}
