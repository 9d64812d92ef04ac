package frontdoor_test

import (
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// New takes the worker's store and a queue (a *producer.Producer in a
// program) and returns an http.Handler to mount at Config.Path: POST
// /requests enqueues, GET /requests/{key} answers from the store.
func ExampleNew() {
	store, _ := memstore.New()
	id := request.Identity{Namespace: "summarise"}
	fd, err := frontdoor.New(store, newMemQueue(id), frontdoor.WithRequest(id))
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/requests", fd)
	mux.Handle("/requests/", fd)

	r := httptest.NewRequest(http.MethodPost, "/requests", strings.NewReader(`{"prompt":"a long text"}`))
	r.Header.Set("Idempotency-Key", `"req-7"`)
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, r)
	fmt.Println(w.Code, w.Header().Get("Location"))

	// A queue that reads keys otherwise than the front door is refused.
	_, err = frontdoor.New(store, newMemQueue(request.Identity{Namespace: "other"}), frontdoor.WithRequest(id))
	var e *idem.ConfigError
	if errors.As(err, &e) {
		fmt.Println("refused:", e.Package, e.Field)
	}
	// Output:
	// 202 /requests/req-7
	// refused: frontdoor Request
}
