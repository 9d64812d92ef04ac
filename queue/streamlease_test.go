package queue_test

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/idemq/idemq/queue"
)

// crashRetry plays a crashed invocation's record through the mapping's
// retries as Lambda and handler/stream treat it, and reports whether a
// retry claims its key before the mapping gives the record up. The record
// arrived arrivedBefore the crashed invocation began (at 0), which crashed
// at crash holding the key's claim until lease. Lambda sends the batch
// again at once; each invocation, t long, waits for the lease until its
// deadline guard, t - min(5s, t/2) after it began, and claims the key if
// the lease passed by then (the handler's rule), else reports it and the
// next retry begins. The mapping drops a record older than maxAge (0: no
// limit) before an invocation, and gives it up after retries attempts
// (-1: no limit).
func crashRetry(t, lease, crash, arrivedBefore, maxAge time.Duration, retries int) bool {
	reserve := min(5*time.Second, t/2)
	start := crash
	for attempt := 1; retries < 0 || attempt <= retries; attempt++ {
		if maxAge > 0 && start+arrivedBefore > maxAge {
			return false
		}
		if lease <= start+t-reserve {
			return true
		}
		start += t - reserve
	}
	return false
}

// Whatever the function's timeout, lease, crash time and mapping, settings
// CheckLease accepts let a crashed invocation's record be claimed by a
// retry. (The rule errs long: it counts half the timeout per retry, as a
// function of 10 s or less has; counting the whole timeout, the test
// fails.)
func TestStreamCheckLeaseCoversACrash(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	for range 20000 {
		timeout := time.Duration(1+r.IntN(900)) * time.Second
		lease := timeout + time.Duration(r.IntN(int(timeout/time.Millisecond)*2+20000))*time.Millisecond
		s := queue.Stream{Retention: 24 * time.Hour, MaxRetryAttempts: r.IntN(30) - 1}
		if r.IntN(2) == 0 {
			s.MaxRecordAge = time.Duration(60+r.IntN(4000)) * time.Second
		}
		s.BatchingWindow = time.Duration(r.IntN(20)) * time.Second
		err := s.CheckLease(lease, timeout)
		if err != nil {
			if !errors.Is(err, queue.ErrInvalidSettings) {
				t.Fatalf("%+v lease %s timeout %s: %v, not ErrInvalidSettings", s, lease, timeout, err)
			}
			continue
		}
		accepted++
		crash := time.Duration(r.Int64N(int64(timeout)))
		arrived := time.Duration(r.Int64N(int64(s.BatchingWindow) + 1))
		if !crashRetry(timeout, lease, crash, arrived, s.MaxRecordAge, s.MaxRetryAttempts) {
			t.Fatalf("accepted %+v with lease %s, timeout %s, but a crash at %s (record %s old) is given up", s, lease, timeout, crash, arrived)
		}
	}
	if accepted < 1000 {
		t.Errorf("%d settings accepted: the cases do not probe the rule", accepted)
	}
}

func TestStreamCheckLeaseRefuses(t *testing.T) {
	t.Parallel()
	lease := time.Minute + 10*time.Second + 500*time.Millisecond
	for _, tc := range []struct {
		s       queue.Stream
		setting string // "" : accepted
	}{
		{queue.Stream{Retention: 24 * time.Hour, MaxRetryAttempts: -1}, ""},
		{queue.Stream{Retention: 24 * time.Hour, MaxRetryAttempts: 3}, ""},
		{queue.Stream{Retention: 24 * time.Hour, MaxRetryAttempts: 2}, "MaxRetryAttempts"},
		{queue.Stream{Retention: 24 * time.Hour, MaxRetryAttempts: -1, MaxRecordAge: 131 * time.Second}, ""},
		{queue.Stream{Retention: 24 * time.Hour, MaxRetryAttempts: -1, MaxRecordAge: 130 * time.Second}, "MaxRecordAge"},
	} {
		err := tc.s.CheckLease(lease, time.Minute)
		var se *queue.SettingError
		switch {
		case tc.setting == "" && err != nil:
			t.Errorf("%+v: %v; want accepted", tc.s, err)
		case tc.setting != "" && (!errors.As(err, &se) || se.Setting != tc.setting):
			t.Errorf("%+v: %v; want a SettingError naming %s", tc.s, err, tc.setting)
		}
	}
}
