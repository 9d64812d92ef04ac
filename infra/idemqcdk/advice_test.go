package idemqcdk_test

import (
	"maps"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/idemq/idemq/infra/idemqcdk"
)

// advice are the changes a message suggests, each one alone, as context
// overrides of the reference stack: "raise K to at least V", "lower K to
// at most V", "raise K to V", "turn on … (idemq:backoff)", "leave K unset".
func advice(t *testing.T, msg string) []map[string]any {
	t.Helper()
	_, fixes, ok := strings.Cut(msg, "; ")
	for ok { // the advice follows the message's last "; "
		var rest string
		if _, rest, ok = strings.Cut(fixes, "; "); ok {
			fixes = rest
		}
	}
	var out []map[string]any
	for _, fix := range strings.Split(fixes, ", or ") {
		set := regexp.MustCompile(`^(?:raise|lower) (idemq:\w+) to (?:at least |at most )?([^ ,;()]+)`).FindStringSubmatch(fix)
		unset := regexp.MustCompile(`^leave (idemq:\w+) unset`).FindStringSubmatch(fix)
		switch {
		case set != nil:
			out = append(out, map[string]any{set[1]: set[2]})
		case unset != nil:
			out = append(out, map[string]any{unset[1]: nil})
		case strings.HasPrefix(fix, "turn on the in-progress back-off (idemq:backoff)"):
			out = append(out, map[string]any{"idemq:backoff": true})
		default:
			t.Fatalf("advice %q of %q: not a change this test can follow", fix, msg)
		}
	}
	return out
}

// TestEveryWarningsAdviceMakesItGoAway makes the reference stack with
// settings each warning is for, checks the warning comes with its own id,
// and follows each change it suggests: the warning must go, and nothing
// else come. (The warnings are read as the stack is made, without a
// synthesis; TestEachWarningIsAcknowledgedAlone synthesizes.)
func TestEveryWarningsAdviceMakesItGoAway(t *testing.T) {
	for _, c := range []struct {
		name    string
		context map[string]any
		id      string
		says    string
	}{
		{"a batching window that lets a message show again while it runs",
			map[string]any{"idemq:batchingWindow": "60s", "idemq:visibilityTimeout": "150s"}, idemqcdk.WarningVisibility,
			"idemq:visibilityTimeout 2m30s is shorter than idemq:batchingWindow 1m0s + idemq:functionTimeout 2m0s = 3m0s"},
		{"a dead letter kept under 3 days",
			map[string]any{"idemq:retention": "288h"}, idemqcdk.WarningDeadLetterStay,
			"idemq:retention 288h0m0s leaves a dead letter as little as 48h0m0s"},
		{"a record expiry short of a redrive",
			map[string]any{"idemq:recordExpiry": "200h"}, idemqcdk.WarningRecordExpiry,
			"idemq:recordExpiry 200h0m0s does not cover a redrive"},
		{"results kept under a day longer than their records",
			map[string]any{"idemq:blobExpiryDays": 23}, idemqcdk.WarningResultExpiry,
			"idemq:blobExpiryDays 23 covers idemq:recordExpiry 541h15m0s by less than a day"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ws := madeNotes(newStack(t, c.context))
			if len(ws) != 1 || ws[0].id != c.id || !strings.Contains(ws[0].msg, c.says) {
				t.Fatalf("warnings %v; want one %s saying %q", ws, c.id, c.says)
			}
			t.Log(ws[0].msg)
			fixes := advice(t, ws[0].msg)
			if len(fixes) == 0 {
				t.Fatalf("%s suggests nothing", ws[0].msg)
			}
			for _, fix := range fixes {
				ctx := maps.Clone(c.context)
				maps.Copy(ctx, fix)
				if stack, err := idemqcdk.NewStack(newApp(t, ctx), jsii.String("Idemq"), &idemqcdk.StackProps{ModuleDir: "../.."}); err != nil {
					t.Errorf("following %v: %v", fix, err)
				} else if _, n := madeNotes(stack); len(n) > 0 {
					t.Errorf("following %v: %v", fix, n)
				}
			}
		})
	}
}

// TestEveryRefusalsAdviceMakesItGoAway does the same for the refusals that
// suggest changes: each change alone must make the stack deploy. The first
// is issue 40's: with visibility already far over the lease, raising it
// cannot help, and the advice must not say to.
func TestEveryRefusalsAdviceMakesItGoAway(t *testing.T) {
	for _, c := range []struct {
		name    string
		context map[string]any
		says    string
		notSays string
	}{
		{"one receive, visibility 120s over a 30s function",
			map[string]any{"idemq:functionTimeout": "30s", "idemq:visibilityTimeout": "120s", "idemq:maxReceives": 1},
			"raise idemq:maxReceives to at least 2", "idemq:visibilityTimeout above"},
		{"one receive, visibility 600s",
			map[string]any{"idemq:functionTimeout": "30s", "idemq:visibilityTimeout": "600s", "idemq:maxReceives": 1},
			"raise idemq:maxReceives to at least 2", "raise idemq:visibilityTimeout"},
		{"no back-off, a lease over the visibility, two receives",
			map[string]any{"idemq:backoff": false, "idemq:visibilityTimeout": "130s", "idemq:maxReceives": 2},
			"raise idemq:visibilityTimeout to at least 2m11s", ""},
		{"visibility under the timeout",
			map[string]any{"idemq:functionTimeout": "60s", "idemq:visibilityTimeout": "30s"},
			"raise idemq:visibilityTimeout to at least 1m0s", ""},
		{"visibility under the timeout, with a window",
			map[string]any{"idemq:functionTimeout": "60s", "idemq:visibilityTimeout": "45s", "idemq:batchingWindow": "10s", "idemq:batchSize": 20},
			"lower idemq:functionTimeout to at most 35s", ""},
		{"retention under a crashed worker's retry",
			map[string]any{"idemq:retention": "10m"}, "raise idemq:retention to at least", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := idemqcdk.NewStack(newApp(t, c.context), jsii.String("Idemq"), &idemqcdk.StackProps{ModuleDir: "../.."})
			if err == nil || !strings.Contains(err.Error(), c.says) || c.notSays != "" && strings.Contains(err.Error(), c.notSays) {
				t.Fatalf("NewStack: %v; want a refusal saying %q (and not %q)", err, c.says, c.notSays)
			}
			t.Log(err)
			for _, fix := range advice(t, err.Error()) {
				ctx := maps.Clone(c.context)
				maps.Copy(ctx, fix)
				if stack, err := idemqcdk.NewStack(newApp(t, ctx), jsii.String("Idemq"), &idemqcdk.StackProps{ModuleDir: "../.."}); err != nil {
					t.Errorf("following %v: %v", fix, err)
				} else if _, n := madeNotes(stack); len(n) > 0 {
					t.Errorf("following %v: warnings %v", fix, n)
				}
			}
		})
	}
}

// TestEachWarningIsAcknowledgedAlone checks that acknowledging one warning
// id leaves the others: two warnings, one acknowledged, one left.
func TestEachWarningIsAcknowledgedAlone(t *testing.T) {
	stack := newStack(t, map[string]any{"idemq:batchingWindow": "60s", "idemq:visibilityTimeout": "150s", "idemq:retention": "288h"})
	var ids []string
	for _, n := range notes(t, stack, false) {
		ids = append(ids, n.id)
	}
	if strings.Join(ids, " ") != idemqcdk.WarningVisibility+" "+idemqcdk.WarningDeadLetterStay {
		t.Fatalf("warning ids %v, want %s and %s", ids, idemqcdk.WarningVisibility, idemqcdk.WarningDeadLetterStay)
	}
	awscdk.Annotations_Of(stack).AcknowledgeWarning(jsii.String(idemqcdk.WarningVisibility), jsii.String("the window is short-lived"))
	left := notes(t, stack, false)
	if len(left) != 1 || left[0].id != idemqcdk.WarningDeadLetterStay {
		t.Errorf("after acknowledging %s: %v, want %s alone", idemqcdk.WarningVisibility, left, idemqcdk.WarningDeadLetterStay)
	}
}
