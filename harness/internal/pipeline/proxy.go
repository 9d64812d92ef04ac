package pipeline

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
)

// proxy is what StoreProxy and SQSProxy share: a server on a free port of
// 127.0.0.1 in front of a target.
type proxy struct {
	URL string // where the workers reach the proxy
	srv *httptest.Server
}

// startProxy starts a proxy that hands every request to serve, with a
// reverse proxy to target to pass it on. The reverse proxy answers 502
// when target cannot be reached or the worker goes away mid-request (it
// was killed).
func startProxy(target string, serve func(http.ResponseWriter, *http.Request, *httputil.ReverseProxy)) (proxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return proxy{}, err
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, _ error) {
		w.WriteHeader(http.StatusBadGateway)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serve(w, r, rp) }))
	return proxy{URL: srv.URL, srv: srv}, nil
}

// Close stops the proxy.
func (p *proxy) Close() { p.srv.Close() }
