package idemqcdk

import (
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/queue"
)

// TestCrashRetryIsCheckLease checks that synth's crash-retry check is
// queue.CheckLease's rule for the function's default lease (the
// invocation's time left plus idem.DefaultLeaseMargin), over a grid of
// settings: the worker applies CheckLease to an IDEMQ_LEASE it is given,
// and the two must not disagree.
func TestCrashRetryIsCheckLease(t *testing.T) {
	var checked, refused int
	for _, timeout := range []time.Duration{time.Minute, 2 * time.Minute, 15 * time.Minute} {
		for _, visibility := range []time.Duration{timeout, 2 * timeout, 6 * timeout, 12 * time.Hour} {
			for _, window := range []time.Duration{0, 20 * time.Second, 300 * time.Second} {
				for _, receives := range []int{1, 2, 3, 5, 10} {
					for _, retention := range []time.Duration{5 * time.Minute, time.Hour, 13 * time.Hour, 96 * time.Hour} {
						for _, backoff := range []bool{false, true} {
							s := settings{timeout: timeout, visibility: visibility, window: window, maxReceives: receives, retention: retention, backoff: backoff}
							synth := s.checkCrashRetry(fieldName)
							lib := queue.CheckLease(s.queue(), timeout+idem.DefaultLeaseMargin, backoff)
							if (synth == nil) != (lib == nil) {
								t.Errorf("%+v: checkCrashRetry %v, queue.CheckLease %v", s, synth, lib)
							}
							checked++
							if synth != nil {
								refused++
							}
						}
					}
				}
			}
		}
	}
	if refused == 0 || refused == checked {
		t.Errorf("%d of %d settings refused: the grid tests one side only", refused, checked)
	}
}

// TestBlobExpiryDays checks that the bucket keeps a result at least a day
// longer than the record pointing to it, in whole days, and that synth's
// check refuses a lifecycle shorter than the records.
func TestBlobExpiryDays(t *testing.T) {
	for expiry, want := range map[time.Duration]int{
		time.Minute: 2, day: 2, day + time.Nanosecond: 3, 541*time.Hour + 15*time.Minute: 24, 600 * time.Hour: 26,
	} {
		if got := blobExpiryDays(expiry); got != want {
			t.Errorf("blobExpiryDays(%s) = %d, want %d", expiry, got, want)
		}
	}
	for expiry := time.Minute; expiry <= 60*day; expiry += 37 * time.Minute {
		days := blobExpiryDays(expiry)
		if kept := time.Duration(days) * day; kept < expiry+day {
			t.Fatalf("record expiry %s: objects kept %d days (%s), less than a day over the records", expiry, days, kept)
		}
		if err := checkBlobExpiry(days, expiry, fieldName); err != nil {
			t.Fatalf("record expiry %s, %d days: %v", expiry, days, err)
		}
	}
	if err := checkBlobExpiry(22, 541*time.Hour+15*time.Minute, fieldName); err == nil {
		t.Error("checkBlobExpiry accepts 22 days for records of 541h15m0s")
	}
	if err := checkBlobExpiry(23, 23*day, fieldName); err != nil {
		t.Errorf("checkBlobExpiry refuses 23 days for records of 23 days: %v", err)
	}
}
