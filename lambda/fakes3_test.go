package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// fakeS3 is an S3 server of one bucket that answers path-style PutObject
// and GetObject, keeping the objects by their path (/bucket/key).
type fakeS3 struct {
	*httptest.Server
	mu      sync.Mutex
	objects map[string][]byte
	puts    []string // paths put, in order
}

func newFakeS3(t *testing.T) *fakeS3 {
	f := &fakeS3{objects: map[string][]byte{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeS3) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Method {
	case http.MethodPut:
		data, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.objects[r.URL.Path] = data
		f.puts = append(f.puts, r.URL.Path)
	case http.MethodGet:
		data, ok := f.objects[r.URL.Path]
		if !ok {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>`)
			return
		}
		_, _ = w.Write(data)
	default:
		http.Error(w, "not implemented", http.StatusNotImplemented)
	}
}

func (f *fakeS3) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.puts...)
}
