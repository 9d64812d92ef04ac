package sim

import (
	"slices"
	"time"
)

// Config is one simulated world. Rates are probabilities.
type Config struct {
	Keys      int // idempotency keys, k0, k1, ...
	Workers   int // Lambda instances
	BatchSize int // most messages one receive hands an instance
	Lease     time.Duration
	// Visibilities are the queue's visibility timeouts, one taken per run:
	// one shorter than the longest call (redeliveries while the work runs),
	// one of 6 leases (AWS's advice, 6 × the function's timeout).
	Visibilities []time.Duration
	MaxTick      time.Duration // the clock moves by up to this much at a time
	MaxCall      time.Duration // longest provider call; kept within the lease unless the worker stalls
	MaxBeatCall  time.Duration // longest provider call in runs with a heartbeat: longer than the lease
	MaxReceives  int
	DupRate      float64 // per key, repeated: one more message (a broker duplicate or a producer re-send)
	CrashRate    float64 // per worker step: the instance dies where it stands
	FailRate     float64 // per provider call: the provider answers an error
	StallRate    float64 // per provider call: the worker stalls past its lease
	StageRate    float64 // per provider call: the work stages writes (idem.Stage)
	BeatRate     float64 // per run: the workers run with a heartbeat (idem.WithHeartbeat)
	Refuse       float64 // per store request: not applied, an error returned
	Lose         float64 // per store request: applied, its answer lost
	GiveUp       float64 // per lost answer: the client gives up with an error; else it retries once
	// Conflict is, per store request, and per retry of one whose answer
	// was lost, the chance that another Region was writing the record
	// (a global table with multi-Region strong consistency): not
	// applied, and answered as dynamostore answers
	// ReplicatedWriteConflictException (idem.ErrWriteConflict). The
	// client sends a Complete so refused again, as a refused one.
	Conflict float64
	// Outage is, per refused Complete, the chance that the store stays
	// down for the execution: the client's retries of it are refused too,
	// until the client gives up and idem.Do releases the claim.
	Outage float64
	// ClientAttempts is how many times the store's client sends a
	// Complete, the one request it retries here (its retryer's attempts:
	// pgstore's CompleteAttempts, go-redis's 1 + MaxRetries).
	ClientAttempts int
	MaxSteps       int

	// mutation breaks what a conflict is taken for, for the tests that
	// show the simulation finds it; sound in every other run.
	mutation mutation
}

// DefaultConfig is the world the tests explore.
func DefaultConfig() Config {
	return Config{
		Keys: 4, Workers: 3, BatchSize: 3, Lease: time.Minute,
		Visibilities: []time.Duration{10 * time.Second, 6 * time.Minute}, MaxTick: 10 * time.Second,
		MaxCall: 20 * time.Second, MaxBeatCall: 3 * time.Minute, MaxReceives: 200, DupRate: 0.5,
		CrashRate: 0.02, FailRate: 0.1, StallRate: 0.05, StageRate: 0.5, BeatRate: 0.5,
		Refuse: 0.1, Lose: 0.1, GiveUp: 0.5, Conflict: 0.05, Outage: 0.5, ClientAttempts: 4, MaxSteps: 20000,
	}
}

// op is a kind of store request.
type op int

const (
	opClaim op = iota
	opComplete
	opCompleteStaged // a Complete carrying staged writes
	opRelease
	opExtend
	numOps
)

func (o op) String() string {
	return [...]string{"claim", "complete", "complete+writes", "release", "extend"}[o]
}

// answer is what the network makes of a store request.
type answer int

const (
	answered    answer = iota // applied, and the answer arrives
	refused                   // not applied; the client gets an error
	lostGaveUp                // applied; the answer is lost and the client gives up with an error
	lostRetried               // applied; the answer is lost and the client's retry gets its own
	conflicted                // not applied: another Region was writing the record
	numAnswers
)

func (a answer) String() string {
	return [...]string{"answered", "refused", "applied, answer lost, gave up", "applied, answer lost, retried", "conflicted"}[a]
}

// Stats counts what one run, or many, did.
type Stats struct {
	Steps, Batches, Deliveries, Copies, DeadLetters int
	Calls, Failures, Crashes, Stalls                int
	Replays, InProgress, TakeOvers                  int
	FencedOff                                       int // a Complete answered ErrLeaseLost
	Superseded                                      int // a message acknowledged though another owner held its key at its Complete
	Staged                                          int // completions applied with staged writes
	Beats                                           int // heartbeat extensions
	BeatsLost                                       int // extensions that found the lease lost and cancelled the work
	// RefusedCompleteLostRelease counts a Complete refused, then its
	// Release applied with the answer lost: issue 19 item 1.
	RefusedCompleteLostRelease int
	// CompleteRetried counts executions whose Complete was refused and
	// then applied when the client sent it again: keys settled by the
	// retry.
	CompleteRetried int
	// CompleteGaveUp counts executions whose Complete was refused and
	// that idem.Do gave up on, releasing the claim: keys left unsettled.
	CompleteGaveUp int
	// CompleteRequests counts the Complete requests sent, retries
	// included; MaxCompleteRequests is the most one execution's
	// completion sent (at most Config.ClientAttempts).
	CompleteRequests, MaxCompleteRequests int
	// RetryConflicted counts requests applied whose answer was lost and
	// whose retry met a conflict: a claim that is ours, taken for another's.
	RetryConflicted int
	Requests        [numOps][numAnswers]int
}

// Add adds o's counts to s.
func (s *Stats) Add(o Stats) {
	s.Steps += o.Steps
	s.Batches += o.Batches
	s.Deliveries += o.Deliveries
	s.Copies += o.Copies
	s.DeadLetters += o.DeadLetters
	s.Calls += o.Calls
	s.Failures += o.Failures
	s.Crashes += o.Crashes
	s.Stalls += o.Stalls
	s.Replays += o.Replays
	s.InProgress += o.InProgress
	s.TakeOvers += o.TakeOvers
	s.FencedOff += o.FencedOff
	s.Superseded += o.Superseded
	s.Staged += o.Staged
	s.Beats += o.Beats
	s.BeatsLost += o.BeatsLost
	s.RefusedCompleteLostRelease += o.RefusedCompleteLostRelease
	s.CompleteRetried += o.CompleteRetried
	s.CompleteGaveUp += o.CompleteGaveUp
	s.CompleteRequests += o.CompleteRequests
	s.RetryConflicted += o.RetryConflicted
	s.MaxCompleteRequests = max(s.MaxCompleteRequests, o.MaxCompleteRequests)
	for i := range s.Requests {
		for j := range s.Requests[i] {
			s.Requests[i][j] += o.Requests[i][j]
		}
	}
}

// Unreached names the cases that no run counted in s reached; with rare,
// also those a few thousand seeds may miss (an acknowledgement after a
// take-over needs a stalled execution whose Complete finds another
// message's execution has completed the key: about one seed in 10,000).
func (s *Stats) Unreached(rare bool) []string {
	var out []string
	if rare && s.Superseded == 0 {
		out = append(out, "an acknowledgement after a take-over")
	}
	for name, n := range map[string]int{
		"a crash": s.Crashes, "a replay": s.Replays, "an in-progress retry": s.InProgress,
		"a take-over": s.TakeOvers, "a failed call": s.Failures, "a stall": s.Stalls,
		"a fenced-off Complete":           s.FencedOff,
		"a completion with staged writes": s.Staged, "a heartbeat": s.Beats,
		"a heartbeat that found the lease lost": s.BeatsLost, "two messages of one key in a batch": s.Copies,
		"a refused Complete whose Release lost its answer":         s.RefusedCompleteLostRelease,
		"a refused Complete applied when its client sent it again": s.CompleteRetried,
		"a refused Complete given up on":                           s.CompleteGaveUp,
		"a request applied whose retry met a conflict":             s.RetryConflicted,
	} {
		if n == 0 {
			out = append(out, name)
		}
	}
	for o := range numOps {
		for a := range numAnswers {
			if s.Requests[o][a] == 0 {
				out = append(out, o.String()+" "+a.String())
			}
		}
	}
	slices.Sort(out)
	return out
}
