package frontdoor

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

// FuzzRequestKey checks the Idempotency-Key header's parsing on any value
// (its seed corpus is testdata/fuzz/FuzzRequestKey, replayed by every go
// test; make fuzz explores):
//   - nothing panics, and the same header gives the same answer; white
//     space around the value does not change it;
//   - an accepted key is 1 to MaxKeyBytes bytes of printable ASCII;
//   - its sf-string, written again, parses back to it;
//   - its status URL routes back to it, as the router reads the path, and
//     a client that resolves the URL (RFC 3986, dot segments removed)
//     sends it as it is.
//
// nopQueue takes every request and sends nothing: the fuzz target never
// posts.
type nopQueue struct{}

func (nopQueue) Request() request.Identity { return request.Identity{Namespace: "w"} }

func (nopQueue) Send(context.Context, producer.Message) (producer.Sent, error) {
	return producer.Sent{}, nil
}

func FuzzRequestKey(f *testing.F) {
	store, err := memstore.New()
	if err != nil {
		f.Fatal(err)
	}
	h, err := New(store, nopQueue{}, WithRequest(request.Identity{Namespace: "w"}))
	if err != nil {
		f.Fatal(err)
	}
	fd := h.(*frontDoor)
	base, _ := url.Parse("https://front.example/requests")
	f.Fuzz(func(t *testing.T, value string) {
		header := http.Header{HeaderKey: {value}}
		key, ok, err := requestKey(header)
		if key2, ok2, err2 := requestKey(header); key2 != key || ok2 != ok || (err == nil) != (err2 == nil) {
			t.Fatalf("%q read twice: %q %v %v, then %q %v %v", value, key, ok, err, key2, ok2, err2)
		}
		if key3, _, err3 := requestKey(http.Header{HeaderKey: {" \t" + value + "\t "}}); key3 != key || (err == nil) != (err3 == nil) {
			t.Fatalf("%q with white space around: %q %v, want %q %v", value, key3, err3, key, err)
		}
		if !ok {
			t.Fatalf("%q: read as absent", value)
		}
		if err != nil {
			if key != "" {
				t.Fatalf("%q: refused (%v) with a key %q", value, err, key)
			}
			return
		}
		if key == "" || len(key) > MaxKeyBytes {
			t.Fatalf("%q: accepted key %q of %d bytes", value, key, len(key))
		}
		for i := 0; i < len(key); i++ {
			if key[i] < 0x20 || key[i] > 0x7e {
				t.Fatalf("%q: accepted key %q holds byte %#x", value, key, key[i])
			}
		}
		sf := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(key) + `"`
		if again, _, err := requestKey(http.Header{HeaderKey: {sf}}); err != nil || again != key {
			t.Fatalf("%q: key %q written as %s reads back as %q, %v", value, key, sf, again, err)
		}
		loc := fd.statusURL(key)
		r := httptest.NewRequest(http.MethodGet, loc, nil)
		if routed, isStatus, ok := fd.route(r); !ok || !isStatus || routed != key {
			t.Fatalf("%q: key %q, status URL %s routes to %q (status %v, matched %v)", value, key, loc, routed, isStatus, ok)
		}
		if routed, _, ok := fd.route(httptest.NewRequest(http.MethodGet, fd.c.Path+"/"+url.PathEscape(key), nil)); !ok || routed != key {
			t.Fatalf("%q: key %q escaped by url.PathEscape routes to %q (matched %v)", value, key, routed, ok)
		}
		ref, err := url.Parse(loc)
		if err != nil {
			t.Fatalf("%q: status URL %q: %v", value, loc, err)
		}
		if resolved := base.ResolveReference(ref).EscapedPath(); resolved != loc {
			t.Fatalf("%q: key %q, status URL %s resolves to %s", value, key, loc, resolved)
		}
	})
}
