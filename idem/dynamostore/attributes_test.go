package dynamostore_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/internal/storekit"
)

// The item a claim and a completion leave, by default: Powertools' names,
// the expiry in epoch seconds rounded up, the lease in epoch milliseconds.
func TestItemLayout(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	now := b.now.Add(250 * time.Millisecond)
	lease, expiry := now.Add(90*time.Second+7*time.Millisecond), now.Add(time.Hour)
	owner := storekit.NewOwner()
	if _, err := b.store.Claim(ctx, idem.ClaimRequest{Key: "lay#1", Owner: owner, Fingerprint: "sha256:ab", Now: now, LeaseUntil: lease, ExpiresAt: expiry}); err != nil {
		t.Fatal(err)
	}
	wantItem(t, b.rawItem(t, "id", "lay#1"), map[string]string{
		"id":                     "S:lay#1",
		"status":                 "S:INPROGRESS",
		"expiration":             "N:" + strconv.FormatInt(expiry.Unix()+1, 10),
		"in_progress_expiration": "N:" + strconv.FormatInt(lease.UnixMilli(), 10),
		"owner":                  "S:" + owner,
		"validation":             "S:sha256:ab",
	})
	done := now.Add(2 * time.Hour)
	if err := b.store.Complete(ctx, idem.Completion{Key: "lay#1", Owner: owner, Result: []byte{0, 'x'}, ExpiresAt: done}); err != nil {
		t.Fatal(err)
	}
	wantItem(t, b.rawItem(t, "id", "lay#1"), map[string]string{
		"id":         "S:lay#1",
		"status":     "S:COMPLETED",
		"expiration": "N:" + strconv.FormatInt(done.Unix()+1, 10),
		"owner":      "S:" + owner,
		"validation": "S:sha256:ab",
		"data":       "B:\x00x",
	})

	// A result stored compressed has its encoding beside it.
	owner = b.mustClaim(t, "lay#2")
	if err := b.store.Complete(ctx, idem.Completion{Key: "lay#2", Owner: owner, Result: []byte{0x1f, 0x8b}, Encoding: storekit.EncodingGzip, ExpiresAt: done}); err != nil {
		t.Fatal(err)
	}
	wantItem(t, b.rawItem(t, "id", "lay#2"), map[string]string{
		"id":            "S:lay#2",
		"status":        "S:COMPLETED",
		"expiration":    "N:" + strconv.FormatInt(done.Unix()+1, 10),
		"owner":         "S:" + owner,
		"data":          "B:\x1f\x8b",
		"data_encoding": "S:gzip",
	})
}

// Every attribute name can be changed, the partition key included.
func TestCustomAttributes(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	table := dynamotest.NewTable(t, client, dynamotest.WithKeyAttribute("pk"))
	attrs := dynamostore.Attributes{
		Key: "pk", Expiry: "ttl_s", Lease: "lease_ms", Status: "state",
		Result: "result", Fingerprint: "payload_hash", Owner: "claim_token",
		OmittedBytes: "too_big_bytes", Encoding: "packing",
	}
	store := must(dynamostore.New(client, table, dynamostore.WithAttributes(attrs)))
	if store.Attributes() != attrs {
		t.Fatalf("attributes %+v, want %+v", store.Attributes(), attrs)
	}
	b := &bundle{client: client, table: table, store: store, now: time.Now().Truncate(time.Second)}
	ctx := context.Background()

	owner := b.mustClaim(t, "cus#1")
	item := b.rawItem(t, "pk", "cus#1")
	wantNames(t, item, "pk", "state", "ttl_s", "lease_ms", "claim_token")

	if err := store.Complete(ctx, idem.Completion{Key: "cus#1", Owner: owner, Result: []byte("done"), ExpiresAt: b.now.Add(time.Hour)}); err != nil {
		t.Fatalf("complete: %v", err)
	}
	wantNames(t, b.rawItem(t, "pk", "cus#1"), "pk", "state", "ttl_s", "result", "claim_token")

	c, _ := b.claim(t, "cus#1", b.now.Add(time.Minute), time.Minute, time.Hour)
	if c.String() != string(idem.StatusCompleted) || string(c.Record.Result) != "done" || c.Record.Owner != owner {
		t.Fatalf("duplicate: %+v, want the completed record", c)
	}
	rec, ok, err := store.Get(ctx, "cus#1")
	if err != nil || !ok || rec.Status != idem.StatusCompleted || string(rec.Result) != "done" {
		t.Fatalf("get: %+v, %v, %v", rec, ok, err)
	}

	owner = b.mustClaim(t, "cus#3")
	if err := store.Complete(ctx, idem.Completion{Key: "cus#3", Owner: owner, OmittedBytes: 5 << 20, ExpiresAt: b.now.Add(time.Hour)}); err != nil {
		t.Fatalf("complete without the result: %v", err)
	}
	wantNames(t, b.rawItem(t, "pk", "cus#3"), "pk", "state", "ttl_s", "too_big_bytes", "claim_token")
	c, _ = b.claim(t, "cus#3", b.now.Add(time.Minute), time.Minute, time.Hour)
	if c.String() != string(idem.StatusCompleted) || c.Record.OmittedBytes != 5<<20 {
		t.Fatalf("duplicate: %+v, want the completed record with its marker", c)
	}

	owner = b.mustClaim(t, "cus#4")
	if err := store.Complete(ctx, idem.Completion{Key: "cus#4", Owner: owner, Result: []byte("z"), Encoding: storekit.EncodingGzip, ExpiresAt: b.now.Add(time.Hour)}); err != nil {
		t.Fatalf("complete with an encoding: %v", err)
	}
	wantNames(t, b.rawItem(t, "pk", "cus#4"), "pk", "state", "ttl_s", "result", "packing", "claim_token")
	c, _ = b.claim(t, "cus#4", b.now.Add(time.Minute), time.Minute, time.Hour)
	if c.String() != string(idem.StatusCompleted) || c.Record.Encoding != storekit.EncodingGzip {
		t.Fatalf("duplicate: %+v, want the completed record with its encoding", c)
	}

	// The fence and the take-over use the custom names too.
	stale := b.mustClaim(t, "cus#2")
	c, fresh := b.claim(t, "cus#2", b.now.Add(2*time.Minute), time.Minute, time.Hour)
	if !c.Claimed || c.Previous == nil || c.Previous.Owner != stale {
		t.Fatalf("take-over: %+v", c)
	}
	if err := store.Extend(ctx, idem.Extension{Key: "cus#2", Owner: stale, LeaseUntil: b.now.Add(time.Hour), ExpiresAt: b.now.Add(2 * time.Hour)}); !errors.Is(err, idem.ErrLeaseLost) {
		t.Fatalf("stale extend: %v, want idem.ErrLeaseLost", err)
	}
	if err := store.Extend(ctx, idem.Extension{Key: "cus#2", Owner: fresh, LeaseUntil: b.now.Add(time.Hour), ExpiresAt: b.now.Add(2 * time.Hour)}); err != nil {
		t.Fatalf("extend: %v", err)
	}
	if err := store.Release(ctx, "cus#2", fresh); err != nil {
		t.Fatalf("release: %v", err)
	}
	if _, ok, _ := store.Get(ctx, "cus#2"); ok {
		t.Fatal("the released record is still there")
	}
}

func TestNewRefusesBadSettings(t *testing.T) {
	t.Parallel()
	client := &fakeAPI{}
	for _, tc := range []struct {
		name, field string
		opts        []dynamostore.Option
		client      dynamostore.API
		table       string
	}{
		{"nil client", "client", nil, nil, "t"},
		{"empty table", "table", nil, client, ""},
		{"clashing names", "Attributes.Owner", []dynamostore.Option{dynamostore.WithAttributes(dynamostore.Attributes{Owner: "status"})}, client, "t"},
		{"typed nil", "client", nil, (*dynamodb.Client)(nil), "t"},
		{"nil option", "options[0]", []dynamostore.Option{nil}, client, "t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := dynamostore.New(tc.client, tc.table, tc.opts...)
			if bad, ok := errors.AsType[*idem.ConfigError](err); !ok || bad.Package != "dynamostore" || bad.Field != tc.field || s != nil {
				t.Fatalf("%v, %v; want no store and an *idem.ConfigError naming %s", s, err, tc.field)
			}
		})
	}
}

func wantItem(t *testing.T, item map[string]types.AttributeValue, want map[string]string) {
	t.Helper()
	got := make(map[string]string, len(item))
	for name, v := range item {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			got[name] = "S:" + v.Value
		case *types.AttributeValueMemberN:
			got[name] = "N:" + v.Value
		case *types.AttributeValueMemberB:
			got[name] = "B:" + string(v.Value)
		default:
			got[name] = "?"
		}
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("attribute %s = %q, want %q", name, got[name], w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected attribute %s = %q", name, got[name])
		}
	}
}

func wantNames(t *testing.T, item map[string]types.AttributeValue, names ...string) {
	t.Helper()
	var got []string
	for name := range item {
		got = append(got, name)
	}
	slices.Sort(got)
	slices.Sort(names)
	if !slices.Equal(got, names) {
		t.Errorf("item has attributes %v, want %v", got, names)
	}
}
