// Package bench measures what a record costs with idemq, side by side with
// the raw-SDK floor and with Powertools for AWS Lambda (TypeScript), in one
// run against one DynamoDB Local:
//
//   - requests per record, counted by SDK middleware on every client, in
//     five scenarios (Scenarios): first delivery, redelivery of COMPLETED
//     records, half the keys held IN_PROGRESS by another worker, copies of
//     one key inside a batch, and local-cache hits in a warm container;
//   - records per second and client CPU per record (the process's own CPU
//     time, from getrusage in Go and process.cpuUsage in Node) for batches
//     of 10, 100 and 1000 records with a simulated model call of 0 and
//     20 ms, as medians of several interleaved runs, and idemq's ratios to
//     the others as medians of per-round ratios (Ratio);
//   - the handler's overhead without I/O (Micros: testing.B bodies against
//     the in-memory store, in ns and allocations per record, which
//     `make bench-go` runs for benchstat and ParseGoBench reads back), and
//     through the DynamoDB SDK with no server (SDKMicros: the floors and
//     idemq over a client whose transport answers at once, so idemq's
//     figure over the fenced floor's is the library's own cost);
//   - the worker's start-up: binary size and init time under the Lambda
//     Runtime Interface Emulator (MeasureStartup).
//
// Every implementation is handed the same SQS events (NewTrial builds them
// in Go; the Node driver in bench/powertools receives them as JSON) and
// runs them one batch at a time, as one warm Lambda container would.
// Report writes the results as markdown and Chart as a PNG; cmd/bench runs
// it all, and `make bench` starts what that needs.
//
// The targets are judged in the report (Targets), never asserted
// by a timed test: the short test in this package runs every part once, at
// one size, so the harness cannot rot.
package bench
