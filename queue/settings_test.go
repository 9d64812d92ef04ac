package queue_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/queue"
)

const day = 24 * time.Hour

func TestRecordLifetime(t *testing.T) {
	t.Parallel()
	aws := queue.Settings{Retention: 4 * day, VisibilityTimeout: 30 * time.Second, MaxReceives: 5}
	withDLQ := func(q queue.Settings, retention time.Duration, fifo bool) queue.Settings {
		q.DeadLetterRetention, q.FIFO = retention, fifo
		return q
	}
	longest := queue.Settings{Retention: 14 * day, VisibilityTimeout: 6 * time.Minute, MaxReceives: 5, BatchingWindow: 20 * time.Second}
	tests := []struct {
		name    string
		q       queue.Settings
		life    time.Duration // message lifetime
		redrive time.Duration // lifetime with one redrive from the dead-letter queue
		want    time.Duration
	}{
		{"AWS defaults", aws,
			96*time.Hour + 150*time.Second, 96*time.Hour + 150*time.Second, 120*time.Hour + 4*time.Minute},
		{"longest retention, window", longest,
			14*day + 5*(6*time.Minute+20*time.Second), 14*day + 5*(6*time.Minute+20*time.Second), 420*time.Hour + 40*time.Minute},
		{"short queue gets an hour of margin", queue.Settings{Retention: time.Minute, VisibilityTimeout: time.Second, MaxReceives: 2},
			62 * time.Second, 62 * time.Second, 62 * time.Minute},
		// A standard dead-letter queue keeps a message 14 days from when it
		// was sent; the redriven copy is new and lives 96h2m30s again:
		// 336h + 96h2m30s = 432h2m30s; + 108h0m37.5s, rounded up.
		{"AWS defaults, 14-day standard dead-letter queue", withDLQ(aws, 14*day, false),
			96*time.Hour + 150*time.Second, 432*time.Hour + 150*time.Second, 540*time.Hour + 4*time.Minute},
		// FIFO: kept 14 days from its move, which can be 96h2m30s after it
		// was sent: 96h2m30s + 336h + 96h2m30s = 528h5m; + 132h1m15s.
		{"AWS defaults, 14-day FIFO dead-letter queue", withDLQ(aws, 14*day, true),
			96*time.Hour + 150*time.Second, 528*time.Hour + 5*time.Minute, 660*time.Hour + 7*time.Minute},
		// A standard dead-letter queue that keeps messages less long than
		// the queue does: a message it receives late is gone at once, one
		// it receives early is gone 4 days after it was sent; the redrive
		// comes at most a message lifetime after the send: 2 × 336h31m40s
		// = 673h3m20s; + 168h15m50s.
		{"dead-letter queue shorter than the queue", withDLQ(longest, 4*day, false),
			336*time.Hour + 1900*time.Second, 673*time.Hour + 3*time.Minute + 20*time.Second, 841*time.Hour + 20*time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.q.MessageLifetime(); got != tt.life {
				t.Fatalf("message lifetime %s, want %s", got, tt.life)
			}
			if got := tt.q.RedriveLifetime(); got != tt.redrive {
				t.Fatalf("redrive lifetime %s, want %s", got, tt.redrive)
			}
			got, err := queue.RecordLifetime(tt.q, tt.q.VisibilityTimeout)
			if err != nil {
				t.Fatal(err)
			}
			want := (tt.redrive + max(tt.redrive/4, time.Hour) + time.Minute - 1).Truncate(time.Minute)
			if got != tt.want {
				t.Fatalf("record lifetime %s, want %s", got, tt.want)
			}
			if got != want || got < tt.redrive+time.Hour || got%time.Minute != 0 {
				t.Fatalf("record lifetime %s: want %s, at least an hour over %s, whole minutes", got, want, tt.redrive)
			}
			if err := queue.CheckExpiry(tt.q, got); err != nil {
				t.Fatalf("the computed lifetime fails its own check: %v", err)
			}
		})
	}
}

func TestRecordLifetimeRejects(t *testing.T) {
	t.Parallel()
	ok := queue.Settings{Retention: 4 * day, VisibilityTimeout: 30 * time.Second, MaxReceives: 5}
	tests := []struct {
		name    string
		edit    func(*queue.Settings)
		setting string // the *queue.SettingError's
	}{
		{"retention too short", func(q *queue.Settings) { q.Retention = 59 * time.Second }, "Retention"},
		{"retention too long", func(q *queue.Settings) { q.Retention = 14*day + time.Second }, "Retention"},
		{"no visibility", func(q *queue.Settings) { q.VisibilityTimeout = 0 }, "VisibilityTimeout"},
		{"visibility over 12h", func(q *queue.Settings) { q.VisibilityTimeout = 12*time.Hour + time.Second }, "VisibilityTimeout"},
		{"no receives", func(q *queue.Settings) { q.MaxReceives = 0 }, "MaxReceives"},
		{"too many receives", func(q *queue.Settings) { q.MaxReceives = 1001 }, "MaxReceives"},
		{"negative window", func(q *queue.Settings) { q.BatchingWindow = -time.Second }, "BatchingWindow"},
		{"window over 300s", func(q *queue.Settings) { q.BatchingWindow = 301 * time.Second }, "BatchingWindow"},
		{"dead-letter retention too short", func(q *queue.Settings) { q.DeadLetterRetention = 59 * time.Second }, "DeadLetterRetention"},
		{"dead-letter retention too long", func(q *queue.Settings) { q.DeadLetterRetention = 14*day + time.Second }, "DeadLetterRetention"},
		{"negative dead-letter retention", func(q *queue.Settings) { q.DeadLetterRetention = -time.Second }, "DeadLetterRetention"},
		// Accepted by SQS, but unsafe: no retry.
		{"one receive", func(q *queue.Settings) { q.MaxReceives = 1 }, "MaxReceives"},
		// Shorter than the function's timeout (RecordLifetime's one
		// second here).
		{"visibility under the timeout", func(q *queue.Settings) { q.VisibilityTimeout = 999 * time.Millisecond }, "VisibilityTimeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := ok
			tt.edit(&q)
			_, err := queue.RecordLifetime(q, time.Second)
			if !errors.Is(err, queue.ErrInvalidSettings) {
				t.Fatalf("err %v, want queue.ErrInvalidSettings", err)
			}
			if se, ok := errors.AsType[*queue.SettingError](err); !ok || se.Setting != tt.setting {
				t.Fatalf("err %v, want a *queue.SettingError naming %s", err, tt.setting)
			}
		})
	}
}

// RecordLifetime refuses the settings of issue 35's team, which it used to
// size: a visibility timeout shorter than the function's timeout, and a
// single receive; and a timeout not given. Each error names its setting.
func TestRecordLifetimeRefusesUnsafeSettings(t *testing.T) {
	t.Parallel()
	team := queue.Settings{Retention: 4 * day, VisibilityTimeout: 30 * time.Second, MaxReceives: 5, DeadLetterRetention: 14 * day}
	for _, tt := range []struct {
		name    string
		q       queue.Settings
		timeout time.Duration
		setting string
		says    string
	}{
		{"visibility 30s, timeout 45s", team, 45 * time.Second, "VisibilityTimeout", "visibility timeout 30s is shorter than the function's timeout 45s"},
		{"max receives 1", func() queue.Settings { q := team; q.MaxReceives = 1; return q }(), 30 * time.Second, "MaxReceives", "max receives 1 leaves no retry"},
		{"no timeout", team, 0, "Timeout", "timeout 0s"},
		{"negative timeout", team, -time.Second, "Timeout", "timeout -1s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			life, err := queue.RecordLifetime(tt.q, tt.timeout)
			se, ok := errors.AsType[*queue.SettingError](err)
			if !ok || se.Setting != tt.setting || !errors.Is(err, queue.ErrInvalidSettings) || life != 0 {
				t.Fatalf("RecordLifetime: %s, %v; want 0 and a *queue.SettingError naming %s", life, err, tt.setting)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("message %q does not say %q", err, tt.says)
			}
		})
	}
	// The boundaries are accepted: visibility equal to the timeout, two
	// receives.
	edge := team
	edge.MaxReceives = queue.MinSafeMaxReceives
	if _, err := queue.RecordLifetime(edge, edge.VisibilityTimeout); err != nil {
		t.Errorf("visibility equal to the timeout, %d receives: %v", queue.MinSafeMaxReceives, err)
	}
}

func TestCheckExpiry(t *testing.T) {
	t.Parallel()
	q := queue.Settings{Retention: 4 * day, VisibilityTimeout: 30 * time.Second, MaxReceives: 5}
	if err := queue.CheckExpiry(q, time.Hour); !errors.Is(err, queue.ErrInvalidSettings) {
		t.Fatalf("a one-hour expiry for a four-day queue: err %v, want queue.ErrInvalidSettings", err)
	}
	if err := queue.CheckExpiry(q, q.MessageLifetime()); err != nil {
		t.Fatalf("an expiry equal to the lifetime: %v", err)
	}
	// With the dead-letter queue counted, the message lifetime is not
	// enough: a redrive late in the dead-letter queue's retention would
	// find the record gone.
	for _, fifo := range []bool{false, true} {
		q.DeadLetterRetention, q.FIFO = 14*day, fifo
		if err := queue.CheckExpiry(q, q.MessageLifetime()); !errors.Is(err, queue.ErrInvalidSettings) {
			t.Errorf("FIFO %v: an expiry of the message lifetime with a 14-day dead-letter queue: err %v, want queue.ErrInvalidSettings", fifo, err)
		}
		if err := queue.CheckExpiry(q, q.RedriveLifetime()); err != nil {
			t.Errorf("FIFO %v: an expiry equal to the redrive lifetime: %v", fifo, err)
		}
	}
}

// A message dead-lettered as late as it can be, kept by the dead-letter
// queue as long as it keeps it, then redriven and delivered as late as the
// queue allows: the record must still be there at that last delivery,
// counted from when the message was first sent (the record's expiry counts
// from its claim or completion, which come later).
func TestRecordLifetimeCoversALateRedrive(t *testing.T) {
	t.Parallel()
	for _, q := range []queue.Settings{
		{Retention: 4 * day, VisibilityTimeout: 12 * time.Minute, MaxReceives: 5, DeadLetterRetention: 14 * day},
		{Retention: 4 * day, VisibilityTimeout: 12 * time.Minute, MaxReceives: 5, DeadLetterRetention: 14 * day, FIFO: true},
		{Retention: 14 * day, VisibilityTimeout: time.Hour, MaxReceives: 10, BatchingWindow: 5 * time.Minute, DeadLetterRetention: 14 * day},
		{Retention: 14 * day, VisibilityTimeout: time.Hour, MaxReceives: 10, DeadLetterRetention: 7 * day, FIFO: true},
		{Retention: time.Hour, VisibilityTimeout: time.Minute, MaxReceives: 3, DeadLetterRetention: time.Minute},
	} {
		inQueue := q.Retention + time.Duration(q.MaxReceives)*(q.VisibilityTimeout+q.BatchingWindow)
		moved := inQueue // the latest a message reaches the dead-letter queue
		gone := q.DeadLetterRetention
		if q.FIFO {
			gone = moved + q.DeadLetterRetention // FIFO: its clock restarts when it moves
		}
		redriven := max(gone, moved)
		lastDelivery := redriven + inQueue // the redriven copy is a new message
		life, err := queue.RecordLifetime(q, q.VisibilityTimeout)
		if err != nil {
			t.Fatal(err)
		}
		if life < lastDelivery {
			t.Errorf("%+v: record lifetime %s ends before the last delivery of a late redrive, %s after the send", q, life, lastDelivery)
		}
	}
}

func TestInProgressReceives(t *testing.T) {
	t.Parallel()
	q := queue.Settings{Retention: 4 * day, VisibilityTimeout: 10 * time.Minute, MaxReceives: 5}
	for _, tt := range []struct {
		held    time.Duration
		backoff bool
		want    int
	}{
		{9 * time.Minute, false, 0}, // the retry takes it over
		{10 * time.Minute, false, 1},
		{35 * time.Minute, false, 3},
		{35 * time.Minute, true, 1}, // held until the lease ends
		{12*time.Hour + 10*time.Minute, true, 2},
		{30 * time.Hour, true, 3},
	} {
		if got := q.InProgressReceives(tt.held, tt.backoff); got != tt.want {
			t.Errorf("held %s, back-off %v: %d receives, want %d", tt.held, tt.backoff, got, tt.want)
		}
	}
}

func TestCheckLease(t *testing.T) {
	t.Parallel()
	q := queue.Settings{Retention: 4 * day, VisibilityTimeout: 12 * time.Minute, MaxReceives: 5, BatchingWindow: 30 * time.Second}
	for _, tt := range []struct {
		name    string
		q       queue.Settings
		lease   time.Duration
		backoff bool
		ok      bool
	}{
		{"the default lease of a 2-minute function", q, 2*time.Minute + 10*time.Second, true, true},
		{"an hour with back-off", q, time.Hour, true, true},
		{"an hour without back-off: 5 receives in progress", q, time.Hour, false, false},
		{"35 minutes without back-off: 2 in progress, one retry", q, 35 * time.Minute, false, true},
		{"longer than the retention", q, 4 * day, true, false},
		{"a retry after the retention", queue.Settings{Retention: 10 * time.Minute, VisibilityTimeout: 5 * time.Minute, MaxReceives: 5}, 6 * time.Minute, true, false},
		{"invalid settings", queue.Settings{}, time.Minute, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := queue.CheckLease(tt.q, tt.lease, tt.backoff)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckLease: %v, want ok = %v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, queue.ErrInvalidSettings) {
				t.Errorf("%v is not ErrInvalidSettings", err)
			}
		})
	}
}

func TestQueueSettingsJSON(t *testing.T) {
	t.Parallel()
	q := queue.Settings{Retention: 4 * day, VisibilityTimeout: 12 * time.Minute, MaxReceives: 5, BatchingWindow: time.Second, DeadLetterRetention: 14 * day, FIFO: true}
	b, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"retention":"96h0m0s","visibilityTimeout":"12m0s","maxReceives":5,"batchingWindow":"1s","deadLetterRetention":"336h0m0s","fifo":true}`
	if string(b) != want {
		t.Errorf("Marshal: %s, want %s", b, want)
	}
	var back queue.Settings
	if err := json.Unmarshal(b, &back); err != nil || back != q {
		t.Errorf("Unmarshal: %+v, %v; want %+v", back, err, q)
	}
	var partial queue.Settings
	if err := json.Unmarshal([]byte(`{"retention":"1h","visibilityTimeout":"30s","maxReceives":3}`), &partial); err != nil ||
		partial != (queue.Settings{Retention: time.Hour, VisibilityTimeout: 30 * time.Second, MaxReceives: 3}) {
		t.Errorf("Unmarshal of the required fields: %+v, %v", partial, err)
	}
	for _, bad := range []string{
		`{"retention":"4 days","visibilityTimeout":"30s","maxReceives":3}`,
		`{"retention":"96h","visibilityTimeout":"30s","maxReceive":3}`,
		`{"retention":345600}`,
		`{"retention":"96h"} {}`,
		`[]`,
	} {
		var q queue.Settings
		if err := json.Unmarshal([]byte(bad), &q); err == nil {
			t.Errorf("Unmarshal(%s): no error", bad)
		}
	}
}
