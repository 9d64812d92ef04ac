package demo

import (
	"context"
	"testing"
	"time"
)

func smallConfig() Config {
	cfg := DefaultConfig()
	cfg.Requests = 60
	cfg.CallTime = 20 * time.Millisecond
	cfg.Visibility = 150 * time.Millisecond
	return cfg
}

func TestIdemqCallsOncePerKey(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 3; seed++ {
		cfg := smallConfig()
		cfg.Seed = seed
		r, err := Run(context.Background(), cfg, NewIdemq(cfg.StoreLatency, 10*cfg.CallTime))
		if err != nil {
			t.Fatal(err)
		}
		if r.Calls != r.Keys || r.DuplicateCalls != 0 || r.Unanswered != 0 || r.DeadLetters != 0 {
			t.Fatalf("seed %d: %+v; want exactly one provider call per key", seed, r)
		}
		c := r.Causes
		if c.ShortVisibility == 0 || c.CrashBeforeAck == 0 || c.BrokerDuplicate == 0 || c.ProducerResend == 0 {
			t.Fatalf("seed %d: a cause of redelivery was not exercised: %+v", seed, c)
		}
		if r.Deliveries <= r.Keys || r.Replays == 0 {
			t.Fatalf("seed %d: %d deliveries, %d replays for %d keys; the duplicates did not arrive", seed, r.Deliveries, r.Replays, r.Keys)
		}
	}
}

func TestNaiveVariantsLoseNoWork(t *testing.T) {
	t.Parallel()
	cfg := smallConfig()
	for _, v := range []Variant{NewMarkAfter(cfg.StoreLatency), NewReadThenWrite(cfg.StoreLatency)} {
		r, err := Run(context.Background(), cfg, v)
		if err != nil {
			t.Fatal(err)
		}
		if r.Unanswered != 0 || r.Calls < r.Keys {
			t.Fatalf("%s: %+v; every key must reach the provider", v.Name(), r)
		}
	}
}
