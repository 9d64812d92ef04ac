package idemqenv

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/stores"
)

// The defaults the table shows are written as literals, so that this
// package imports none of the parts it configures: each is held here
// against the constant of the part that really defaults it, so that a
// default changed there fails until the table says so.
func TestDefaultsShownAreThePartsDefaults(t *testing.T) {
	t.Parallel()
	for name, want := range map[string][]string{
		"IDEMQ_CONCURRENCY":              {strconv.Itoa(handler.DefaultConcurrency) + " "},
		"IDEMQ_CONSUMER_MAX_RUN_TIME":    {consumer.DefaultMaxRunTime.String() + " "},
		"IDEMQ_CONSUMER_MAX_BATCHES":     {strconv.Itoa(consumer.DefaultMaxBatches) + " "},
		"IDEMQ_CONSUMER_GRACE_PERIOD":    {consumer.DefaultGracePeriod.String() + " "},
		"IDEMQ_FRONTDOOR_PATH":           {"`" + frontdoor.DefaultPath + "`"},
		"IDEMQ_FRONTDOOR_MAX_BODY_BYTES": {strconv.Itoa(frontdoor.DefaultMaxBodyBytes)},
		"IDEMQ_LEASE":                    {durationWords(consumer.DefaultShortLease) + " renewed every " + durationWords(consumer.DefaultHeartbeat)},
		"IDEMQ_HEARTBEAT":                {durationWords(consumer.DefaultHeartbeat) + " (`consumer.DefaultHeartbeat`)"},
	} {
		v, _ := Lookup(name)
		for _, w := range want {
			if !strings.HasPrefix(v.Default, w) && !strings.Contains(v.Default, w) {
				t.Errorf("%s's default reads %q; the part's default is %q: write it in the table (vars.go)", name, v.Default, w)
			}
		}
	}
	v, _ := Lookup("IDEMQ_HEARTBEAT")
	if want := "at most every " + durationWords(consumer.DefaultShortLease/2); !strings.Contains(v.Doc, want) {
		t.Errorf("IDEMQ_HEARTBEAT's doc %q does not say %q (half of consumer.DefaultShortLease)", v.Doc, want)
	}
}

// durationWords writes d as the table's prose does: "1 minute", "20 s".
func durationWords(d interface{ Seconds() float64 }) string {
	s := d.Seconds()
	if s == 60 {
		return "1 minute"
	}
	return strconv.FormatFloat(s, 'f', -1, 64) + " s"
}

// The store opener's messages name this package's variables.
func TestStoresNameOurVariables(t *testing.T) {
	t.Parallel()
	_, _, err := stores.Open(context.Background(), stores.Settings{Kind: stores.Redis}, stores.Config{})
	if err == nil || !strings.HasPrefix(err.Error(), "IDEMQ_STORE=redis: ") {
		t.Errorf("stores.Open of a store without its opener: %v; want it to name IDEMQ_STORE", err)
	}
	if err := stores.URLError("redis://h", errors.New("no")); !strings.HasPrefix(err.Error(), "IDEMQ_STORE_URL=redis://h: ") {
		t.Errorf("stores.URLError: %v; want it to name IDEMQ_STORE_URL", err)
	}
}
