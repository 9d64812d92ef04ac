package ordered

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// batch is a random shard batch: lanes of records in order, keys drawn
// from a few, and for each record what its run does.
type batch struct {
	records []Record
	fails   []bool // run reports not done
	panics  []bool // run panics
	cancel  int    // the context ends when this many runs have started (-1: never)
	opts    Options
}

func randomBatch(r *rand.Rand) batch {
	var b batch
	lanes, keys := 1+r.IntN(3), 1+r.IntN(6)
	n := r.IntN(40)
	seq := map[string]int{}
	for range n {
		lane := fmt.Sprintf("shard-%d", r.IntN(lanes))
		seq[lane]++
		b.records = append(b.records, Record{Lane: lane, Key: fmt.Sprintf("k%d", r.IntN(keys)), ID: fmt.Sprintf("%s/%03d", lane, seq[lane])})
		b.fails = append(b.fails, r.IntN(8) == 0)
		b.panics = append(b.panics, r.IntN(30) == 0)
	}
	b.cancel = -1
	if r.IntN(5) == 0 {
		b.cancel = r.IntN(n + 1)
	}
	b.opts = Options{Group: Group(r.IntN(2)), Parallel: r.IntN(5)}
	return b
}

// TestCheckpointNeverSkips runs random shard batches (lanes, keys,
// failures, panics, a context that ends part-way, either grouping, 0 to 4
// at once) and checks what a stream's mapping relies on: every record
// before a lane's checkpoint is Done, the checkpoint's record is not; a
// record runs at most once, and Done only if its run said so; the
// records of a group run one at a time, in the lane's order, and none
// after one that was not Done.
func TestCheckpointNeverSkips(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 1))
	for round := range 3000 {
		b := randomBatch(r)
		t.Run("", func(t *testing.T) {
			checkBatch(t, b)
			if t.Failed() {
				t.Fatalf("seed %d, round %d: %+v", seed, round, b)
			}
		})
		if t.Failed() {
			return
		}
	}
}

func checkBatch(t *testing.T, b batch) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu       sync.Mutex
		calls    = make([]int, len(b.records))
		order    []int // the indexes in the order their runs started
		started  atomic.Int64
		inFlight = map[string]int{}
		overlap  []string
	)
	groupOf := func(i int) string {
		r := b.records[i]
		if b.opts.Group == ByLane {
			return r.Lane
		}
		return r.Lane + "\x00" + r.Key
	}
	res := Run(ctx, b.records, b.opts, func(ctx context.Context, i int) bool {
		if n := started.Add(1); b.cancel >= 0 && int(n) >= b.cancel {
			cancel()
		}
		g := groupOf(i)
		mu.Lock()
		calls[i]++
		order = append(order, i)
		inFlight[g]++
		if inFlight[g] > 1 {
			overlap = append(overlap, g)
		}
		mu.Unlock()
		defer func() {
			mu.Lock()
			inFlight[g]--
			mu.Unlock()
		}()
		if b.panics[i] {
			panic(fmt.Sprintf("record %d", i))
		}
		return !b.fails[i]
	})

	if len(overlap) > 0 {
		t.Errorf("records of one group ran at once: %q", overlap)
	}
	for i, o := range res.Outcomes {
		switch {
		case calls[i] > 1:
			t.Errorf("record %d ran %d times", i, calls[i])
		case calls[i] == 0 && o != NotRun:
			t.Errorf("record %d never ran but is %v", i, o)
		case calls[i] == 1 && o == Done && (b.fails[i] || b.panics[i]):
			t.Errorf("record %d is Done but its run failed or panicked", i)
		case calls[i] == 1 && o != Done && !b.fails[i] && !b.panics[i]:
			t.Errorf("record %d ran and said done but is %v", i, o)
		}
		if _, ok := res.Panics[i]; ok != (calls[i] == 1 && b.panics[i]) {
			t.Errorf("record %d: panic recorded %v, panicked %v", i, ok, calls[i] == 1 && b.panics[i])
		}
	}
	// Within a group: the runs started in the batch's order, and nothing
	// of the group ran after a record that was not Done; without a
	// cancelled context, the group ran up to that record.
	last := map[string]int{}
	for _, i := range order {
		g := groupOf(i)
		if j, ok := last[g]; ok && j > i {
			t.Errorf("group %q ran record %d after record %d", g, i, j)
		}
		last[g] = i
	}
	stopped := map[string]int{}
	for i := range b.records {
		g := groupOf(i)
		if j, ok := stopped[g]; ok && calls[i] > 0 {
			t.Errorf("record %d of group %q ran after record %d was %v", i, g, j, res.Outcomes[j])
		}
		if _, ok := stopped[g]; !ok && res.Outcomes[i] != Done {
			stopped[g] = i
			if b.cancel < 0 && res.Outcomes[i] == NotRun {
				t.Errorf("record %d of group %q did not run, with nothing before it not done and no end to the context", i, g)
			}
		}
	}
	// The checkpoints: per lane, the first record not Done; everything
	// before it Done.
	at := Checkpoints(b.records, res.Outcomes)
	checkpoint := map[string]int{}
	for _, i := range at {
		lane := b.records[i].Lane
		if _, dup := checkpoint[lane]; dup {
			t.Errorf("lane %q has two checkpoints", lane)
		}
		checkpoint[lane] = i
		if res.Outcomes[i] == Done {
			t.Errorf("the checkpoint of lane %q is record %d, which is Done", lane, i)
		}
	}
	for i, rec := range b.records {
		c, ok := checkpoint[rec.Lane]
		if res.Outcomes[i] != Done && (!ok || i < c) {
			t.Errorf("record %d of lane %q is %v but the lane's checkpoint passes it (at %d, set %v)", i, rec.Lane, res.Outcomes[i], c, ok)
		}
	}
}

// TestCheckpointFailsClosed: outcomes missing or never written are not
// Done, so a lane's checkpoint stops at them.
func TestCheckpointFailsClosed(t *testing.T) {
	t.Parallel()
	records := []Record{{Lane: "a", ID: "1"}, {Lane: "a", ID: "2"}, {Lane: "b", ID: "1"}}
	if got := Checkpoints(records, []Outcome{Done}); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("with one outcome of three: checkpoints %v, want [1 2]", got)
	}
	if got := Checkpoints(records, make([]Outcome, 3)); len(got) != 2 || got[0] != 0 || got[1] != 2 {
		t.Errorf("with nothing run: checkpoints %v, want [0 2]", got)
	}
	if got := Checkpoints(records, []Outcome{Done, Done, Done}); len(got) != 0 {
		t.Errorf("all done: checkpoints %v, want none", got)
	}
}

// TestByKeyGoesOn: a failure stops its key only; ByLane stops the lane.
func TestByKeyGoesOn(t *testing.T) {
	t.Parallel()
	records := []Record{{Lane: "s", Key: "a", ID: "1"}, {Lane: "s", Key: "b", ID: "2"}, {Lane: "s", Key: "a", ID: "3"}, {Lane: "s", Key: "b", ID: "4"}}
	run := func(_ context.Context, i int) bool { return i != 0 }
	for _, tc := range []struct {
		group Group
		want  []Outcome
	}{
		{ByKey, []Outcome{NotDone, Done, NotRun, Done}},
		{ByLane, []Outcome{NotDone, NotRun, NotRun, NotRun}},
	} {
		res := Run(context.Background(), records, Options{Group: tc.group, Parallel: 2}, run)
		if fmt.Sprint(res.Outcomes) != fmt.Sprint(tc.want) {
			t.Errorf("group %d: outcomes %v, want %v", tc.group, res.Outcomes, tc.want)
		}
		if at := Checkpoints(records, res.Outcomes); len(at) != 1 || at[0] != 0 {
			t.Errorf("group %d: checkpoints %v, want [0]", tc.group, at)
		}
	}
}
