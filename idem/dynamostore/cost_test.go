package dynamostore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/internal/storekit"
	"github.com/idemq/idemq/internal/testenv"
)

// capacityAPI asks DynamoDB for the capacity every write consumes
// (ReturnConsumedCapacity TOTAL) and keeps the last write units of each
// kind. A write whose condition fails returns none, yet DynamoDB bills it
// by the size of the item that holds the key (at least one unit): that
// is taken from the item the failure returns (ALL_OLD).
type capacityAPI struct {
	dynamostore.API
	mu                    sync.Mutex
	claim, complete, held float64
	heldItemBytes         int
}

func units(c *types.ConsumedCapacity) float64 {
	if c == nil || c.CapacityUnits == nil {
		return 0
	}
	return *c.CapacityUnits
}

func (c *capacityAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := c.API.PutItem(ctx, in, o...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if failed, ok := errors.AsType[*types.ConditionalCheckFailedException](err); ok {
		c.heldItemBytes = itemBytes(failed.Item)
		c.held = writeUnits(c.heldItemBytes)
	} else if err == nil {
		c.claim = units(out.ConsumedCapacity)
	}
	return out, err
}

func (c *capacityAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := c.API.UpdateItem(ctx, in, o...)
	if err == nil {
		c.mu.Lock()
		c.complete = units(out.ConsumedCapacity)
		c.mu.Unlock()
	}
	return out, err
}

// itemBytes is an item's size as DynamoDB bills and stores it: for each
// attribute the UTF-8 length of its name plus the size of its value
// (strings and binaries their length, numbers one byte per two
// significant digits plus one); the harness's bench.itemBytes for the
// kinds a record holds.
func itemBytes(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name)
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			n += len(v.Value)
		case *types.AttributeValueMemberB:
			n += len(v.Value)
		case *types.AttributeValueMemberN:
			digits := strings.Trim(strings.TrimLeft(v.Value, "-"), "0")
			n += (len(digits)+1)/2 + 1
		default:
			panic(fmt.Sprintf("itemBytes: %T", v))
		}
	}
	return n
}

// writeUnits is what a write of an item of n bytes consumes: one unit per
// KB started, at least one.
func writeUnits(n int) float64 { return float64(max(1, (n+1023)/1024)) }

// BenchmarkResultCost is what a prose result costs in DynamoDB, raw
// (idem.Config.CompressAbove -1) and as idem.Do stores it by default
// (gzipped): the bytes of data, the item, and the write units of the
// completion (as DynamoDB Local reports them) and of each duplicate's
// failed claim (billed by the item it hits). The key, payload
// fingerprint and owner are the SQS handler's sizes. Run it with
//
//	scripts/with-dynamodb.sh go test -run '^$' -bench ResultCost -benchtime 20x ./idem/dynamostore
func BenchmarkResultCost(b *testing.B) {
	client := dynamotest.Client(b)
	table := dynamotest.NewTable(b, client)
	text := testenv.Opticks(b)
	fingerprint := idem.Fingerprint([]byte(`{"idempotency_key":"order-000042","prompt":"Summarise order 42."}`))
	for _, size := range []int{512, 768, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10} {
		result := text[20000 : 20000+size]
		name := fmt.Sprintf("%dB", size)
		if size >= 1<<10 {
			name = fmt.Sprintf("%dKiB", size>>10)
		}
		for _, mode := range []struct {
			name string
			opts []idem.Option
		}{{"raw", []idem.Option{func(c *idem.Config) { c.CompressAbove = -1 }}}, {"gzip", nil}} {
			b.Run(name+"/"+mode.name, func(b *testing.B) {
				api := &capacityAPI{API: client}
				store := must(dynamostore.New(api, table))
				ctx := context.Background()
				var i int
				var rec idem.Record
				for b.Loop() {
					i++
					key, _ := idem.ClientKey("summarise", fmt.Sprintf("order-%s-%d-%06d", mode.name, size, i))
					r, err := idem.Do(ctx, store, key, fingerprint, func(context.Context) ([]byte, error) { return result, nil }, mode.opts...)
					if err != nil || r.Outcome != idem.Executed {
						b.Fatalf("first delivery: %s, %v", r.Outcome, err)
					}
					r, err = idem.Do(ctx, store, key, fingerprint, func(context.Context) ([]byte, error) {
						b.Fatal("the work ran again")
						return nil, nil
					}, mode.opts...)
					if err != nil || r.Outcome != idem.Replayed || !bytes.Equal(r.Value, result) {
						b.Fatalf("duplicate: %s, %d bytes, %v", r.Outcome, len(r.Value), err)
					}
					if i == 1 {
						rec, _, _ = store.Get(ctx, key)
					}
				}
				b.ReportMetric(float64(len(rec.Result)), "data-B")
				b.ReportMetric(float64(api.heldItemBytes), "item-B")
				b.ReportMetric(api.claim, "claim-WU")
				b.ReportMetric(api.complete, "complete-WU")
				b.ReportMetric(api.held, "duplicate-WU")
			})
		}
	}
}

// A million bytes of prose, too large for an item raw, fits gzipped: it
// is stored and replayed, where without compression it is omitted.
func TestMegabyteOfProseFits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	text := testenv.Opticks(t)
	prose := append(bytes.Clone(text), text[:1_000_000-len(text)]...)
	work := func(context.Context) ([]byte, error) { return prose, nil }

	r, err := idem.Do(ctx, b.store, "mb#gzip", "", work)
	if err != nil || r.Outcome != idem.Executed || r.Omitted {
		t.Fatalf("1 MB of prose: %s, omitted %v, %v; want it executed and stored", r.Outcome, r.Omitted, err)
	}
	rec := mustGet(t, b, "mb#gzip")
	if rec.Encoding != storekit.EncodingGzip || len(rec.Result) >= dynamostore.MaxItemBytes {
		t.Fatalf("stored with encoding %q, %d bytes", rec.Encoding, len(rec.Result))
	}
	t.Logf("1,000,000 bytes of Opticks stored in %d bytes", len(rec.Result))
	r, err = idem.Do(ctx, b.store, "mb#gzip", "", work)
	if err != nil || r.Outcome != idem.Replayed || !bytes.Equal(r.Value, prose) {
		t.Fatalf("duplicate: %s, %d bytes, %v; want the megabyte replayed", r.Outcome, len(r.Value), err)
	}

	r, err = idem.Do(ctx, b.store, "mb#raw", "", work, func(c *idem.Config) { c.CompressAbove = -1 })
	if !errors.Is(err, idem.ErrResultTooLarge) || !r.Omitted {
		t.Fatalf("without compression: omitted %v, %v; want it omitted, too large", r.Omitted, err)
	}
}

// Everything a completed record keeps besides its key and its result is
// billed on every completion, duplicate and month of storage: the payload
// fingerprint and the owner token take 22 bytes each (a 128-bit value in
// base64url), not the 71 and 32 of their long forms, and the item holds
// nothing but the record's attributes.
func TestCompletedItemOverhead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	fingerprint := idem.Fingerprint([]byte(`{"idempotency_key":"order-000042","prompt":"Summarise order 42."}`))
	result := bytes.Repeat([]byte("an answer that gzip shrinks well. "), 64)
	if _, err := idem.Do(ctx, b.store, "cost#overhead", fingerprint, func(context.Context) ([]byte, error) { return result, nil }); err != nil {
		t.Fatal(err)
	}
	out, err := b.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &b.table,
		Key:       map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "cost#overhead"}},
	})
	if err != nil || out.Item == nil {
		t.Fatalf("get item: %v, %v", out, err)
	}
	for name, want := range map[string]int{"validation": 22, "owner": 22} {
		if v, ok := out.Item[name].(*types.AttributeValueMemberS); !ok || len(v.Value) != want {
			t.Errorf("attribute %s: %v; want a string of %d bytes", name, out.Item[name], want)
		}
	}
	data, ok := out.Item["data"].(*types.AttributeValueMemberB)
	if !ok {
		t.Fatalf("data: %T; want a binary", out.Item["data"])
	}
	// id + key, status + COMPLETED, expiration + a number of 10 digits
	// (6 bytes, or fewer when the seconds end in zeros, which DynamoDB
	// does not count), owner + 22, validation + 22, data, data_encoding
	// + gzip.
	exp, ok := out.Item["expiration"].(*types.AttributeValueMemberN)
	if !ok || len(exp.Value) != 10 {
		t.Fatalf("expiration: %v; want a number of 10 digits (epoch seconds)", out.Item["expiration"])
	}
	expBytes := itemBytes(map[string]types.AttributeValue{"": exp})
	if expBytes < 2 || expBytes > 6 {
		t.Fatalf("expiration %s counted as %d bytes; want 2 to 6", exp.Value, expBytes)
	}
	want := len("id") + len("cost#overhead") + len("status") + len("COMPLETED") + len("expiration") + expBytes +
		len("owner") + 22 + len("validation") + 22 + len("data") + len("data_encoding") + len("gzip")
	if got := itemBytes(out.Item) - len(data.Value); got != want {
		t.Errorf("the item takes %d bytes besides its result; want %d (%v)", got, want, out.Item)
	}
}
