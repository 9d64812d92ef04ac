package handler_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/request"
)

// SQS takes bodies of up to 1 MiB (1,048,576 bytes): such a message is
// keyed, fingerprinted and replayed like any other, by each key source, and
// its body never reaches the log.
func TestMebibyteMessages(t *testing.T) {
	t.Parallel()
	body := func(key, filler string) string {
		head := fmt.Sprintf(`{"idempotency_key":%q,"document_id":4471,"version":9,"text":"`, key)
		pad := 1<<20 - len(head) - len(`"}`)
		return head + strings.Repeat(filler, pad/len(filler)) + strings.Repeat("x", pad%len(filler)) + `"}`
	}
	for name, opts := range map[string][]handler.Option{
		"key field":  nil,
		"key fields": {withRequest(request.Identity{KeyFields: []string{"document_id", "version"}})},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			h := b.wrap(nil, opts...)
			first, dup := bodyMsg("m1", body("k1", "lorem ipsum ")), bodyMsg("m2", body("k1", "lorem ipsum "))
			if len(first.Body) != 1<<20 {
				t.Fatalf("body of %d bytes, want 1 MiB", len(first.Body))
			}
			handlerbundle.WantIDs(t, b.Invoke(h, first))
			handlerbundle.WantIDs(t, b.Invoke(h, dup))
			if b.CallCount("m1") != 1 || b.CallCount("m2") != 0 || b.Replays()["m2"] != "result:m1" {
				t.Errorf("calls m1 %d m2 %d, m2 replayed %q: want one call, then a replay", b.CallCount("m1"), b.CallCount("m2"), b.Replays()["m2"])
			}
			if logs := b.Logs.Bytes(); strings.Contains(string(logs), "lorem ipsum") || len(logs) > 64<<10 {
				t.Errorf("the log holds the body (%d bytes of log)", len(logs))
			}
		})
	}
	// Another payload of the same size under the same key is a mismatch
	// with the whole-body fingerprint.
	b := setup(t)
	h := b.wrap(nil)
	handlerbundle.WantIDs(t, b.Invoke(h, bodyMsg("m1", body("k1", "lorem ipsum "))))
	handlerbundle.WantIDs(t, b.Invoke(h, bodyMsg("m2", body("k1", "dolor sit a "))), "m2")
}
