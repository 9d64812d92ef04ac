package redisstore_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/idem/redisstore/redistest"
	"github.com/redis/go-redis/v9"
)

// A listing longer than one SCAN batch (about 1,000 keys) goes on from
// batch to batch, and a page cut inside a batch resumes where it was cut:
// every record is listed (at least once: while the server grows or
// shrinks its table, after the keys of -count's earlier run, SCAN may
// return a key twice).
func TestListCrossesScanBatches(t *testing.T) {
	t.Parallel()
	client := ownDB(t, dbCrossBatches)
	b := &bundle{client: client, store: must(redisstore.New(client, redisstore.WithPrefix(redistest.Prefix(t)))), now: time.Now().Truncate(time.Second)}
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
		if c > 2 {
			t.Errorf("%s listed %d times", k, c)
		}
	}
}

// reverser reverses every other SCAN's batch, as a server rehashing its
// table between two SCANs may return a batch in another order.
type reverser struct{ scans atomic.Int64 }

func (r *reverser) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *reverser) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if scan, ok := cmd.(*redis.ScanCmd); ok && err == nil && r.scans.Add(1)%2 == 0 {
			keys, cursor := scan.Val()
			slices.Reverse(keys)
			scan.SetVal(keys, cursor)
		}
		return err
	}
}

func (r *reverser) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// A page cut inside a SCAN batch resumes after the last key it read,
// whatever order the batch comes back in and whatever was deleted
// before that key: every record that stays is listed (at least once: a
// server resizing its table, for another test's keys, may return a key
// twice).
func TestListResumesAfterItsLastKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := ownDB(t, dbResumeListing)
	client.AddHook(&reverser{})
	prefix := redistest.Prefix(t)
	store := must(redisstore.New(client, redisstore.WithPrefix(prefix)))
	now := time.Now()
	var want []string
	for i := range 7 {
		k := fmt.Sprintf("k%d", i)
		want = append(want, k)
		if err := client.HSet(ctx, store.Key(idem.Key(k)), "status", "COMPLETED", "expiration", now.Unix()+3600, "owner", "o", "data", "r").Err(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, k := range want {
			client.Del(context.Background(), store.Key(idem.Key(k)))
		}
	})
	seen := map[string]int{}
	req := idem.ListRequest{Limit: 2}
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("more than 10 pages of 2 for 7 records")
		}
		page, err := store.List(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Records {
			seen[string(r.Key)]++
		}
		if pages == 0 { // a record listed on the first page goes away
			if err := client.Del(ctx, store.Key(page.Records[0].Key)).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if page.Next == "" {
			break
		}
		req.Cursor = page.Next
	}
	for _, k := range want {
		if seen[k] == 0 {
			t.Errorf("%s not listed (all: %v)", k, seen)
		}
	}
}
