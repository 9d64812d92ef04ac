package pipeline

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
	"sync"
	"time"
)

// SQSProxy is an HTTP proxy in front of the SQS server that the workers'
// back-off (IDEMQ_SQS_ENDPOINT) talks to: it passes every request on and
// logs each ChangeMessageVisibility with the server's answer.
type SQSProxy struct {
	proxy // URL, Close

	mu      sync.Mutex
	changes []VisibilityChange
}

// VisibilityChange is one ChangeMessageVisibility a worker sent.
type VisibilityChange struct {
	ReceiptHandle string
	Seconds       int       // the visibility timeout asked for
	Answered      time.Time // when the server's answer came back
	Err           string    // the server's error type; "" when it accepted
}

// NewSQSProxy starts a proxy to target (the SQS server's endpoint) on a
// free port of 127.0.0.1.
func NewSQSProxy(target string) (*SQSProxy, error) {
	p := &SQSProxy{}
	var err error
	if p.proxy, err = startProxy(target, p.serve); err != nil {
		return nil, err
	}
	return p, nil
}

// Changes returns the ChangeMessageVisibility requests seen, in the order
// they were answered.
func (p *SQSProxy) Changes() []VisibilityChange {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]VisibilityChange(nil), p.changes...)
}

func (p *SQSProxy) serve(w http.ResponseWriter, r *http.Request, rp *httputil.ReverseProxy) {
	if r.Header.Get("X-Amz-Target") != "AmazonSQS.ChangeMessageVisibility" {
		rp.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req struct {
		ReceiptHandle     string
		VisibilityTimeout int
	}
	_ = json.Unmarshal(body, &req)
	rec := httptest.NewRecorder()
	rp.ServeHTTP(rec, r)
	c := VisibilityChange{ReceiptHandle: req.ReceiptHandle, Seconds: req.VisibilityTimeout, Answered: time.Now()}
	if rec.Code != http.StatusOK {
		var e struct {
			Type string `json:"__type"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		c.Err = e.Type
		if i := strings.LastIndexByte(c.Err, '#'); i >= 0 {
			c.Err = c.Err[i+1:]
		}
		if c.Err == "" {
			c.Err = http.StatusText(rec.Code)
		}
	}
	p.mu.Lock()
	p.changes = append(p.changes, c)
	p.mu.Unlock()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}
