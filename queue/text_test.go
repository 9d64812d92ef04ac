package queue_test

import (
	"testing"

	"github.com/idemq/idemq/queue"
)

// SQS takes XML's characters in a body or an attribute's value, and no
// empty one.
func TestCheckText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s  string
		ok bool
	}{
		{`{"a":"b"}`, true},
		{"tab\tline\ncr\r", true},
		{"\u007f\u0085\ud7ff\ue000\ufffd\U00010000\U0010ffff", true},
		{"<&>", true},
		{"", false},
		{"a\x00b", false},
		{"a\x1bb", false},
		{"\ufffe", false},
		{"\uffff", false},
		{"\xff", false},
		{"a\xed\xa0\x80", false}, // a surrogate, encoded
		{"\xe2\x82", false},      // cut short
	} {
		if err := queue.CheckText(tt.s); (err == nil) != tt.ok {
			t.Errorf("CheckText(%q) = %v, want ok %v", tt.s, err, tt.ok)
		}
	}
}
