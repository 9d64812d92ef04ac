package redisstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/idemq/idemq/idem"
)

// A listing longer than one SCAN batch (about 1,000 keys) goes on from
// batch to batch, and a page cut inside a batch resumes where it was cut:
// every record is listed once.
func TestListCrossesScanBatches(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	const n = 2500
	pipe := b.client.Pipeline()
	for i := range n {
		pipe.HSet(ctx, b.store.Key(idem.Key(fmt.Sprintf("t#%04d", i))), "status", "COMPLETED", "expiration", b.now.Unix()+3600, "owner", "o", "data", "r")
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := range n {
			b.client.Del(context.Background(), b.store.Key(idem.Key(fmt.Sprintf("t#%04d", i))))
		}
	})
	seen := make(map[idem.Key]int)
	req := idem.ListRequest{Limit: 700}
	for pages := 0; ; pages++ {
		if pages > 2*n/700+5 {
			t.Fatalf("more than %d pages", pages)
		}
		page, err := b.store.List(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) > req.Limit {
			t.Fatalf("a page of %d records", len(page.Records))
		}
		for _, r := range page.Records {
			seen[r.Key]++
		}
		if page.Next == "" {
			break
		}
		req.Cursor = page.Next
	}
	if len(seen) != n {
		t.Fatalf("listed %d records of %d", len(seen), n)
	}
	for k, c := range seen {
		if c != 1 {
			t.Errorf("%s listed %d times", k, c)
		}
	}
}
