package pipeline

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"strings"
	"time"
)

// The prompts of hostile bodies start with hostilePrompt: a provider call
// with one is a hostile request that ran.
const hostilePrompt = "hostile request "

// maxBody is the front door's body limit in the run (frontdoor's
// default, IDEMQ_FRONTDOOR_MAX_BODY_BYTES unset), which is also the
// queue's message size (the producer's default and fauxqs's).
const maxBody = 1 << 20

// hostileRequests are the hostile requests of a run, keyed by the body's
// idempotency_key or, with keyFields, by document_id and version.
// Alongside the normal traffic, none may be enqueued or run.
func hostileRequests(keyFields bool) []hostileReq {
	n := 0
	// body is a JSON object holding a hostile prompt of its own, with
	// members (JSON text) before it.
	body := func(members string) string {
		n++
		if members != "" {
			members += ","
		}
		if keyFields && !strings.Contains(members, `"document_id"`) {
			members = fmt.Sprintf(`"document_id":"hostile-doc-%d","version":1,`, n) + members
		}
		return "{" + members + `"model":"test-model","prompt":"` + hostilePrompt + fmt.Sprint(n) + `"}`
	}
	post := func(what string, want int, header []string, b string) hostileReq {
		return hostileReq{what: what, method: http.MethodPost, target: frontDoorPath, want: want,
			header: append([]string{"Content-Type: application/json"}, header...), body: b}
	}
	key := func(k string) []string { return []string{"Idempotency-Key: " + k} }
	// keyed posts a well-formed key the body makes refused; its status
	// must read 404 afterwards.
	keyed := func(what string, want int, k, b string) hostileReq {
		r := post(what, want, key(`"`+k+`"`), b)
		r.check = k
		return r
	}
	get := func(what, target string, want int) hostileReq {
		return hostileReq{what: what, method: http.MethodGet, target: target, want: want}
	}
	// padded is body() of size bytes, the rest a member of <, > and &
	// (which a re-encoding would escape to six bytes each).
	padded := func(size int) string {
		b := body("")
		pad := `,"pad":"` + strings.Repeat("<>&", size/3) // too long; cut below
		return b[:len(b)-1] + pad[:size-len(b)-1] + `"}`
	}

	reqs := []hostileReq{
		// Keys the header cannot carry.
		post("a key with a control character (net/http's own 400)", 400, key("\"a\x01b\""), body("")),
		post("a key that is not ASCII", 400, key("\"caf\xc3\xa9\""), body("")),
		post("the key .", 400, key(`"."`), body("")),
		post("the key ..", 400, key(`".."`), body("")),
		post("a key over 255 bytes", 400, key(`"`+strings.Repeat("k", 256)+`"`), body("")),
		post("an sf-string with a parameter", 400, key(`"k";a=1`), body("")),
		post("a list of two keys", 400, key(`"a", "b"`), body("")),
		post("an unterminated sf-string", 400, key(`"hostile-open`), body("")),
		post("a bare key with a quote", 400, key(`hostile"k`), body("")),
		post("an empty key", 400, key(`""`), body("")),
		post("no key", 400, nil, body("")),
		post("two keys", 400, append(key(`"hostile-two-a"`), key(`"hostile-two-b"`)...), body("")),
		// Bodies the front door refuses.
		keyed("a body that is not JSON", 400, "hostile-not-json", "{not json"),
		keyed("a body that is not an object", 400, "hostile-array", `["`+hostilePrompt+`array"]`),
		keyed("a member twice", 400, "hostile-twice", body(`"prompt":"first"`)),
		keyed("U+FFFF in the body (JSON takes it, SQS does not)", 400, "hostile-ffff", body(`"note":"`+"\uffff"+`"`)),
		keyed("a body of <, > and & a byte over the limit", 413, "hostile-over", padded(maxBody+1)),
		keyed("another Content-Type", 415, "hostile-type", body("")),
	}
	reqs[len(reqs)-1].header[0] = "Content-Type: text/plain"
	if !keyFields {
		// The message is the body, every byte kept, with the key put in
		// it: over the queue's size.
		reqs = append(reqs, keyed("a body of <, > and & at the limit, over the queue's size with its key", 413, "hostile-near", padded(maxBody)))
	}
	if keyFields {
		reqs = append(reqs,
			keyed("a key field in two cases", 400, "hostile-case", body(`"document_id":"hostile-doc-a","DOCUMENT_ID":"hostile-doc-b","version":1`)),
			keyed("a key field with a control character", 400, "hostile-control", body(`"document_id":"a\u0001b","version":1`)),
			keyed("a key field absent", 400, "hostile-absent", body(`"document_id":"hostile-doc-only"`)),
		)
	} else {
		reqs = append(reqs,
			keyed("the key member in another case", 400, "hostile-case", body(`"IDEMPOTENCY_KEY":"hostile-other"`)),
			keyed("the key member in two cases", 400, "hostile-cases", body(`"idempotency_key":"hostile-cases","Idempotency_Key":"hostile-other"`)),
			keyed("another key in the body", 400, "hostile-other-key", body(`"idempotency_key":"hostile-else"`)),
			keyed("a body key with a control character", 400, "hostile-control", body(`"idempotency_key":"a\u0001b"`)),
		)
	}
	reqs = append(reqs,
		// Status URLs no POST can have made, and paths and methods the
		// front door does not serve.
		get("a status URL of byte %FF", frontDoorPath+"/%FF", 404),
		get("a status URL of byte %00", frontDoorPath+"/%00", 404),
		get("a status URL of overlong UTF-8", frontDoorPath+"/%C0%AF", 404),
		get("a status URL of ..", frontDoorPath+"/..", 404),
		get("a status URL of %2E%2E", frontDoorPath+"/%2E%2E", 404),
		get("a status URL of a key over 255 bytes", frontDoorPath+"/"+strings.Repeat("k", 300), 404),
		get("a status URL of a key no one posted", frontDoorPath+"/hostile-never-posted", 404),
		get("a status URL of two segments", frontDoorPath+"/a/b", 404),
		get("a status URL of an escaped slash", frontDoorPath+"/a%2Fb", 404),
		get("another path", "/admin", 404),
		get("GET of the POST path", frontDoorPath, 405),
		hostileReq{what: "PUT of the POST path", method: http.MethodPut, target: frontDoorPath, header: key(`"hostile-put"`), body: body(""), want: 405},
		hostileReq{what: "DELETE of a status URL", method: http.MethodDelete, target: frontDoorPath + "/hostile-delete", want: 405},
		hostileReq{what: "POST to a status URL", method: http.MethodPost, target: frontDoorPath + "/hostile-post", header: key(`"hostile-post"`), body: body(""), want: 405},
	)
	return reqs
}

// sendRaw sends r to addr over a connection of its own, every byte as
// written, and reads the answer.
func sendRaw(ctx context.Context, addr string, r hostileReq) hostileAnswer {
	a := hostileAnswer{req: r}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		a.err = err
		return a
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", r.method, r.target, addr)
	for _, h := range r.header {
		b.WriteString(h + "\r\n")
	}
	if r.body != "" || r.method == http.MethodPost || r.method == http.MethodPut {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(r.body))
	}
	b.WriteString("\r\n" + r.body)
	// The front door may answer (413) before it reads the whole body: the
	// answer is read while the request is written.
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(conn, b.String())
		written <- err
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		conn.Close()
		a.err = fmt.Errorf("no answer: %w (write: %v)", err, <-written)
		return a
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	conn.Close()
	<-written
	a.status, a.contentType, a.retryAfter = resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Retry-After")
	return a
}

// hostile sends every hostile request to the front door at addr, in turn,
// while the normal traffic runs, and notes the answers.
func (f *fdRun) hostile(ctx context.Context, addr string) {
	for _, r := range hostileRequests(f.cfg.KeyFields) {
		a := sendRaw(ctx, addr, r)
		f.mu.Lock()
		f.hostiles = append(f.hostiles, a)
		f.mu.Unlock()
	}
}

// checkHostile checks the hostile requests' answers: each the threat
// model's, a problem (but net/http's own 400 for a header it cannot
// read), never a retry; none enqueued or run; and a key posted with a
// refused request reads 404 after the run.
func (f *fdRun) checkHostile(ctx context.Context, addr string) {
	rep := &f.rep
	rep.Hostile = map[int]int{}
	f.mu.Lock()
	hostiles, sends := f.hostiles, maps.Clone(f.sends)
	f.mu.Unlock()
	for _, a := range hostiles {
		r := a.req
		rep.Hostile[a.status]++
		switch {
		case a.err != nil:
			rep.violate("hostile %s (%s %.60s): %v", r.what, r.method, r.target, a.err)
		case a.status != r.want:
			rep.violate("hostile %s (%s %.60s): answered %d, want %d", r.what, r.method, r.target, a.status, r.want)
		case a.retryAfter != "":
			rep.violate("hostile %s: answered with Retry-After %s: a caller's error is never a retry", r.what, a.retryAfter)
		case a.contentType != "application/problem+json" && !strings.Contains(r.what, "net/http's own"):
			rep.violate("hostile %s: answered %d with Content-Type %q, not a problem", r.what, a.status, a.contentType)
		}
		if r.check == "" {
			continue
		}
		if n := sends[r.check]; n != 0 {
			rep.violate("hostile %s: %d messages enqueued under key %s", r.what, n, r.check)
		}
		got := sendRaw(ctx, addr, hostileReq{method: http.MethodGet, target: frontDoorPath + "/" + r.check})
		if got.status != http.StatusNotFound {
			rep.violate("hostile %s: its key %s then read %d, want 404: nothing accepted", r.what, r.check, got.status)
		}
	}
	for key := range sends {
		if strings.HasPrefix(key, "hostile") {
			rep.violate("a hostile request was enqueued under key %s", key)
		}
	}
	for _, c := range f.r.provider.Log() {
		if strings.HasPrefix(c.Key, hostilePrompt) {
			rep.violate("a hostile request ran: the provider was called for %q", c.Key)
		}
	}
}

// hostileSummary is the hostile requests' line of the report.
func hostileSummary(rep *FrontDoorReport) string {
	n := 0
	for _, c := range rep.Hostile {
		n += c
	}
	return fmt.Sprintf("  hostile requests alongside: %d, answered %s", n, formatSorted(rep.Hostile, "%d ×%d"))
}
