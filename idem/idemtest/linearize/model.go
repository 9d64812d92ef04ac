package linearize

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/idemq/idemq/idem"
)

// The sequential model of one key's record that histories are checked
// against: the record is absent, IN_PROGRESS (an owner, a lease, an
// expiry) or COMPLETED (an owner, a result, an expiry), and expired when
// a claim judges its expiry passed (idem.Record.Claimable); each of
// Claim, Complete, Release, Extend and a store's Get is one atomic step
// of it, as idem.Store says.
//
// Two rules besides the store's own:
//
//   - Safety under the clock-skew bound: a claim that takes over another
//     owner's IN_PROGRESS claim must have read its clock after that
//     owner's lease ended in true time, by that owner's own count (its
//     clock reading plus its lease). A take-over before is a key executed
//     twice, two owners each counting on a live lease, and no
//     linearization has it.
//   - A store may drop a record once its expiry has passed in true time
//     (a TTL: Redis's key expiry, DynamoDB's sweeper).
//
// An operation whose answer never came (an error, a timeout) may have
// taken effect or not: it is recorded with no return time, and any
// output. A request the store's client sent again after its answer was
// lost (go-redis, the AWS SDK, pgstore retry) is recorded twice: the
// first send, which may or may not have applied, as a ghost with no
// output, and the operation with the answer of the last send.

// opKind is what an operation of the history does.
type opKind uint8

const (
	opClaim opKind = iota + 1
	opComplete
	opRelease
	opExtend
	opGet
)

func (k opKind) String() string {
	return [...]string{"", "claim", "complete", "release", "extend", "get"}[k]
}

// linInput is an operation's request, with what the checker knows of its
// client's clock.
type linInput struct {
	Kind   opKind
	Key    idem.Key
	Client int
	Owner  string
	// Claim: the time judged at (ns); Claim, Extend: the lease's end
	// (ms, 0: none); Claim, Complete, Extend: the expiry (s, 0: as it
	// is), as stores keep them.
	Now        int64
	LeaseUntil int64
	ExpiresAt  int64
	// Result is a completion's result.
	Result string
	// ReadAt is the true time (ns) the client read its clock to make the
	// request; Holds, for a claim or an extension, the true time until
	// which the owner counts on the lease: ReadAt plus the lease.
	ReadAt, Holds int64
	// Return is the operation's return in true time (ns); unknown
	// outcomes return at the end of the history.
	Return int64
	// Ghost marks a first send whose answer was lost and which the
	// store's client sent again: it may or may not have applied.
	Ghost bool
}

// linOutput is what the store answered.
type linOutput struct {
	// Unknown: no answer (an error other than the store's verdict).
	Unknown bool
	// Claim.
	Claimed  bool
	Previous *recView // the record a claim replaced; nil when none
	Holder   recView  // the record that holds the key, when not claimed
	// Complete, Release, Extend: Lost is set when the write was fenced
	// off, with what it found (LostStatus "": no record).
	Lost       bool
	LostStatus idem.Status
	LostHolder string
	// Get.
	Found  bool
	Record recView
}

// recView is a record as a store answers it.
type recView struct {
	Status     idem.Status
	Owner      string
	LeaseUntil int64 // ms; 0: none
	ExpiresAt  int64 // s
	Result     string
}

// recState is the model's state: the key's record, and for an
// IN_PROGRESS one the true time its owner counts on it until.
type recState struct {
	Present bool
	recView
	Holds int64
}

func (s recState) record() *idem.Record {
	r := &idem.Record{Status: s.Status, ExpiresAt: time.Unix(s.ExpiresAt, 0)}
	if s.LeaseUntil != 0 {
		r.LeaseUntil = time.UnixMilli(s.LeaseUntil)
	}
	return r
}

// holdTolerance is how much earlier than its holder's lease end a claim
// may take over: leases are kept in whole milliseconds, truncated.
const holdTolerance = int64(time.Millisecond)

// stepRecord returns every state the record may be in after the operation,
// none when the operation cannot have answered what it did from s.
func stepRecord(s recState, in linInput, out linOutput) []any {
	from := []recState{s}
	if s.Present && s.ExpiresAt*int64(time.Second) <= in.Return {
		from = append(from, recState{}) // dropped by the store's TTL
	}
	var next []any
	if in.Ghost {
		next = append(next, s) // the first send did not apply
		out = linOutput{Unknown: true}
	}
	for _, f := range from {
		if ok, n := apply(f, in, out); ok {
			next = append(next, n)
		}
	}
	return next
}

// apply is one operation on the record r: whether the store could have
// answered out, and the record after it.
func apply(r recState, in linInput, out linOutput) (bool, recState) {
	switch in.Kind {
	case opClaim:
		return applyClaim(r, in, out)
	case opComplete:
		if r.owned(in.Owner) {
			return out.Unknown || !out.Lost, recState{Present: true, recView: recView{
				Status: idem.StatusCompleted, Owner: in.Owner, ExpiresAt: in.ExpiresAt, Result: in.Result}}
		}
		if r.Present && r.Status == idem.StatusCompleted && r.Owner == in.Owner && r.Result == in.Result {
			return out.Unknown || !out.Lost, r // a completion sent again
		}
		return out.Unknown || r.refused(out), r
	case opRelease:
		if r.owned(in.Owner) {
			return out.Unknown || !out.Lost, recState{}
		}
		return out.Unknown || r.refused(out), r
	case opExtend:
		if r.owned(in.Owner) {
			n := r
			n.LeaseUntil, n.Holds = in.LeaseUntil, in.Holds
			if in.ExpiresAt != 0 {
				n.ExpiresAt = in.ExpiresAt
			}
			return out.Unknown || !out.Lost, n
		}
		return out.Unknown || r.refused(out), r
	case opGet:
		return out.Unknown || out.Found == r.Present && (!r.Present || out.Record == r.recView), r
	}
	return false, r
}

func applyClaim(r recState, in linInput, out linOutput) (bool, recState) {
	if r.owned(in.Owner) {
		// This claim's own record: a claim sent again.
		return out.Unknown || out.Claimed && out.Previous == nil, r
	}
	if !r.Present || r.record().Claimable(time.Unix(0, in.Now)) {
		if r.Present && r.Status == idem.StatusInProgress && in.ReadAt+holdTolerance < r.Holds {
			// A live lease taken over: its holder still counts on it.
			return false, r
		}
		n := recState{Present: true, Holds: in.Holds, recView: recView{
			Status: idem.StatusInProgress, Owner: in.Owner, LeaseUntil: in.LeaseUntil, ExpiresAt: in.ExpiresAt}}
		if out.Unknown {
			return true, n
		}
		if !out.Claimed || (out.Previous == nil) != !r.Present {
			return false, r
		}
		if out.Previous != nil && (out.Previous.Status != r.Status || out.Previous.Owner != r.Owner) {
			return false, r
		}
		return true, n
	}
	return out.Unknown || !out.Claimed && out.Holder == r.recView, r
}

// owned reports whether owner holds the record IN_PROGRESS.
func (r recState) owned(owner string) bool {
	return r.Present && r.Status == idem.StatusInProgress && r.Owner == owner
}

// refused reports whether out is the refusal of a fenced write that found
// r: a lost lease naming its status and holder.
func (r recState) refused(out linOutput) bool {
	if !out.Lost {
		return false
	}
	if !r.Present {
		return out.LostStatus == "" && out.LostHolder == ""
	}
	return out.LostStatus == r.Status && out.LostHolder == r.Owner
}

// recordModel is the model for porcupine, partitioned by key; start is
// the run's start in true time, from which descriptions count.
func recordModel(start int64) porcupine.Model {
	m := porcupine.NondeterministicModel{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[idem.Key]int{}
			var parts [][]porcupine.Operation
			for _, op := range history {
				k := op.Input.(linInput).Key
				i, ok := byKey[k]
				if !ok {
					i = len(parts)
					byKey[k] = i
					parts = append(parts, nil)
				}
				parts[i] = append(parts[i], op)
			}
			return parts
		},
		Init: func() []any { return []any{recState{}} },
		Step: func(state, input, output any) []any {
			return stepRecord(state.(recState), input.(linInput), output.(linOutput))
		},
		Equal:             func(a, b any) bool { return a.(recState) == b.(recState) },
		DescribeOperation: func(input, output any) string { return describeOp(start, input.(linInput), output.(linOutput)) },
		DescribeState:     func(state any) string { return describeState(start, state.(recState)) },
	}
	return m.ToModel()
}

// describeOp says what an operation asked and what it got, times counted
// from the run's start.
func describeOp(start int64, in linInput, out linOutput) string {
	who := fmt.Sprintf("c%d %s", in.Client, short(in.Owner))
	var ask string
	switch in.Kind {
	case opClaim:
		ask = fmt.Sprintf("claim %s judged at %s, lease to %s, expiry %s, counts on it to %s", who,
			since(start, in.Now), sinceMs(start, in.LeaseUntil), sinceS(start, in.ExpiresAt), since(start, in.Holds))
	case opComplete:
		ask = fmt.Sprintf("complete %s with %q, expiry %s", who, in.Result, sinceS(start, in.ExpiresAt))
	case opRelease:
		ask = "release " + who
	case opExtend:
		ask = fmt.Sprintf("extend %s, lease to %s, counts on it to %s", who, sinceMs(start, in.LeaseUntil), since(start, in.Holds))
	case opGet:
		ask = fmt.Sprintf("get c%d", in.Client)
	}
	if in.Ghost {
		return ask + " → first send, answer lost (sent again)"
	}
	return ask + " → " + describeOut(start, in.Kind, out)
}

func describeOut(start int64, kind opKind, out linOutput) string {
	switch {
	case out.Unknown:
		return "no answer"
	case kind == opClaim && out.Claimed && out.Previous != nil:
		return fmt.Sprintf("claimed, took over %s %s", out.Previous.Status, short(out.Previous.Owner))
	case kind == opClaim && out.Claimed:
		return "claimed"
	case kind == opClaim:
		return "held: " + describeView(start, out.Holder)
	case kind == opGet && !out.Found:
		return "absent"
	case kind == opGet:
		return describeView(start, out.Record)
	case out.Lost && out.LostStatus == "":
		return "lease lost: no record"
	case out.Lost:
		return fmt.Sprintf("lease lost: %s %s", out.LostStatus, short(out.LostHolder))
	}
	return "ok"
}

func describeState(start int64, s recState) string {
	if !s.Present {
		return "absent"
	}
	d := describeView(start, s.recView)
	if s.Status == idem.StatusInProgress {
		d += ", its owner counts on it to " + since(start, s.Holds)
	}
	return d
}

func describeView(start int64, v recView) string {
	d := fmt.Sprintf("%s %s", v.Status, short(v.Owner))
	if v.LeaseUntil != 0 {
		d += ", lease to " + sinceMs(start, v.LeaseUntil)
	}
	if v.Status == idem.StatusCompleted {
		d += fmt.Sprintf(" %q", v.Result)
	}
	return d + ", expiry " + sinceS(start, v.ExpiresAt)
}

// short is an owner token's first characters.
func short(owner string) string {
	if len(owner) > 6 {
		return owner[:6]
	}
	return owner
}

func since(start, ns int64) string {
	return fmt.Sprintf("%+.3fs", float64(ns-start)/float64(time.Second))
}

func sinceMs(start, ms int64) string {
	if ms == 0 {
		return "none"
	}
	return since(start, ms*int64(time.Millisecond))
}

func sinceS(start, s int64) string {
	if s == 0 {
		return "as it is"
	}
	return since(start, s*int64(time.Second))
}

// liveOp is an operation being recorded.
type liveOp struct {
	in        linInput
	out       linOutput
	call, ret int64 // true time (ns); ret 0: no answer
	lost      int   // answers a fault layer lost (Faults.mu)
	resent    int   // answers the checker lost and sent again
}
