package handler_test

import (
	"errors"
	"testing"
	"time"

	"github.com/idemq/idemq/handler"
)

const day = 24 * time.Hour

func TestRecordLifetime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		q    handler.QueueSettings
		life time.Duration // message lifetime
		want time.Duration
	}{
		{"AWS defaults", handler.QueueSettings{Retention: 4 * day, VisibilityTimeout: 30 * time.Second, MaxReceives: 5},
			96*time.Hour + 150*time.Second, 120*time.Hour + 4*time.Minute},
		{"longest retention, window", handler.QueueSettings{Retention: 14 * day, VisibilityTimeout: 6 * time.Minute, MaxReceives: 5, BatchingWindow: 20 * time.Second},
			14*day + 5*(6*time.Minute+20*time.Second), 420*time.Hour + 40*time.Minute},
		{"short queue gets an hour of margin", handler.QueueSettings{Retention: time.Minute, VisibilityTimeout: time.Second, MaxReceives: 1},
			61 * time.Second, 62 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.q.MessageLifetime(); got != tt.life {
				t.Fatalf("message lifetime %s, want %s", got, tt.life)
			}
			got, err := handler.RecordLifetime(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			want := (tt.life + max(tt.life/4, time.Hour) + time.Minute - 1).Truncate(time.Minute)
			if got != tt.want {
				t.Fatalf("record lifetime %s, want %s", got, tt.want)
			}
			if got != want || got < tt.life+time.Hour || got%time.Minute != 0 {
				t.Fatalf("record lifetime %s: want %s, at least an hour over %s, whole minutes", got, want, tt.life)
			}
			if err := handler.CheckExpiry(tt.q, got); err != nil {
				t.Fatalf("the computed lifetime fails its own check: %v", err)
			}
		})
	}
}

func TestRecordLifetimeRejects(t *testing.T) {
	t.Parallel()
	ok := handler.QueueSettings{Retention: 4 * day, VisibilityTimeout: 30 * time.Second, MaxReceives: 5}
	tests := []struct {
		name string
		edit func(*handler.QueueSettings)
	}{
		{"retention too short", func(q *handler.QueueSettings) { q.Retention = 59 * time.Second }},
		{"retention too long", func(q *handler.QueueSettings) { q.Retention = 14*day + time.Second }},
		{"no visibility", func(q *handler.QueueSettings) { q.VisibilityTimeout = 0 }},
		{"visibility over 12h", func(q *handler.QueueSettings) { q.VisibilityTimeout = 12*time.Hour + time.Second }},
		{"no receives", func(q *handler.QueueSettings) { q.MaxReceives = 0 }},
		{"too many receives", func(q *handler.QueueSettings) { q.MaxReceives = 1001 }},
		{"negative window", func(q *handler.QueueSettings) { q.BatchingWindow = -time.Second }},
		{"window over 300s", func(q *handler.QueueSettings) { q.BatchingWindow = 301 * time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q := ok
			tt.edit(&q)
			if _, err := handler.RecordLifetime(q); !errors.Is(err, handler.ErrInvalidSettings) {
				t.Fatalf("err %v, want handler.ErrInvalidSettings", err)
			}
		})
	}
}

func TestCheckExpiry(t *testing.T) {
	t.Parallel()
	q := handler.QueueSettings{Retention: 4 * day, VisibilityTimeout: 30 * time.Second, MaxReceives: 5}
	if err := handler.CheckExpiry(q, time.Hour); !errors.Is(err, handler.ErrInvalidSettings) {
		t.Fatalf("a one-hour expiry for a four-day queue: err %v, want handler.ErrInvalidSettings", err)
	}
	if err := handler.CheckExpiry(q, q.MessageLifetime()); err != nil {
		t.Fatalf("an expiry equal to the lifetime: %v", err)
	}
}
