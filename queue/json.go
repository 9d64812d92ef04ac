package queue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// settingsJSON is the JSON form of Settings.
type settingsJSON struct {
	Retention           string `json:"retention"`
	VisibilityTimeout   string `json:"visibilityTimeout"`
	MaxReceives         int    `json:"maxReceives"`
	BatchingWindow      string `json:"batchingWindow"`
	DeadLetterRetention string `json:"deadLetterRetention"`
	FIFO                bool   `json:"fifo"`
}

// MarshalJSON writes q as a JSON object with the fields retention,
// visibilityTimeout, maxReceives, batchingWindow, deadLetterRetention and
// fifo, durations as Go duration strings
// ({"retention":"96h0m0s","visibilityTimeout":"12m0s","maxReceives":5,...}),
// so that a deployment can hand its queue's settings to a worker, which
// checks its record expiry and lease against them (the CDK stack's
// IDEMQ_QUEUE).
func (q Settings) MarshalJSON() ([]byte, error) {
	return json.Marshal(settingsJSON{
		Retention:           q.Retention.String(),
		VisibilityTimeout:   q.VisibilityTimeout.String(),
		MaxReceives:         q.MaxReceives,
		BatchingWindow:      q.BatchingWindow.String(),
		DeadLetterRetention: q.DeadLetterRetention.String(),
		FIFO:                q.FIFO,
	})
}

// UnmarshalJSON reads what MarshalJSON writes. A field left out is zero; a
// field it does not know, or a duration that does not parse, is an error.
// It does not validate the settings (Validate does).
func (q *Settings) UnmarshalJSON(b []byte) error {
	var j settingsJSON
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&j); err != nil {
		return fmt.Errorf("queue: settings: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("queue: settings: more than one JSON value")
	}
	var out Settings
	for _, f := range []struct {
		name, v string
		d       *time.Duration
	}{
		{"retention", j.Retention, &out.Retention},
		{"visibilityTimeout", j.VisibilityTimeout, &out.VisibilityTimeout},
		{"batchingWindow", j.BatchingWindow, &out.BatchingWindow},
		{"deadLetterRetention", j.DeadLetterRetention, &out.DeadLetterRetention},
	} {
		if f.v == "" {
			continue
		}
		var err error
		if *f.d, err = time.ParseDuration(f.v); err != nil {
			return fmt.Errorf("queue: settings: %s %q is not a Go duration", f.name, f.v)
		}
	}
	out.MaxReceives, out.FIFO = j.MaxReceives, j.FIFO
	*q = out
	return nil
}
