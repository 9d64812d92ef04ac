// Package sim is a deterministic simulation of Lambda instances draining
// an at-least-once SQS queue through the SQS handler (handler.New, one
// record at a time) over the in-memory store reached through a faulty
// network. One seeded scheduler decides everything: which instance takes
// its next step, when a heartbeat extends a lease, when a batch of 1 to
// BatchSize visible messages is delivered, when the clock moves, when an
// instance crashes. Only one goroutine touches the world at a time, so a
// seed replays exactly.
//
// What it models:
//
//   - the queue: every key sent once plus broker duplicates and producer
//     re-sends (new messages, same key); a visibility timeout per run (one
//     shorter than a call, one of 6 leases); the event source mapping
//     deletes a message only if the handler's answer does not list it in
//     BatchItemFailures and its receipt is still the latest;
//   - the work: a provider call that may fail, may stall the instance past
//     its lease, and may stage writes (idem.Stage) the store commits with
//     the completion;
//   - the network: each Claim, Complete (with and without staged writes),
//     Release and Extend is answered; or refused, not applied; or applied
//     with its answer lost, after which the client gives up with an error
//     or retries the same request and returns what the retry gets; the
//     store's client, a completion's one retry layer (idem.Do sends it
//     once), sends a refused Complete again, up to Config.ClientAttempts
//     attempts, each a scheduler step; the first refusal may find the
//     store down for the execution's whole window (Config.Outage), so that
//     every attempt is refused until the client gives up and Do releases;
//   - a second Region: any request, and the retry of one whose answer was
//     lost, may meet another Region's write to the record (a global table
//     with multi-Region strong consistency) and be refused, not applied;
//     the instance then gets what dynamostore itself answers
//     ReplicatedWriteConflictException with (a request sent to a
//     dynamostore.Store whose DynamoDB answers every write so):
//     idem.ErrWriteConflict, which idem.Do takes for another claimant on a
//     claim (InProgress) and for a failure elsewhere; a Complete so refused
//     is sent again by the client, as a refused one;
//   - crashes: at any yield (before a request, between a lost answer and
//     its retry, in the call, after the handler answered) an instance dies;
//     its goroutines exit at their next yield, its answer is discarded and a
//     new instance takes its place;
//   - a heartbeat in some runs: idem's own, whose clock reads wait for the
//     scheduler (see beat).
//
// After every step it checks:
//
//   - a key reaches the provider once, plus once for each execution that
//     called it and will not store its result, named: it crashed, it
//     stalled past its lease, or its Complete was refused and idem.Do gave
//     up on it (released the claim, or got a lost lease);
//   - an execution's completion costs at most Config.ClientAttempts
//     Complete requests: one retry layer, the client's;
//   - no two live, unstalled instances are in the provider call for a key;
//   - no write by an owner that does not hold the record succeeds;
//   - a COMPLETED record holds the result of the execution whose Complete
//     the store applied, with all of its staged writes, and stays so; an
//     execution's staged writes run, once, if and only if its Complete was
//     applied;
//   - every deleted message's key is COMPLETED with the result its batch
//     handed on (its own execution's, or the one it replayed). The one
//     exception: if the execution's Complete was refused because another
//     execution had completed the key (idem.Superseded, holder COMPLETED),
//     the message may go, and the key must hold that execution's result.
//     A Complete refused while the other owner still held the key
//     IN_PROGRESS must not let its message go: seeds 12969, 62678 and
//     80219 found that other owner working from an older delivery of the
//     same message, and failing with nothing left to bring the key back;
//
// and at the end, when the queue is empty and every instance idle: every
// key is COMPLETED, or dead-lettered, and reached the provider.
package sim
