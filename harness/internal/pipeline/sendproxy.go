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

// SendProxy stands between the producer and the SQS server (or the SQS
// fault proxy's producer port). It passes every request on; of the first
// SendMessage or SendMessageBatch carrying a key that lose picks, it cuts
// the connection once the server has answered: the queue took the
// message, the producer never learns it, and sends it again (fault
// loadtest.ProducerLostAnswer).
type SendProxy struct {
	srv  *httptest.Server
	rp   *httputil.ReverseProxy
	lose func(key string) bool
	ctx  context.Context // the requests passed on; Close cancels it
	stop context.CancelFunc

	mu   sync.Mutex
	seen map[string]bool // keys whose first send passed
	lost int             // answers cut
}

// NewSendProxy starts a proxy to target on a free loopback port.
func NewSendProxy(target string, lose func(key string) bool) (*SendProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	p := &SendProxy{rp: httputil.NewSingleHostReverseProxy(u), lose: lose, ctx: ctx, stop: stop, seen: map[string]bool{}}
	p.rp.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, _ error) { w.WriteHeader(http.StatusBadGateway) }
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	return p, nil
}

// URL is the proxy's endpoint.
func (p *SendProxy) URL() string { return p.srv.URL }

// Lost returns how many answers the proxy cut.
func (p *SendProxy) Lost() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lost
}

// Close stops the proxy.
func (p *SendProxy) Close() {
	p.stop()
	p.srv.CloseClientConnections()
	p.srv.Close()
}

func (p *SendProxy) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	lose := false
	if op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS."); op == "SendMessage" || op == "SendMessageBatch" {
		p.mu.Lock()
		for _, k := range sentKeys(body) {
			if k != "" && !p.seen[k] {
				p.seen[k] = true
				lose = lose || p.lose(k)
			}
		}
		p.mu.Unlock()
	}
	// Passed on whatever the producer does meanwhile: the server applies
	// it, and the proxy must know what it answered.
	r = r.WithContext(p.ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	r.Header.Del("Accept-Encoding")
	rec := httptest.NewRecorder()
	p.rp.ServeHTTP(rec, r)
	if lose && rec.Code == http.StatusOK {
		p.mu.Lock()
		p.lost++
		p.mu.Unlock()
		panic(http.ErrAbortHandler) // the answer never reaches the producer
	}
	reply(w, rec.Code, rec.Header(), rec.Body.Bytes())
}

// sentKeys returns the keys of the messages a send request carries.
func sentKeys(body []byte) []string {
	var req struct {
		MessageBody string `json:"MessageBody"`
		Entries     []struct {
			MessageBody string `json:"MessageBody"`
		} `json:"Entries"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	keys := []string{bodyKey(req.MessageBody)}
	for _, e := range req.Entries {
		keys = append(keys, bodyKey(e.MessageBody))
	}
	return keys
}
