// Package sim is a deterministic simulation of many workers processing an
// at-least-once queue through idem.Do against the in-memory store. One
// seeded scheduler decides everything: which worker takes its next step,
// when the clock moves, when the queue redelivers, when a worker crashes.
// Only one goroutine runs at a time, so a seed replays exactly.
//
// After every step it checks the invariants the project promises:
//
//   - a key reaches the provider at most once, plus once for each worker
//     that crashed between starting its call and storing the result (no
//     store can prevent that one);
//   - no two live workers are inside the provider call for one key;
//   - a COMPLETED record holds the result of the call whose owner completed
//     it;
//
// and at the end, when the queue is empty and every worker idle: every key
// is COMPLETED, or dead-lettered, and reached the provider.
package sim
