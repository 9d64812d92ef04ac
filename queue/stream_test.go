package queue_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/queue"
)

func TestStreamRecordLifetime(t *testing.T) {
	t.Parallel()
	kinesis := queue.Stream{Retention: day, MaxRetryAttempts: -1}
	tests := []struct {
		name    string
		s       queue.Stream
		timeout time.Duration
		life    time.Duration
		want    time.Duration
	}{
		// 24h + 1m; + a quarter (6h0m15s), rounded up to the minute.
		{"Kinesis defaults", kinesis, time.Minute, 24*time.Hour + time.Minute, 30*time.Hour + 2*time.Minute},
		{"DynamoDB Streams", queue.Stream{DynamoDB: true, MaxRetryAttempts: 3, BatchingWindow: 10 * time.Second}, time.Minute,
			24*time.Hour + 70*time.Second, 30*time.Hour + 2*time.Minute},
		// The record age bounds it: 2h + 5s + 30s, + an hour's margin.
		{"record age under the retention", queue.Stream{Retention: 7 * day, MaxRetryAttempts: -1, MaxRecordAge: 2 * time.Hour, BatchingWindow: 5 * time.Second}, 30 * time.Second,
			2*time.Hour + 35*time.Second, 3*time.Hour + time.Minute},
		{"record age over the retention", queue.Stream{Retention: day, MaxRetryAttempts: -1, MaxRecordAge: 7 * day}, time.Minute,
			24*time.Hour + time.Minute, 30*time.Hour + 2*time.Minute},
		{"longest retention", queue.Stream{Retention: 8760 * time.Hour, MaxRetryAttempts: 10000}, 15 * time.Minute,
			8760*time.Hour + 15*time.Minute, 10950*time.Hour + 19*time.Minute},
		// The notice comes at most 24h1m after the write; the stream keeps
		// the record 24h, so the redrive writes it again by then, and the
		// copy lives 24h1m: 48h1m, + 12h0m15s.
		{"on-failure queue of 14 days", queue.Stream{Retention: day, MaxRetryAttempts: -1, OnFailureRetention: 14 * day}, time.Minute,
			48*time.Hour + time.Minute, 60*time.Hour + 2*time.Minute},
		// Record age 1h: the notice comes by 1h1m and is kept 10 minutes,
		// so the redrive is by 1h11m, within the stream's 7 days; the copy
		// lives 1h1m: 2h12m, + an hour.
		{"on-failure queue shorter than the stream", queue.Stream{Retention: 7 * day, MaxRetryAttempts: -1, MaxRecordAge: time.Hour, OnFailureRetention: 10 * time.Minute}, time.Minute,
			2*time.Hour + 12*time.Minute, 3*time.Hour + 12*time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.s.Lifetime(tt.timeout); got != tt.life {
				t.Fatalf("lifetime %s, want %s", got, tt.life)
			}
			got, err := tt.s.RecordLifetime(tt.timeout)
			if err != nil || got != tt.want {
				t.Fatalf("record lifetime %s, %v; want %s", got, err, tt.want)
			}
			if err := tt.s.CheckExpiry(got, tt.timeout); err != nil {
				t.Errorf("CheckExpiry(RecordLifetime): %v", err)
			}
			if err := tt.s.CheckExpiry(tt.life-time.Second, tt.timeout); !errors.Is(err, queue.ErrInvalidSettings) || !strings.Contains(err.Error(), "1s shorter") {
				t.Errorf("CheckExpiry(lifetime - 1s) = %v, want ErrInvalidSettings saying 1s shorter", err)
			}
		})
	}
}

func TestStreamRefusesSettings(t *testing.T) {
	t.Parallel()
	ok := queue.Stream{Retention: day, MaxRetryAttempts: -1}
	with := func(change func(*queue.Stream)) queue.Stream {
		s := ok
		change(&s)
		return s
	}
	tests := []struct {
		name, setting string
		s             queue.Stream
		timeout       time.Duration
	}{
		{"Kinesis without retention", "Retention", with(func(s *queue.Stream) { s.Retention = 0 }), time.Minute},
		{"Kinesis under a day", "Retention", with(func(s *queue.Stream) { s.Retention = 23 * time.Hour }), time.Minute},
		{"Kinesis over 365 days", "Retention", with(func(s *queue.Stream) { s.Retention = 8761 * time.Hour }), time.Minute},
		{"Kinesis not whole hours", "Retention", with(func(s *queue.Stream) { s.Retention = 25*time.Hour + time.Minute }), time.Minute},
		{"DynamoDB not 24h", "Retention", with(func(s *queue.Stream) { s.DynamoDB, s.Retention = true, 48*time.Hour }), time.Minute},
		{"retries under -1", "MaxRetryAttempts", with(func(s *queue.Stream) { s.MaxRetryAttempts = -2 }), time.Minute},
		{"retries over 10000", "MaxRetryAttempts", with(func(s *queue.Stream) { s.MaxRetryAttempts = 10001 }), time.Minute},
		{"no retry", "MaxRetryAttempts", with(func(s *queue.Stream) { s.MaxRetryAttempts = 0 }), time.Minute},
		{"record age under 60s", "MaxRecordAge", with(func(s *queue.Stream) { s.MaxRecordAge = 59 * time.Second }), time.Second},
		{"record age over 7 days", "MaxRecordAge", with(func(s *queue.Stream) { s.MaxRecordAge = 7*day + time.Second }), time.Minute},
		{"record age -2s", "MaxRecordAge", with(func(s *queue.Stream) { s.MaxRecordAge = -2 * time.Second }), time.Minute},
		{"record age leaves no retry", "MaxRecordAge", with(func(s *queue.Stream) { s.MaxRecordAge, s.BatchingWindow = 179*time.Second, time.Minute }), time.Minute},
		{"batching window over 300s", "BatchingWindow", with(func(s *queue.Stream) { s.BatchingWindow = 301 * time.Second }), time.Minute},
		{"on-failure retention over 14 days", "OnFailureRetention", with(func(s *queue.Stream) { s.OnFailureRetention = 15 * day }), time.Minute},
		{"timeout 0", "Timeout", ok, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := tt.s.RecordLifetime(tt.timeout)
			se, isSetting := errors.AsType[*queue.SettingError](err)
			if !errors.Is(err, queue.ErrInvalidSettings) || !isSetting || se.Setting != tt.setting {
				t.Fatalf("RecordLifetime(%+v, %s) = %v; want a *SettingError on %s", tt.s, tt.timeout, err, tt.setting)
			}
			t.Log(err)
		})
	}
	// The edges Lambda accepts.
	for _, s := range []queue.Stream{
		with(func(s *queue.Stream) { s.MaxRecordAge = -time.Second }),
		with(func(s *queue.Stream) { s.MaxRecordAge = 7 * day }),
		with(func(s *queue.Stream) {
			s.MaxRecordAge, s.BatchingWindow = 3*time.Minute, time.Minute
			s.MaxRetryAttempts = 1
		}),
		with(func(s *queue.Stream) { s.DynamoDB, s.Retention = true, 0 }),
		with(func(s *queue.Stream) { s.DynamoDB, s.Retention = true, day }),
		with(func(s *queue.Stream) { s.Retention, s.MaxRetryAttempts = 8760*time.Hour, 10000 }),
	} {
		if _, err := s.RecordLifetime(time.Minute); err != nil {
			t.Errorf("RecordLifetime(%+v): %v", s, err)
		}
	}
}

// TestStreamLifetimeCoversEveryDelivery plays random records through a
// model of Lambda's stream event source mapping, written from AWS's rules
// rather than from Lifetime's formula, and checks that RecordLifetime
// (and Lifetime, the bound it adds its margin to) is never shorter than
// the time from a record's write to the end of its last delivery: a
// record is read while the stream keeps it (age under the retention) and
// the mapping takes it (age under MaxRecordAge), gathered for up to the
// batching window, run for up to the timeout; a failed run is retried
// after any wait, while the attempts last; once dropped, its notice goes
// to the on-failure destination, which keeps it OnFailureRetention, and
// an operator may re-drive it once, reading the record back from the
// stream (so while the stream still keeps it) and writing it again as a
// new record, delivered by the same rules. The worst schedule must come
// within a second of Lifetime: the bound is not loose where it need not be.
func TestStreamLifetimeCoversEveryDelivery(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(43, 1))
	pick := func(options ...time.Duration) time.Duration { return options[rng.IntN(len(options))] }
	for i := range 3000 {
		s := queue.Stream{
			DynamoDB:           rng.IntN(3) == 0,
			MaxRetryAttempts:   []int{-1, 1, 2, 10, 10000}[rng.IntN(5)],
			BatchingWindow:     pick(0, time.Second, 30*time.Second, 300*time.Second),
			OnFailureRetention: pick(0, 0, time.Minute, time.Hour, 4*day, 14*day),
		}
		if !s.DynamoDB {
			s.Retention = pick(day, 7*day, 8760*time.Hour)
		}
		timeout := pick(time.Second, time.Minute, 15*time.Minute)
		s.MaxRecordAge = pick(0, -time.Second, s.BatchingWindow+2*timeout, time.Hour, 2*day, 7*day)
		if s.MaxRecordAge > 0 && s.MaxRecordAge < time.Minute {
			s.MaxRecordAge = time.Minute
		}
		want, err := s.RecordLifetime(timeout)
		if err != nil {
			t.Fatalf("settings %+v, timeout %s: %v", s, timeout, err)
		}
		worst := i%2 == 0 // every other record runs the latest schedule the rules allow
		last := deliver(rng, s, timeout, 0, true, worst)
		if life := s.Lifetime(timeout); last > life || last > want {
			t.Fatalf("settings %+v, timeout %s: a delivery ends %s after the write, after the lifetime %s (record lifetime %s)", s, timeout, last, life, want)
		} else if worst && life-last > time.Second {
			t.Fatalf("settings %+v, timeout %s: the latest schedule ends %s after the write, %s before the lifetime %s", s, timeout, last, life-last, life)
		}
	}
}

// deliver plays one record written at written through the model
// TestStreamLifetimeCoversEveryDelivery describes, and returns when its
// last delivery (a re-driven copy's included, when redrive) ends, counted
// from the first write. worst makes every choice the latest the rules
// allow: each read just before the record is too old, every run failing
// at the timeout, the redrive at the last moment.
func deliver(rng *rand.Rand, s queue.Stream, timeout, written time.Duration, redrive, worst bool) time.Duration {
	retention := s.Retention
	if s.DynamoDB {
		retention = 24 * time.Hour
	}
	// readable reports whether the mapping reads the record at age a.
	readable := func(a time.Duration) bool {
		return a < retention && (s.MaxRecordAge <= 0 || a < s.MaxRecordAge)
	}
	// upTo is a random duration in [0, d], or d when worst.
	upTo := func(d time.Duration) time.Duration {
		if worst || d <= 0 {
			return max(d, 0)
		}
		return time.Duration(rng.Int64N(int64(d) + 1))
	}
	limit := retention
	if s.MaxRecordAge > 0 {
		limit = min(limit, s.MaxRecordAge)
	}
	const tick = time.Millisecond
	age := upTo(limit / 2) // the first read, once the mapping gets to it
	if worst {
		age = limit - tick
	}
	end := written
	for attempt := 0; readable(age); attempt++ {
		start := age + upTo(s.BatchingWindow)
		run := upTo(timeout)
		end = written + start + run
		if !worst && rng.IntN(3) == 0 {
			return end // done: no more deliveries
		}
		if s.MaxRetryAttempts >= 0 && attempt >= s.MaxRetryAttempts {
			break
		}
		age = start + run + upTo(time.Hour) // the retry's read, after any wait
	}
	// Dropped: the notice goes to the destination at end, kept
	// OnFailureRetention; a redrive reads the record back while both are kept.
	if !redrive || s.OnFailureRetention == 0 {
		return end
	}
	at := end + upTo(s.OnFailureRetention)
	if at >= written+retention {
		if !worst {
			return end // the stream no longer has the record to re-drive
		}
		at = written + retention - tick
	}
	return max(end, deliver(rng, s, timeout, at, false, worst))
}
