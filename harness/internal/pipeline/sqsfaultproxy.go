package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// SQSFaultProxy stands between the consumer processes and the SQS server
// (JSON protocol), and misbehaves as a broker and a network may. Each
// process reaches it on a port of its own (Listen), so the proxy knows who
// asks. It
//   - tells its hooks every message a ReceiveMessage answer hands out, and
//     to whom;
//   - hands a message the hooks pick out twice (the broker's duplicate):
//     twice in the same answer, or again in a later answer to any process;
//   - answers a ChangeMessageVisibility(Batch) entry the hooks pick as
//     accepted without passing it on (an extension lost);
//   - shows the hooks each DeleteMessage(Batch) before passing it on: they
//     may kill the sender, and the request is then dropped unanswered;
//   - tells the hooks which deletes the server accepted;
//   - on the producer's port, tells the hooks every message id a
//     SendMessage answer names.
type SQSFaultProxy struct {
	rp     *httputil.ReverseProxy
	hooks  faultHooks
	ctx    context.Context // the requests passed on; Close cancels it
	cancel context.CancelFunc

	mu      sync.Mutex
	servers []*httptest.Server
	byRH    map[string]sqsMessage // receipt handle → message
	copies  []json.RawMessage     // duplicates waiting for a receive
}

// sqsMessage is a message as a ReceiveMessage answer hands it out.
type sqsMessage struct {
	MessageID     string            `json:"MessageId"`
	ReceiptHandle string            `json:"ReceiptHandle"`
	Body          string            `json:"Body"`
	Attributes    map[string]string `json:"Attributes"`
}

// faultHooks are the proxy's questions and news; proc names the port the
// request came in on. Every hook is required.
type faultHooks struct {
	// received: msgs were handed to proc; copy[i] says msgs[i] is a
	// duplicate the proxy added.
	received func(proc string, msgs []sqsMessage, copy []bool)
	// duplicate: hand m out twice; now says in the same answer (else in a
	// later one).
	duplicate func(m sqsMessage) (dup, now bool)
	// loseChange: answer this visibility change without passing it on.
	loseChange func(proc string, m sqsMessage, seconds int) bool
	// beforeDelete: proc asks to delete msgs (known: false for a receipt
	// handle the proxy never handed out); kill says the hook killed proc.
	beforeDelete func(proc string, msgs []sqsMessage) (kill bool)
	// deleted: the server accepted the delete of msgs from proc.
	deleted func(proc string, msgs []sqsMessage)
	// sent: the server took a message and named it id.
	sent func(id string)
}

// NewSQSFaultProxy returns a proxy to target (the SQS server's endpoint);
// Listen opens its ports.
func NewSQSFaultProxy(target string, hooks faultHooks) (*SQSFaultProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) }
	ctx, cancel := context.WithCancel(context.Background())
	return &SQSFaultProxy{rp: rp, hooks: hooks, ctx: ctx, cancel: cancel, byRH: map[string]sqsMessage{}}, nil
}

// Listen opens a port on 127.0.0.1 for proc and returns its endpoint.
func (p *SQSFaultProxy) Listen(proc string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.serve(proc, w, r) }))
	p.mu.Lock()
	p.servers = append(p.servers, srv)
	p.mu.Unlock()
	return srv.URL
}

// Close closes every port.
func (p *SQSFaultProxy) Close() {
	p.cancel()
	p.mu.Lock()
	servers := p.servers
	p.servers = nil
	p.mu.Unlock()
	for _, s := range servers {
		s.CloseClientConnections()
		s.Close()
	}
}

// Waiting returns how many duplicates wait for a receive.
func (p *SQSFaultProxy) Waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.copies)
}

// producerProc is the port name whose requests pass untouched (but for the
// sent hook).
const producerProc = "producer"

func (p *SQSFaultProxy) serve(proc string, w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	switch {
	case proc == producerProc && op == "SendMessage":
		status, out, hdr := p.forward(r, body)
		var a struct {
			MessageID string `json:"MessageId"`
		}
		if status == http.StatusOK && json.Unmarshal(out, &a) == nil && a.MessageID != "" {
			p.hooks.sent(a.MessageID)
		}
		reply(w, status, hdr, out)
	case proc == producerProc:
		p.pass(w, r, body)
	case op == "ReceiveMessage":
		p.receive(proc, w, r, body)
	case op == "DeleteMessage" || op == "DeleteMessageBatch":
		p.delete(proc, op, w, r, body)
	case op == "ChangeMessageVisibility" || op == "ChangeMessageVisibilityBatch":
		p.change(proc, op, w, r, body)
	default:
		p.pass(w, r, body)
	}
}

// forward passes the request on with body and returns the server's
// answer. The request goes on when its sender goes away (killed): the
// server may apply it, and the proxy must know what it answered; Close
// ends it.
func (p *SQSFaultProxy) forward(r *http.Request, body []byte) (int, []byte, http.Header) {
	r = r.WithContext(p.ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	r.Header.Del("Accept-Encoding") // the transport asks for gzip and unpacks it
	rec := httptest.NewRecorder()
	p.rp.ServeHTTP(rec, r)
	return rec.Code, rec.Body.Bytes(), rec.Header()
}

// pass passes the request on and its answer back.
func (p *SQSFaultProxy) pass(w http.ResponseWriter, r *http.Request, body []byte) {
	status, out, hdr := p.forward(r, body)
	reply(w, status, hdr, out)
}

func reply(w http.ResponseWriter, status int, hdr http.Header, body []byte) {
	for k, v := range hdr {
		if k != "Content-Length" && k != "Content-Encoding" {
			w.Header()[k] = v
		}
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// receive passes a ReceiveMessage on, adds waiting duplicates and new
// ones to the answer, and tells the hooks.
func (p *SQSFaultProxy) receive(proc string, w http.ResponseWriter, r *http.Request, body []byte) {
	status, out, hdr := p.forward(r, body)
	var ans struct {
		Messages []json.RawMessage `json:"Messages"`
	}
	if status != http.StatusOK || json.Unmarshal(out, &ans) != nil {
		reply(w, status, hdr, out)
		return
	}
	var msgs []sqsMessage
	var isCopy []bool
	var raws []json.RawMessage
	add := func(raw json.RawMessage, c bool) {
		var m sqsMessage
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		msgs, isCopy, raws = append(msgs, m), append(isCopy, c), append(raws, raw)
	}
	p.mu.Lock()
	waiting := p.copies
	p.copies = nil
	p.mu.Unlock()
	for _, raw := range waiting {
		add(raw, true)
	}
	for _, raw := range ans.Messages {
		add(raw, false)
		m := msgs[len(msgs)-1]
		if dup, now := p.hooks.duplicate(m); dup {
			if now {
				add(raw, true)
			} else {
				p.mu.Lock()
				p.copies = append(p.copies, raw)
				p.mu.Unlock()
			}
		}
	}
	p.mu.Lock()
	for _, m := range msgs {
		p.byRH[m.ReceiptHandle] = m
	}
	p.mu.Unlock()
	if len(msgs) > 0 {
		p.hooks.received(proc, msgs, isCopy)
	}
	if len(waiting) == 0 && len(raws) == len(ans.Messages) {
		reply(w, status, hdr, out)
		return
	}
	full, err := json.Marshal(map[string]any{"Messages": raws})
	if err != nil {
		reply(w, status, hdr, out)
		return
	}
	reply(w, status, hdr, full)
}

// message returns what the proxy handed out under receipt handle rh.
func (p *SQSFaultProxy) message(rh string) (sqsMessage, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, ok := p.byRH[rh]
	return m, ok
}

type entry struct {
	ID                string `json:"Id"`
	ReceiptHandle     string `json:"ReceiptHandle"`
	VisibilityTimeout int    `json:"VisibilityTimeout"`
}

// delete shows a delete to the hooks, drops it if they killed its sender,
// else passes it on and reports what the server deleted.
func (p *SQSFaultProxy) delete(proc, op string, w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		QueueURL      string  `json:"QueueUrl"`
		ReceiptHandle string  `json:"ReceiptHandle"`
		Entries       []entry `json:"Entries"`
	}
	_ = json.Unmarshal(body, &req)
	if op == "DeleteMessage" {
		req.Entries = []entry{{ID: "", ReceiptHandle: req.ReceiptHandle}}
	}
	byID := map[string]sqsMessage{}
	var msgs []sqsMessage
	for _, e := range req.Entries {
		m, ok := p.message(e.ReceiptHandle)
		if !ok {
			m = sqsMessage{ReceiptHandle: e.ReceiptHandle}
		}
		msgs = append(msgs, m)
		byID[e.ID] = m
	}
	if p.hooks.beforeDelete(proc, msgs) {
		panic(http.ErrAbortHandler) // killed: the request never reaches the server
	}
	status, out, hdr := p.forward(r, body)
	if status == http.StatusOK {
		var done []sqsMessage
		if op == "DeleteMessage" {
			done = msgs
		} else {
			var ans struct {
				Successful []struct {
					ID string `json:"Id"`
				} `json:"Successful"`
			}
			_ = json.Unmarshal(out, &ans)
			for _, s := range ans.Successful {
				if m, ok := byID[s.ID]; ok {
					done = append(done, m)
				}
			}
		}
		if len(done) > 0 {
			p.hooks.deleted(proc, done)
		}
	}
	reply(w, status, hdr, out)
}

// change passes a visibility change on, but for the entries the hooks
// lose: those are answered as accepted.
func (p *SQSFaultProxy) change(proc, op string, w http.ResponseWriter, r *http.Request, body []byte) {
	if op == "ChangeMessageVisibility" {
		var req entry
		_ = json.Unmarshal(body, &req)
		if m, ok := p.message(req.ReceiptHandle); ok && p.hooks.loseChange(proc, m, req.VisibilityTimeout) {
			reply(w, http.StatusOK, http.Header{"Content-Type": {"application/x-amz-json-1.0"}}, []byte("{}"))
			return
		}
		p.pass(w, r, body)
		return
	}
	var req map[string]json.RawMessage
	var entries []entry
	if json.Unmarshal(body, &req) != nil || json.Unmarshal(req["Entries"], &entries) != nil {
		p.pass(w, r, body)
		return
	}
	var kept []entry
	var lost []string
	for _, e := range entries {
		if m, ok := p.message(e.ReceiptHandle); ok && p.hooks.loseChange(proc, m, e.VisibilityTimeout) {
			lost = append(lost, e.ID)
			continue
		}
		kept = append(kept, e)
	}
	if len(lost) == 0 {
		p.pass(w, r, body)
		return
	}
	type ok struct {
		ID string `json:"Id"`
	}
	ans := struct {
		Successful []ok              `json:"Successful"`
		Failed     []json.RawMessage `json:"Failed"`
	}{Failed: []json.RawMessage{}}
	status, hdr := http.StatusOK, http.Header{"Content-Type": {"application/x-amz-json-1.0"}}
	if len(kept) > 0 {
		req["Entries"], _ = json.Marshal(kept)
		fwd, _ := json.Marshal(req)
		var out []byte
		status, out, hdr = p.forward(r, fwd)
		if status != http.StatusOK || json.Unmarshal(out, &ans) != nil {
			reply(w, status, hdr, out)
			return
		}
	}
	for _, id := range lost {
		ans.Successful = append(ans.Successful, ok{ID: id})
	}
	if ans.Failed == nil {
		ans.Failed = []json.RawMessage{}
	}
	out, _ := json.Marshal(ans)
	reply(w, status, hdr, out)
}
