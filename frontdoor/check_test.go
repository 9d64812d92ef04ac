package frontdoor_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/frontdoor/frontdoortest"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

type (
	// natural is keyed by two members of its body.
	natural struct {
		DocumentID string `json:"document_id" idemq:"key"`
		Version    int    `json:"version" idemq:"key"`
		Prompt     string `json:"prompt" idemq:"fingerprint"`
	}
	// byHeader is keyed by the member the front door puts the
	// Idempotency-Key in.
	byHeader struct {
		Key    string `json:"idempotency_key" idemq:"key"`
		Prompt string `json:"prompt"`
	}
	badTag struct {
		ID string `json:"id" idemq:"primary"`
	}
)

// postDetail sends body with key to fd and returns the answer's status and
// problem detail.
func postDetail(fd http.Handler, key, body string) (int, string) {
	r := httptest.NewRequest(http.MethodPost, "/requests", strings.NewReader(body))
	r.Header.Set(frontdoor.HeaderKey, `"`+key+`"`)
	w := httptest.NewRecorder()
	fd.ServeHTTP(w, r)
	var p struct {
		Detail string `json:"detail"`
	}
	if w.Header().Get("Content-Type") == "application/problem+json" {
		_ = json.Unmarshal(w.Body.Bytes(), &p)
	}
	return w.Code, p.Detail
}

// A body the worker's request type would fail is refused with 400 before
// anything is stored or enqueued.
func TestBodyCheckOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		check  func() (func(body []byte) error, error)
		body   string
		status int
		detail string
	}{
		{"a request", frontdoor.BodyCheckOf[natural], `{"document_id":"d","version":9,"prompt":"p"}`, http.StatusAccepted, ""},
		{"a member of another type", frontdoor.BodyCheckOf[natural], `{"document_id":"d","version":"nine","prompt":"p"}`, http.StatusBadRequest, `member "version"`},
		{"a key field missing", frontdoor.BodyCheckOf[natural], `{"document_id":"d","prompt":"p"}`, http.StatusBadRequest, `"version" is absent`},
		{"a fingerprint field missing", frontdoor.BodyCheckOf[natural], `{"document_id":"d","version":9}`, http.StatusBadRequest, `"prompt" is absent`},
		{"a key member named alike", frontdoor.BodyCheckOf[natural], `{"document_id":"d","version":9,"prompt":"p","VERSION":8}`, http.StatusBadRequest, `member "version"`},
		{"the key from the header", frontdoor.BodyCheckOf[byHeader], `{"prompt":"p"}`, http.StatusAccepted, ""},
	} {
		q := frontdoortest.NewQueue(request.Identity{Namespace: "w"})
		check, err := tc.check()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		fd := must(frontdoor.New(must(memstore.New()), q, frontdoor.WithRequest(request.Identity{Namespace: "w"}), frontdoor.WithBodyCheck(check)))
		status, detail := postDetail(fd, "k-1", tc.body)
		if status != tc.status || !strings.Contains(detail, tc.detail) {
			t.Errorf("%s: %d %q, want %d saying %q", tc.name, status, detail, tc.status, tc.detail)
		}
		if enqueued := len(q.Messages()); (status == http.StatusAccepted) != (enqueued == 1) {
			t.Errorf("%s: %d enqueued after %d", tc.name, enqueued, status)
		}
		if status == http.StatusBadRequest {
			// Refused before the key was claimed: the same key with a
			// good body is a new request, not another payload.
			if status, _ := postDetail(fd, "k-1", `{"document_id":"d","version":9,"prompt":"p"}`); status != http.StatusAccepted {
				t.Errorf("%s: the key was kept: %d", tc.name, status)
			}
		}
	}
	if _, err := frontdoor.BodyCheckOf[badTag](); !isConfigError(err, "badTag.ID") {
		t.Errorf("a bad tag: %v", err)
	}
}

func isConfigError(err error, field string) bool {
	bad, ok := errors.AsType[*idem.ConfigError](err)
	return ok && bad.Field == field
}
