package handler_test

import (
	"context"
	"testing"
	"time"

	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
)

// handlertest.Hold on DynamoDB Local: a live lease leaves the message
// for later and runs nothing; a lease that ended a minute ago is a crashed
// worker's, taken over by the next delivery, which runs once.
func TestHold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := dynamotest.Client(t)
	store := must(dynamostore.New(client, dynamotest.NewTable(t, client)))
	b := handlerbundle.New(t)
	h := b.WrapStore(store, nil)

	live := must(idem.ClientKey(handlerbundle.Namespace, "held"))
	if _, err := handlertest.Hold(ctx, store, live, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("h1", "held")), "h1")

	crashed := must(idem.ClientKey(handlerbundle.Namespace, "crashed"))
	if _, err := handlertest.Hold(ctx, store, crashed, time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("c1", "crashed")))
	if b.CallCount("h1") != 0 || b.CallCount("c1") != 1 {
		t.Errorf("ran %v; want c1 once, h1 never", b.Calls())
	}
	if _, err := handlertest.Hold(ctx, store, crashed, time.Now().Add(time.Minute)); err == nil {
		t.Error("Hold of a completed key: no error")
	}
}
