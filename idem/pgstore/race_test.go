package pgstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
	"github.com/idemq/idemq/internal/storekit"
)

// Claims that race for a fresh key under READ COMMITTED: most losers'
// statements begin before the winner's insert commits, so their snapshot
// has no row. The claim statement must still tell each of them who won,
// in its one round trip: every loser gets the winner's record, and the
// racers send exactly one statement each.
func TestRacingClaimsLearnTheWinnerInOneStatement(t *testing.T) {
	t.Parallel()
	pool, statements := countingPool(t)
	store := must(pgstore.New(pool, pgtest.NewTable(t, pool)))
	statements.take()
	const rounds, racers = 20, pgtest.MaxConns
	now := time.Now()
	for round := range rounds {
		key := idem.Key(fmt.Sprintf("t#race%d", round))
		claims := make([]idem.Claim, racers)
		owners := make([]string, racers)
		errs := make([]error, racers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range racers {
			owners[i] = storekit.NewOwner()
			wg.Go(func() {
				<-start
				claims[i], errs[i] = store.Claim(context.Background(), idem.ClaimRequest{
					Key: key, Owner: owners[i], Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)})
			})
		}
		close(start)
		wg.Wait()
		winner := ""
		for i, c := range claims {
			if errs[i] != nil {
				t.Fatalf("round %d: %v", round, errs[i])
			}
			if c.Claimed {
				if winner != "" {
					t.Fatalf("round %d: two winners", round)
				}
				winner = owners[i]
			}
		}
		if winner == "" {
			t.Fatalf("round %d: no winner", round)
		}
		for i, c := range claims {
			if !c.Claimed && (c.Record.Owner != winner || c.Record.Status != idem.StatusInProgress || c.Record.Key != key) {
				t.Fatalf("round %d: racer %d was told %+v, want the winner %s's claim", round, i, c.Record, winner)
			}
		}
	}
	if n := statements.take(); n != rounds*racers {
		t.Fatalf("%d statements for %d claims, want one each", n, rounds*racers)
	}
}
