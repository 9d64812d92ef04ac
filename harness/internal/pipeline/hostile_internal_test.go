package pipeline

import (
	"encoding/json"
	"strings"
	"testing"
)

// The hostile requests are what they say: the bodies near the limit are
// of the sizes meant, and every body meant to be one JSON object is one,
// with a hostile prompt.
func TestHostileRequests(t *testing.T) {
	t.Parallel()
	for _, keyFields := range []bool{false, true} {
		reqs := hostileRequests(keyFields)
		sizes := map[string]int{}
		for _, r := range reqs {
			if r.want < 400 || r.want >= 500 {
				t.Errorf("%s: want %d: a hostile request is refused", r.what, r.want)
			}
			if strings.Contains(r.what, "limit") {
				sizes[r.what] = len(r.body)
			}
			if r.body == "" || strings.HasPrefix(r.body, "{not") || strings.HasPrefix(r.body, "[") {
				continue
			}
			var v map[string]any
			d := json.NewDecoder(strings.NewReader(r.body))
			if err := d.Decode(&v); err != nil {
				t.Errorf("%s (key fields %v): %.80s: %v", r.what, keyFields, r.body, err)
				continue
			}
			if p, _ := v["prompt"].(string); !strings.HasPrefix(p, hostilePrompt) && r.what != "a member twice" {
				t.Errorf("%s: prompt %q", r.what, p)
			}
			if keyFields && v["document_id"] == nil && r.what != "a key field absent" {
				t.Errorf("%s: no document_id", r.what)
			}
		}
		if sizes["a body of <, > and & a byte over the limit"] != maxBody+1 {
			t.Errorf("key fields %v: the body over the limit is %v bytes", keyFields, sizes)
		}
		if !keyFields && sizes["a body of <, > and & at the limit, over the queue's size with its key"] != maxBody {
			t.Errorf("the body at the limit is %v bytes", sizes)
		}
	}
}
