package dynamostore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/internal/storekit"
)

// The claim's condition is evaluated by DynamoDB, not by the store: two
// stores on two clients (two connection pools, as two Lambda instances)
// racing for one key get exactly one winner.
func TestRaceAcrossClients(t *testing.T) {
	t.Parallel()
	const workers = 50
	c1, c2 := dynamotest.Client(t), dynamotest.Client(t)
	table := dynamotest.NewTable(t, c1)
	stores := []*dynamostore.Store{must(dynamostore.New(c1, table)), must(dynamostore.New(c2, table))}
	now := time.Now()

	claims := make([]idem.Claim, workers)
	owners := make([]string, workers)
	errs := make([]error, workers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range workers {
		owners[i] = storekit.NewOwner()
		wg.Go(func() {
			<-start
			claims[i], errs[i] = stores[i%2].Claim(context.Background(), idem.ClaimRequest{
				Key: "race#1", Owner: owners[i], Now: now,
				LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour),
			})
		})
	}
	close(start)
	wg.Wait()

	winner := -1
	for i, c := range claims {
		if errs[i] != nil {
			t.Fatalf("worker %d: %v", i, errs[i])
		}
		if c.Claimed {
			if winner >= 0 {
				t.Fatalf("workers %d and %d both claimed the key", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatal("no worker claimed the key")
	}
	for i, c := range claims {
		if i == winner {
			continue
		}
		if c.String() != string(idem.StatusInProgress) || c.Record.Owner != owners[winner] {
			t.Errorf("worker %d: %s held by %q, want in progress held by the winner %q", i, c, c.Record.Owner, owners[winner])
		}
	}
}
