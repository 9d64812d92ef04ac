package memstore_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
)

// An operator lists the claims whose lease has passed (idem.Admin, what
// the idemq command's stuck and release do), and deletes one fenced by
// the record as it was read: a delete of a record claimed again since is
// refused.
func ExampleStore_List() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now()
	for _, k := range []string{"doc-1", "doc-2"} {
		key, _ := idem.ClientKey("summarise", k)
		// A worker claimed each ten minutes ago with a one-minute lease,
		// and stopped.
		at := now.Add(-10 * time.Minute)
		if _, err := store.Claim(ctx, idem.ClaimRequest{Key: key, Owner: "stopped-worker", Now: at, LeaseUntil: at.Add(time.Minute), ExpiresAt: at.Add(time.Hour)}); err != nil {
			log.Fatal(err)
		}
	}
	page, err := store.List(ctx, idem.ListRequest{Status: idem.StatusInProgress, LeaseBefore: now})
	if err != nil {
		log.Fatal(err)
	}
	for _, rec := range page.Records {
		fmt.Println("stuck:", rec.Key)
	}

	first, second := page.Records[0], page.Records[1]
	fmt.Println("delete:", store.Delete(ctx, idem.DeletionOf(first)))
	// The next delivery takes the second key over before the operator's
	// delete: the delete is refused.
	if _, err := store.Claim(ctx, idem.ClaimRequest{Key: second.Key, Owner: "next-delivery", Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)}); err != nil {
		log.Fatal(err)
	}
	err = store.Delete(ctx, idem.DeletionOf(second))
	var changed *idem.RecordChangedError
	fmt.Println("refused:", errors.As(err, &changed), changed.Owner)
	// Output:
	// stuck: summarise#doc-1
	// stuck: summarise#doc-2
	// delete: <nil>
	// refused: true next-delivery
}
