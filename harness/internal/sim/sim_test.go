package sim

import (
	"flag"
	"testing"
)

var (
	seeds = flag.Int("sim.seeds", 2000, "how many seeds to explore")
	from  = flag.Uint64("sim.seed", 1, "the first seed (to replay a failure: -sim.seed=N -sim.seeds=1)")
)

func TestSimulation(t *testing.T) {
	var total Stats
	for seed := *from; seed < *from+uint64(*seeds); seed++ {
		st, err := Run(seed, DefaultConfig())
		if err != nil {
			t.Fatalf("%v\nreplay: go test ./internal/sim -run TestSimulation -sim.seed=%d -sim.seeds=1", err, seed)
		}
		total.Deliveries += st.Deliveries
		total.Calls += st.Calls
		total.Failures += st.Failures
		total.Stalls += st.Stalls
		total.FencedOff += st.FencedOff
		total.Crashes += st.Crashes
		total.Replays += st.Replays
		total.InProgress += st.InProgress
		total.TakeOvers += st.TakeOvers
		total.DeadLetters += st.DeadLetters
		total.Steps += st.Steps
	}
	t.Logf("%d seeds: %+v", *seeds, total)
	// The exploration must reach the interesting cases, or it proves little.
	if *seeds >= 200 && (total.Crashes == 0 || total.Replays == 0 || total.InProgress == 0 || total.TakeOvers == 0 || total.Failures == 0 || total.FencedOff == 0) {
		t.Fatalf("the seeds never reached a crash, a replay, an in-progress retry, a take-over, a failed call and a fenced-off zombie: %+v", total)
	}
}

func TestSeedsReplayExactly(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		a, errA := Run(seed, DefaultConfig())
		b, errB := Run(seed, DefaultConfig())
		if a != b || (errA == nil) != (errB == nil) {
			t.Fatalf("seed %d ran two ways: %+v (%v) and %+v (%v)", seed, a, errA, b, errB)
		}
	}
}
