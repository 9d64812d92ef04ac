package frontdoor_test

import (
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// Summarise is the worker's request type (handler.NewTyped's).
type Summarise struct {
	DocumentID string `json:"document_id" idemq:"key"`
	Version    int    `json:"version" idemq:"key"`
	Prompt     string `json:"prompt"`
}

// The front door refuses, with 400, a body the worker could not decode
// into its request type, or that lacks a key field, so the client hears
// of it at once and nothing is enqueued.
func ExampleBodyCheckOf() {
	store, _ := memstore.New()
	queue := newMemQueue(request.Identity{Namespace: "summarise"})
	check, err := frontdoor.BodyCheckOf[Summarise]()
	if err != nil {
		panic(err) // a bad tag of Summarise
	}
	fd, err := frontdoor.New(store, queue, frontdoor.WithRequest(request.Identity{Namespace: "summarise"}), frontdoor.WithBodyCheck(check))
	if err != nil {
		panic(err)
	}
	for i, body := range []string{
		`{"document_id":"doc-1","version":9,"prompt":"in brief"}`,
		`{"document_id":"doc-1","version":"9"}`,
		`{"document_id":"doc-1"}`,
	} {
		r := httptest.NewRequest("POST", "/requests", strings.NewReader(body))
		r.Header.Set("Idempotency-Key", fmt.Sprintf(`"req-%d"`, i))
		w := httptest.NewRecorder()
		fd.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Header().Get("Content-Type"))
	}
	fmt.Println("enqueued:", len(queue.msgs))
	// Output:
	// 202 application/json
	// 400 application/problem+json
	// 400 application/problem+json
	// enqueued: 1
}
