// Package ordered runs the records of an ordered batch (a Kinesis or
// DynamoDB Streams shard's, a Kafka partition's) so that the batch's
// checkpoint never passes a record that has not finished, and no record
// of a partition key runs after an earlier record of that key did not
// finish.
//
// A stream's event source mapping resumes a shard from the sequence
// number a function reports (ReportBatchItemFailures): everything before
// it is checkpointed, everything from it on comes again. So the answer
// for a lane (a shard, or a Kafka topic-partition) is the first record,
// in the lane's order, that is not Done; Checkpoints computes it from the
// outcomes Run records. A record that is not run is not Done: the zero
// Outcome means "comes again".
//
// Records of one partition key run one at a time, in the lane's order,
// and stop at the first that is not Done (failed, or held by another
// worker). By default, records of other keys go on: they run now rather
// than after the retry, and on the retry, which comes back from the
// checkpoint, their stored results replay without running again. ByLane
// stops the whole lane at its first record not Done instead, as
// Powertools' processors would if they stopped at all.
package ordered

import (
	"context"
	"fmt"
	"sync"
)

// Record is where one record of a batch stands in its stream.
type Record struct {
	// Lane is the shard or the Kafka topic-partition: its records come
	// in order, and each lane has its own checkpoint.
	Lane string
	// Key is the partition key (Kinesis), the item's key (DynamoDB
	// Streams) or the message key (Kafka): records of one key run one at
	// a time, in the lane's order.
	Key string
	// ID is what the mapping resumes from: the sequence number, or the
	// offset.
	ID string
}

// Outcome is what became of one record. The zero value, NotRun, is not
// Done: a record whose slot was never written comes again.
type Outcome uint8

const (
	// NotRun: not started (the context ended first, or an earlier record
	// of its key, or of its lane with ByLane, was not Done).
	NotRun Outcome = iota
	// Done: executed, or its stored result replayed; the checkpoint may
	// pass it.
	Done
	// NotDone: failed, panicked, or held by another worker; its lane
	// resumes here at the latest.
	NotDone
)

func (o Outcome) String() string {
	switch o {
	case NotRun:
		return "not run"
	case Done:
		return "done"
	case NotDone:
		return "not done"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Group says which records wait for each other.
type Group uint8

const (
	// ByKey (the default): a record that is not Done stops the later
	// records of its key; other keys go on.
	ByKey Group = iota
	// ByLane: a record that is not Done stops the rest of its lane, and
	// a lane's records run one at a time.
	ByLane
)

// Options are Run's settings.
type Options struct {
	// Group says which records wait for each other. Defaults to ByKey.
	Group Group
	// Parallel is how many groups (keys, or lanes) run at once. Defaults
	// to 1.
	Parallel int
}

// Result is what Run recorded, one slot per record in the batch's order.
type Result struct {
	Outcomes []Outcome
	// Panics holds, for a record whose run panicked (NotDone), the value
	// it panicked with.
	Panics map[int]any
}

// Run runs records through run, which reports whether the record i is
// Done (true) or not (false), and returns each record's outcome. The
// records of a group run one at a time in the batch's order, and a group
// stops at its first record not Done; at most opts.Parallel groups run at
// once. A panic in run is that record's NotDone. Once ctx ends, no record
// starts. Run returns when every run it started has returned.
func Run(ctx context.Context, records []Record, opts Options, run func(ctx context.Context, i int) bool) Result {
	res := Result{Outcomes: make([]Outcome, len(records))}
	groups := group(records, opts.Group)
	parallel := min(max(opts.Parallel, 1), len(groups))
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		next = make(chan []int)
	)
	for range parallel {
		wg.Go(func() {
			for members := range next {
				for _, i := range members {
					if ctx.Err() != nil {
						break
					}
					done, p, panicked := call(ctx, run, i)
					mu.Lock()
					if panicked {
						if res.Panics == nil {
							res.Panics = map[int]any{}
						}
						res.Panics[i] = p
					}
					if done {
						res.Outcomes[i] = Done
					} else {
						res.Outcomes[i] = NotDone
					}
					mu.Unlock()
					if !done {
						break
					}
				}
			}
		})
	}
	for _, members := range groups {
		next <- members
	}
	close(next)
	wg.Wait()
	return res
}

// call runs record i, recovering a panic as not done.
func call(ctx context.Context, run func(context.Context, int) bool, i int) (done bool, p any, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			done, p, panicked = false, r, true
		}
	}()
	return run(ctx, i), nil, false
}

// group splits the records' indexes into groups, each in the batch's
// order, the groups in the order of their first record.
func group(records []Record, by Group) [][]int {
	var groups [][]int
	index := map[[2]string]int{}
	for i, r := range records {
		k := [2]string{r.Lane, r.Key}
		if by == ByLane {
			k[1] = ""
		}
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// Checkpoints returns, for each lane with a record not Done, the index of
// its first such record in the batch's order, lanes in the order of
// their first record: the records whose IDs are the batch item failures.
// None means the whole batch may be checkpointed.
func Checkpoints(records []Record, outcomes []Outcome) []int {
	var at []int
	stopped := map[string]bool{}
	for i, r := range records {
		if stopped[r.Lane] {
			continue
		}
		if i >= len(outcomes) || outcomes[i] != Done {
			stopped[r.Lane] = true
			at = append(at, i)
		}
	}
	return at
}
