package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/internal/storekit"
)

// listed returns the keys of a --json listing, sorted, and its next
// cursor.
func listed(t *testing.T, r result) ([]string, string) {
	t.Helper()
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var keys []string
	var next string
	for line := range strings.Lines(r.stdout) {
		var v struct {
			Key  string `json:"key"`
			Next string `json:"next"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if v.Next != "" {
			next = v.Next
			continue
		}
		keys = append(keys, strings.TrimPrefix(v.Key, namespace+"#"))
	}
	slices.Sort(keys)
	return keys, next
}

func TestList(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		b.claim(t, "a", b.now, time.Hour)
		b.claim(t, "b", b.now, time.Hour)
		b.claim(t, "c", b.now, time.Hour)
		b.complete(t, "d", []byte("r"), storekit.EncodingRaw, time.Hour)
		// Completed 50 minutes ago, as a record expiry of 1 h dates it.
		b.complete(t, "e", []byte("r"), storekit.EncodingRaw, 10*time.Minute)

		for _, c := range []struct {
			args []string
			want []string
		}{
			{[]string{"list"}, []string{"a", "b", "c", "d", "e"}},
			{[]string{"list", "--status", "completed"}, []string{"d", "e"}},
			{[]string{"list", "--status", "in-progress"}, []string{"a", "b", "c"}},
			{[]string{"list", "--status", "completed", "--older-than", "30m", "--record-expiry", "1h"}, []string{"e"}},
			{[]string{"list", "--older-than", "55m", "--record-expiry", "1h"}, nil},
		} {
			got, next := listed(t, b.run(t, nil, append(c.args, "--json")...))
			if !slices.Equal(got, c.want) || next != "" {
				t.Errorf("%s: keys %q (next %q), want %q", strings.Join(c.args, " "), got, next, c.want)
			}
		}

		// Pages of 2, following the cursor each page prints.
		var all []string
		args := []string{"list", "--limit", "2"}
		cursor := regexp.MustCompile(`more: add --cursor (\S+)`)
		for pages := 0; ; pages++ {
			if pages == 6 {
				t.Fatalf("more than 5 pages of 2 for 5 records")
			}
			r := b.run(t, nil, args...)
			if r.code != exitOK {
				t.Fatalf("list page: exit %d", r.code)
			}
			rows := 0
			for line := range strings.Lines(r.stdout) {
				if k, ok := strings.CutPrefix(line, namespace+"#"); ok {
					all = append(all, strings.Fields(k)[0])
					rows++
				}
			}
			if rows > 2 {
				t.Fatalf("a page of --limit 2 shows %d records", rows)
			}
			m := cursor.FindStringSubmatch(r.stdout)
			if m == nil {
				break
			}
			args = []string{"list", "--limit", "2", "--cursor", m[1]}
		}
		slices.Sort(all)
		if want := []string{"a", "b", "c", "d", "e"}; !slices.Equal(all, want) {
			t.Errorf("the pages list %q, want each of %q once", all, want)
		}

		if r := b.run(t, nil, "list", "--status", "done"); r.code != exitUsage {
			t.Errorf("list --status done: exit %d, want %d", r.code, exitUsage)
		}
	})
}

// stuck lists exactly the IN_PROGRESS records whose lease has passed: not
// a live claim, not one without a lease, not a completed record.
func TestStuck(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		b.claim(t, "stopped-1", b.now.Add(-5*time.Minute), time.Minute)
		b.claim(t, "stopped-2", b.now.Add(-2*time.Minute), time.Minute)
		b.claim(t, "running", b.now, time.Hour)
		b.claim(t, "no-lease", b.now.Add(-5*time.Minute), 0)
		b.complete(t, "done", []byte("r"), storekit.EncodingRaw, time.Hour)

		got, _ := listed(t, b.run(t, nil, "stuck", "--json"))
		if want := []string{"stopped-1", "stopped-2"}; !slices.Equal(got, want) {
			t.Errorf("stuck: keys %q, want %q", got, want)
		}
		r := b.run(t, nil, "stuck")
		if !strings.Contains(r.stdout, "passed") || !strings.Contains(r.stdout, "2 record(s)") {
			t.Errorf("stuck does not show two records whose lease passed")
		}
	})
}
