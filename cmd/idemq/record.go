package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/storekit"
)

// view is a record as the command shows it: to people, or as JSON.
type view struct {
	Key string `json:"key"`
	// KeyEscaped is the key as escape writes it, when it is not UTF-8:
	// JSON holds U+FFFD for each byte that is not, which names another key.
	KeyEscaped  string     `json:"key_escaped,omitempty"`
	Status      string     `json:"status"`
	Owner       string     `json:"owner"`
	LeaseUntil  *time.Time `json:"lease_until,omitempty"`
	LeaseLeft   string     `json:"lease_left,omitempty"`
	LeasePassed bool       `json:"lease_passed"`
	ExpiresAt   time.Time  `json:"expires_at"`
	ExpiryLeft  string     `json:"expiry_left"`
	Expired     bool       `json:"expired"`
	// Stored is where the result is: none (IN_PROGRESS), inline, gzip,
	// blob or omitted.
	Stored      string `json:"stored"`
	ResultBytes int    `json:"result_bytes"`
	// Blob is the offloaded result's object: s3://bucket/prefix+name
	// when the bucket is known, else its name under the prefix.
	Blob        string `json:"blob,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

// viewOf describes rec at now.
func viewOf(s *settings, rec idem.Record, now time.Time) view {
	v := view{
		Key: string(rec.Key), Status: string(rec.Status), Owner: rec.Owner,
		ExpiresAt: rec.ExpiresAt.UTC(), Fingerprint: rec.Fingerprint, ResultBytes: len(rec.Result),
	}
	if !utf8.ValidString(v.Key) {
		v.KeyEscaped = escape(v.Key)
	}
	if !rec.LeaseUntil.IsZero() {
		t := rec.LeaseUntil.UTC()
		v.LeaseUntil = &t
		v.LeasePassed = rec.LeaseUntil.UnixMilli() < now.UnixMilli()
		v.LeaseLeft = left(rec.LeaseUntil.Sub(now))
	}
	v.Expired = storekit.ExpirySeconds(rec.ExpiresAt) < now.Unix()
	v.ExpiryLeft = left(rec.ExpiresAt.Sub(now))
	switch blob, ok := rec.Blob(); {
	case rec.Status == idem.StatusInProgress:
		v.Stored = "none"
	case rec.OmittedBytes > 0:
		v.Stored, v.ResultBytes = "omitted", rec.OmittedBytes
	case ok:
		v.Stored, v.ResultBytes = "blob", blob.Size
		prefix := s.blobPrefix
		if prefix == "" {
			prefix = idemqenv.DefaultBlobPrefix // the worker's, with the bucket
		}
		v.Blob = prefix + blob.Name
		if s.blobBucket != "" {
			v.Blob = "s3://" + s.blobBucket + "/" + v.Blob
		}
	case rec.Encoding == storekit.EncodingGzip:
		v.Stored = "gzip"
	case rec.Encoding == storekit.EncodingRaw:
		v.Stored = "inline"
	default:
		v.Stored = "encoding " + rec.Encoding
	}
	return v
}

// left is a duration rounded for people: "4m12s", "-3s" for one passed.
func left(d time.Duration) string {
	switch {
	case d > 48*time.Hour || d < -48*time.Hour:
		return d.Round(time.Hour).String()
	case d > time.Minute || d < -time.Minute:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Millisecond).String()
}

// lease says how long the lease has left, or that it passed.
func (v view) lease() string {
	switch {
	case v.LeaseUntil == nil && v.Status == string(idem.StatusInProgress):
		return "none: held until the record expires"
	case v.LeaseUntil == nil:
		return "-"
	case v.LeasePassed:
		return "passed " + strings.TrimPrefix(v.LeaseLeft, "-") + " ago (" + v.LeaseUntil.Format(time.RFC3339Nano) + "): the next delivery takes the key over"
	}
	return v.LeaseLeft + " left (until " + v.LeaseUntil.Format(time.RFC3339Nano) + ")"
}

// expiry says how long the record has left.
func (v view) expiry() string {
	if v.Expired {
		return "expired " + strings.TrimPrefix(v.ExpiryLeft, "-") + " ago (" + v.ExpiresAt.Format(time.RFC3339) + "): the next claim replaces it"
	}
	return v.ExpiryLeft + " left (until " + v.ExpiresAt.Format(time.RFC3339) + ")"
}

// result says where the result is.
func (v view) result() string {
	switch v.Stored {
	case "none":
		return "none yet (IN_PROGRESS)"
	case "omitted":
		return fmt.Sprintf("omitted: %d bytes, too large to store; the record settles the key without it", v.ResultBytes)
	case "blob":
		return fmt.Sprintf("blob: %d bytes in %s", v.ResultBytes, escape(v.Blob))
	case "gzip":
		return fmt.Sprintf("gzip: %d bytes stored in the record", v.ResultBytes)
	case "inline":
		return fmt.Sprintf("inline: %d bytes stored in the record", v.ResultBytes)
	}
	return fmt.Sprintf("%s: %d bytes stored in the record", escape(v.Stored), v.ResultBytes)
}

// print writes v for people, one field a line, what the store holds
// escaped.
func (v view) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fp := escape(v.Fingerprint)
	if fp == "" {
		fp = "none: the payload is not checked"
	}
	fmt.Fprintf(tw, "key\t%s\nstatus\t%s\nowner\t%s\nlease\t%s\nexpiry\t%s\nresult\t%s\nfingerprint\t%s\n",
		escape(v.Key), escape(v.Status), escape(v.Owner), v.lease(), v.expiry(), v.result(), fp)
	_ = tw.Flush()
}

// writeJSON writes v as one line of JSON, made safe to print (safeJSON).
func writeJSON(w io.Writer, v any) {
	b, _ := json.Marshal(v) // the command's own types always marshal
	fmt.Fprintf(w, "%s\n", safeJSON(b))
}
