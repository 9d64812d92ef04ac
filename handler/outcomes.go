package handler

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
)

//go:generate go test -run ^TestOutcomesDoc$ -args -update

// outcomeRow is one row of the record outcome table, docs/outcomes.md,
// which is generated from outcomeTable. TestOutcomesDoc checks each row's
// verdict and counts against the fate the code decides for it, and the
// file against the table.
type outcomeRow struct {
	situation string   // what the claim found, or what happened
	function  string   // what became of the function
	verdict   verdict  // what Lambda is told: acknowledge, else a batch item failure
	reported  string   // said after the verdict
	counts    []string // the summary line's counts the record adds to
	note      string   // said after the counts
	// fate is the fate the code decides for a record in this situation.
	fate func() fate
}

// claimedFate is the fate decide gives a claim that returned res and err.
func claimedFate(res idem.Result, err error) fate {
	return decide(attempt{stage: stageClaimed, res: res, err: err})
}

// outcomeTable is every situation a record can be in and its fate, in the
// order docs/outcomes.md lists them.
var outcomeTable = []outcomeRow{
	{"nothing (no record, or one its store has deleted)", "runs; its result is stored", acknowledge, "", []string{"executed", "fresh"}, "",
		func() fate { return claimedFate(idem.Result{Outcome: idem.Executed, Value: []byte("r")}, nil) }},
	{"a claim whose lease passed (its worker crashed), or an expired record still in the store", "runs; its result is stored", acknowledge, "", []string{"executed", "took_over"}, "",
		func() fate {
			return claimedFate(idem.Result{Outcome: idem.Executed, Value: []byte("r"), TookOver: true}, nil)
		}},
	{"COMPLETED", "does not run; the stored result goes to the replay hook", acknowledge, "", []string{"replayed", "stored_replays", "provider_calls_avoided"}, "",
		func() fate { return claimedFate(idem.Result{Outcome: idem.Replayed, Value: []byte("r")}, nil) }},
	{"COMPLETED, in the local cache (`Config.CacheEntries`)", "does not run; the cached result goes to the replay hook", acknowledge, "", []string{"replayed", "cache_hits", "provider_calls_avoided"}, "; no store request",
		func() fate {
			f, _ := adoption("fp", "fp", fate{verdict: acknowledge, work: workReplayed, value: []byte("r")}, fromCache)
			return f
		}},
	{"a copy of a key settled earlier in the batch, or by another batch of this process meanwhile", "does not run; the leader's result goes to the replay hook", acknowledge, "", []string{"replayed", "copies", "provider_calls_avoided"}, "; one claim and one execution for all copies",
		func() fate {
			f, _ := adoption("fp", "fp", claimedFate(idem.Result{Outcome: idem.Executed, Value: []byte("r")}, nil), fromLeader)
			return f
		}},
	{"nothing, but the result is too large to store, even gzipped", "runs; the key is completed without the result", acknowledge, ", with an error logged", []string{"executed", "fresh", "result_omitted"}, "",
		func() fate {
			return claimedFate(idem.Result{Outcome: idem.Executed, Value: []byte("r"), Omitted: true}, &idem.Error{Op: idem.OpComplete, Err: idem.ErrResultTooLarge})
		}},
	{"a copy, in the batch, of a result too large to store", "does not run; the fresh result, still in memory, goes to the replay hook", acknowledge, "", []string{"replayed", "copies", "provider_calls_avoided"}, "",
		func() fate {
			leader := claimedFate(idem.Result{Outcome: idem.Executed, Value: []byte("r"), Omitted: true}, &idem.Error{Op: idem.OpComplete, Err: idem.ErrResultTooLarge})
			f, _ := adoption("fp", "fp", leader, fromLeader)
			return withNothingToReplay(f, true)
		}},
	{"COMPLETED without its result (too large), no replay hook", "does not run", acknowledge, "", []string{"replayed", "stored_replays", "provider_calls_avoided"}, "",
		func() fate {
			return withNothingToReplay(claimedFate(idem.Result{Outcome: idem.Replayed, Omitted: true}, nil), false)
		}},
	{"COMPLETED without its result (too large), with a replay hook", "does not run; nothing to hand the hook", retry, " (`idem.ErrResultTooLarge`): after max receives, the dead-letter queue", []string{"failed"}, "",
		func() fate {
			return withNothingToReplay(claimedFate(idem.Result{Outcome: idem.Replayed, Omitted: true}, nil), true)
		}},
	{"IN_PROGRESS on another worker, its lease live", "does not run", retry, ": it comes back after the visibility timeout, or with `WithBackoff` just after the holder's lease ends", []string{"in_progress"}, "; `backed_off` with `WithBackoff`",
		func() fate { return claimedFate(idem.Result{Outcome: idem.InProgress}, nil) }},
	{"the function fails", "the claim is released", retry, ": the retry runs it again", []string{"failed"}, "",
		func() fate { return claimedFate(idem.Result{}, &idem.Error{Op: idem.OpRun, Err: errors.New("boom")}) }},
	{"a panic (the function, the replay hook, the key func, the store)", "the claim is released", retry, " (`ErrPanic`)", []string{"failed"}, "",
		func() fate { return decide(attempt{stage: stageCrashed, err: fmt.Errorf("%w: boom", ErrPanic)}) }},
	{"the function ran, but its completion failed (a store error that outlasted the store client's retries, a staged write's condition)", "ran; nothing stored; the claim is released", retry, " (`idem.NotStored`): the retry runs it again", []string{"failed"}, "",
		func() fate {
			return claimedFate(idem.Result{Outcome: idem.NotStored, Value: []byte("r")}, &idem.Error{Op: idem.OpComplete, Err: errors.New("throttled")})
		}},
	{"the function ran past its lease; another worker took the key over and completed it", "ran; the completion is refused, with a warning", acknowledge, "", []string{"executed", "fresh", "superseded"}, "",
		func() fate {
			return claimedFate(idem.Result{Outcome: idem.Superseded, Holder: idem.StatusCompleted}, &idem.Error{Op: idem.OpComplete, Err: idem.ErrLeaseLost})
		}},
	{"the function ran past its lease; another worker took the key over and has not completed it", "ran; the completion is refused, with a warning", retry, ": it comes back to replay that worker's result, wait for it, or run again", []string{"failed"}, "",
		func() fate {
			return claimedFate(idem.Result{Outcome: idem.Superseded, Holder: idem.StatusInProgress}, &idem.Error{Op: idem.OpComplete, Err: idem.ErrLeaseLost})
		}},
	{"no key, or a body that is not JSON", "does not run", retry, " (after max receives: the dead-letter queue)", []string{"failed"}, "",
		func() fate { return decide(attempt{stage: stageKey, err: idem.ErrNoKey}) }},
	{"no key, with `WithKeyless`", "runs, without a claim", acknowledge, "", []string{"keyless"}, "",
		func() fate { return decide(attempt{stage: stageKeyless, res: idem.Result{Value: []byte("r")}}) }},
	{"another payload under the same key (a live record's)", "does not run", retry, " (`idem.ErrPayloadMismatch`)", []string{"failed"}, "",
		func() fate {
			return claimedFate(idem.Result{}, &idem.Error{Op: idem.OpClaim, Err: idem.ErrPayloadMismatch})
		}},
	{"the store cannot be reached", "does not run", retry, "; the invocation fails only when no message of the batch is acknowledged ([below](#what-the-invocation-returns))", []string{"failed"}, "",
		func() fate {
			return claimedFate(idem.Result{}, &idem.Error{Op: idem.OpClaim, Err: errors.New("connection refused")})
		}},
	{"COMPLETED, but the stored result cannot be read", "does not run", retry, " (`idem.ErrUnreadableResult`)", []string{"failed"}, "",
		func() fate {
			return claimedFate(idem.Result{}, &idem.Error{Op: idem.OpReplay, Err: idem.ErrUnreadableResult})
		}},
	{"not started: too near the invocation's deadline (`Config.DeadlineReserve`)", "does not run", skip, " (`ErrDeadline`): it comes back and runs then", []string{"skipped"}, "",
		func() fate { return decide(attempt{stage: stageNotStarted, err: ErrDeadline}) }},
	{"not started: FIFO, after a failure earlier in the batch (with `Config.FIFOGroupIsolation`, in its message group)", "does not run", skip, " (`ErrFIFOBlocked`): it comes back and runs then", []string{"skipped"}, "",
		func() fate { return decide(attempt{stage: stageNotStarted, err: ErrFIFOBlocked}) }},
	{"FIFO, after a failure, but already run (in another message group, meanwhile)", "ran; its result is stored", skip, " (`ErrFIFOBlocked`): its redelivery replays", []string{"executed", "fresh"}, " (its own count)",
		func() fate {
			return claimedFate(idem.Result{Outcome: idem.Executed, Value: []byte("r")}, nil).blockedByFIFO()
		}},
	{"no outcome (the record's goroutine exited: `runtime.Goexit`), or anything unforeseen", "a claim is left to its lease", retry, " (`ErrNoOutcome`)", []string{"failed"}, "",
		func() fate { return fate{} }},
	{"a step handler's record (`NewStepHandler`: the durable dispatcher), its step returned nil", "the step settled it (started or found the durable execution)", acknowledge, "", []string{"dispatched"}, "",
		func() fate { return decide(attempt{stage: stageStepped}) }},
	{"a step handler's record, its step returned an error", "the step did not settle it", retry, ": the retry runs the step again", []string{"failed"}, "",
		func() fate { return decide(attempt{stage: stageStepped, err: errors.New("throttled")}) }},
}

// invocationRow is one row of the table of what the invocation returns,
// under the record table in docs/outcomes.md. TestInvocationTableIsTheCodes
// checks each against answer.
type invocationRow struct {
	batch   string // the records' fates
	returns string // what the invocation returns
	lambda  string // what Lambda then does
	// fates are the batch's records' fates; each record's message id is
	// "m" and its index, or "" where ids says so.
	fates      func() []fate
	noID       int  // the index of a record without a message id; -1: none
	batchError bool // the default; false: Config.NoBatchError
	// want is the error answer returns: "", "ErrBatchFailed" or "other";
	// listed is how many batch item failures its response lists.
	want   string
	listed int
}

// failedFate, inProgress and skipped are fates for the invocation table.
func failedFate() fate {
	return claimedFate(idem.Result{}, &idem.Error{Op: idem.OpRun, Err: errors.New("boom")})
}
func inProgressFate() fate { return claimedFate(idem.Result{Outcome: idem.InProgress}, nil) }
func skippedFate() fate    { return decide(attempt{stage: stageNotStarted, err: ErrFIFOBlocked}) }
func executedFate() fate {
	return claimedFate(idem.Result{Outcome: idem.Executed, Value: []byte("r")}, nil)
}

// invocationTable is what the invocation returns for each kind of batch,
// in the order docs/outcomes.md lists them.
var invocationTable = []invocationRow{
	{"empty", "success, no batch item failures", "nothing to do", func() []fate { return nil }, -1, true, "", 0},
	{"every record acknowledged", "success, no batch item failures", "deletes every message", func() []fate { return []fate{executedFate(), executedFate()} }, -1, true, "", 0},
	{"some records acknowledged, the others not", "success, the others as batch item failures", "deletes the acknowledged messages; the others come back", func() []fate { return []fate{executedFate(), failedFate(), inProgressFate()} }, -1, true, "", 2},
	{"no record acknowledged, one at least failed (the rest may be in progress or not started: a FIFO batch whose first record failed)", "`handler.ErrBatchFailed`, with the response listing every message",
		"counts an error (the function's `Errors`, the stack's `ErrorsAlarm`), backs off the event source's concurrency, and brings back the whole batch: the messages listed", func() []fate { return []fate{failedFate(), skippedFate(), skippedFate()} }, -1, true, "ErrBatchFailed", 3},
	{"the same, with `Config.NoBatchError`", "success, every message as a batch item failure", "brings back the same messages; no error counted, no back-off", func() []fate { return []fate{failedFate(), skippedFate(), skippedFate()} }, -1, false, "", 3},
	{"no record acknowledged, none failed: every key in progress elsewhere, or not started", "success, every message as a batch item failure", "brings back every message: waiting is not failing", func() []fate { return []fate{inProgressFate(), skippedFate()} }, -1, true, "", 2},
	{"a record not acknowledged has no message id", "an error, with an empty response (with `Config.NoBatchError` too)", "brings back the whole batch: it could not be told which message failed", func() []fate { return []fate{executedFate(), failedFate()} }, 1, true, "other", 0},
}

// invocationRecords are row's records: their fates and message ids.
func (row invocationRow) records() []record {
	fates := row.fates()
	recs := make([]record, len(fates))
	for i, f := range fates {
		msg := &events.SQSMessage{MessageId: fmt.Sprintf("m%d", i)}
		if i == row.noID {
			msg.MessageId = ""
		}
		recs[i] = record{msg: msg, fate: f}
	}
	return recs
}

// outcomesDoc is docs/outcomes.md: the outcome table as Markdown.
func outcomesDoc() string {
	var sb strings.Builder
	sb.WriteString(`<!-- Generated from handler/outcomes.go by "go generate ./handler"; do not edit. -->

# What becomes of a record

The SQS handler (package handler) decides each record's fate in one place
from what its claim returned: a message is deleted only when its key is
proven settled — completed by this execution, replayed from a completed
record, or refused because another claim has completed it
([the acknowledgement rule](protocol.md#the-acknowledgement-rule)); anything
else, foreseen or not, comes back. The counts are the batch's summary line's
(and, with ` + "`WithEMF`" + `, its CloudWatch metrics'): each record is ` + "`executed`" + `
(` + "`fresh`" + ` or ` + "`took_over`" + `), ` + "`replayed`" + ` (` + "`stored_replays`" + `, ` + "`copies`" + ` or
` + "`cache_hits`" + `; each a ` + "`provider_calls_avoided`" + `), ` + "`keyless`" + `, ` + "`in_progress`" + `,
` + "`failed`" + ` or ` + "`skipped`" + ` ([the counts](handler-reference.md#what-it-counts)).

| found for the key, or what happened | the function | reported to Lambda | counted as |
|---|---|---|---|
`)
	for _, r := range outcomeTable {
		reported := "batch item failure"
		if r.verdict == acknowledge {
			reported = "success: the message is deleted"
		}
		counts := make([]string, len(r.counts))
		for i, c := range r.counts {
			counts[i] = "`" + c + "`"
		}
		fmt.Fprintf(&sb, "| %s | %s | %s%s | %s%s |\n", r.situation, r.function, reported, r.reported, strings.Join(counts, ", "), r.note)
	}
	sb.WriteString(`
## What the invocation returns

The response lists every message with a record not acknowledged, once, in
input order. When no message of the batch is acknowledged the handler can
also fail the invocation: Lambda then brings back the whole batch, which is
the same messages, and sees an error.

| the batch | the invocation returns | Lambda |
|---|---|---|
`)
	for _, r := range invocationTable {
		fmt.Fprintf(&sb, "| %s | %s | %s |\n", r.batch, r.returns, r.lambda)
	}
	return sb.String()
}
