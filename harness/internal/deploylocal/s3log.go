package deploylocal

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
)

// s3Request is one request the worker made to S3.
type s3Request struct {
	Method, Path string // path style: /bucket/key
	Status       int
	Bytes        int // of the response's body
}

// s3Log stands between the worker and moto's S3, passing every request on
// unchanged and noting each: how a replay is seen to read the object.
type s3Log struct {
	srv *httptest.Server

	mu   sync.Mutex
	reqs []s3Request
}

// newS3Log passes requests on to moto at endpoint (http://localhost:PORT).
func newS3Log(endpoint string) (*s3Log, error) {
	target, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	l := &s3Log{}
	// The request keeps its Host (localhost:OURPORT): moto reads a host
	// that is not localhost as a bucket's name, and checks no signature.
	pass := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.Out.URL.Scheme, r.Out.URL.Host = target.Scheme, target.Host
	}}
	l.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &countingWriter{ResponseWriter: w, status: http.StatusOK}
		pass.ServeHTTP(cw, r)
		l.mu.Lock()
		l.reqs = append(l.reqs, s3Request{Method: r.Method, Path: r.URL.Path, Status: cw.status, Bytes: cw.n})
		l.mu.Unlock()
	}))
	return l, nil
}

// Endpoint is the URL to give the worker (IDEMQ_S3_ENDPOINT), named
// localhost as moto's is.
func (l *s3Log) Endpoint() string {
	_, port, _ := net.SplitHostPort(l.srv.Listener.Addr().String())
	return "http://localhost:" + port
}

// Requests returns the requests so far, in order.
func (l *s3Log) Requests() []s3Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]s3Request(nil), l.reqs...)
}

func (l *s3Log) Close() { l.srv.Close() }

// countingWriter notes a response's status and body length.
type countingWriter struct {
	http.ResponseWriter
	status, n int
}

func (w *countingWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += n
	return n, err
}

func (r s3Request) String() string {
	return r.Method + " " + r.Path + " " + strconv.Itoa(r.Status) + " " + strconv.Itoa(r.Bytes) + " bytes"
}
