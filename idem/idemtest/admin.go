package idemtest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
)

// adminStore is a store an operator's tool can use (idem.Admin).
type adminStore interface {
	idem.Store
	idem.Admin
}

// admin returns b's store as an idem.Admin, skipping the case for a store
// without it (every store of this repository has it; its tests say so at
// compile time).
func (b *bundle) admin(t *testing.T) adminStore {
	t.Helper()
	a, ok := b.store.(adminStore)
	if !ok {
		t.Skipf("%T does not implement idem.Admin", b.store)
	}
	return a
}

// get reads key, which must be there.
func get(t *testing.T, a idem.Admin, key idem.Key) idem.Record {
	t.Helper()
	rec, ok, err := a.Get(context.Background(), key)
	if err != nil || !ok {
		t.Fatalf("get %q: %+v, %v, %v; want the record", key, rec, ok, err)
	}
	return rec
}

// wantChanged checks that err is a *idem.RecordChangedError finding
// status and owner.
func wantChanged(t *testing.T, what string, err error, status idem.Status, owner string) {
	t.Helper()
	if !errors.Is(err, idem.ErrRecordChanged) {
		t.Fatalf("%s: err %v, want idem.ErrRecordChanged", what, err)
	}
	changed, ok := errors.AsType[*idem.RecordChangedError](err)
	if !ok {
		t.Fatalf("%s: err %v (%T) is not an *idem.RecordChangedError", what, err, err)
	}
	if changed.Status != status || changed.Owner != owner {
		t.Fatalf("%s: found %+v, want status %q owner %q", what, changed, status, owner)
	}
}

// listAll reads every page of req, failing the test if a page is larger
// than its limit or the pages do not end.
func listAll(t *testing.T, a idem.Admin, req idem.ListRequest, maxPages int) []idem.Record {
	t.Helper()
	var all []idem.Record
	for pages := 0; ; pages++ {
		if pages == maxPages {
			t.Fatalf("list %+v: more than %d pages; the cursor does not move on", req, maxPages)
		}
		page, err := a.List(context.Background(), req)
		if err != nil {
			t.Fatalf("list %+v: %v", req, err)
		}
		limit := req.Limit
		if limit == 0 {
			limit = 100 // ListRequest.Limit 0
		}
		if len(page.Records) > limit {
			t.Fatalf("list %+v: a page of %d records, more than its limit", req, len(page.Records))
		}
		all = append(all, page.Records...)
		if page.Next == "" {
			return all
		}
		if page.Next == req.Cursor {
			t.Fatalf("list %+v: the next cursor is this page's", req)
		}
		req.Cursor = page.Next
	}
}

// keysOf returns the keys of recs, sorted.
func keysOf(recs []idem.Record) []idem.Key {
	keys := make([]idem.Key, len(recs))
	for i, r := range recs {
		keys[i] = r.Key
	}
	slices.Sort(keys)
	return keys
}

var adminCases = []testCase{
	{"AdminDeleteWhatWasRead", func(t *testing.T, b *bundle) {
		a := b.admin(t)
		ctx := context.Background()
		b.mustClaim(t, "t#del", b.now, time.Minute)
		rec := get(t, a, "t#del")
		if err := a.Delete(ctx, idem.DeletionOf(rec)); err != nil {
			t.Fatalf("delete of the record as read: %v", err)
		}
		if rec, ok, err := a.Get(ctx, "t#del"); err != nil || ok {
			t.Fatalf("after delete: %+v, %v, %v; want no record", rec, ok, err)
		}
		c, again := b.claim(t, "t#del", b.now.Add(time.Second), time.Minute, time.Hour, "")
		wantState(t, c, claimed)
		if c.Previous != nil {
			t.Fatalf("a claim after delete reports a take-over: %+v", c.Previous)
		}
		wantChanged(t, "delete of a record claimed again since", a.Delete(ctx, idem.DeletionOf(rec)), idem.StatusInProgress, again)
	}},
	{"AdminDeleteCompleted", func(t *testing.T, b *bundle) {
		a := b.admin(t)
		owner := b.mustClaim(t, "t#delc", b.now, time.Minute)
		if err := b.complete("t#delc", owner, []byte("r"), b.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		rec := get(t, a, "t#delc")
		if err := a.Delete(context.Background(), idem.DeletionOf(rec)); err != nil {
			t.Fatalf("delete of a COMPLETED record as read: %v", err)
		}
		c, _ := b.claim(t, "t#delc", b.now.Add(time.Second), time.Minute, time.Hour, "")
		wantState(t, c, claimed)
	}},
	{"AdminDeleteIsFencedByTheOwner", func(t *testing.T, b *bundle) {
		a := b.admin(t)
		b.mustClaim(t, "t#fenced", b.now, time.Second)
		read := get(t, a, "t#fenced")
		// Claimed again after it was read: the lease had passed.
		second := b.mustClaim(t, "t#fenced", b.now.Add(2*time.Second), time.Minute)
		wantChanged(t, "delete of a record claimed again", a.Delete(context.Background(), idem.DeletionOf(read)), idem.StatusInProgress, second)
		if now := get(t, a, "t#fenced"); now.Owner != second || now.Status != idem.StatusInProgress {
			t.Fatalf("the refused delete changed the record: %+v", now)
		}
		// Released and claimed again at once, with the same lease: only
		// the owner tells the records apart.
		first := b.mustClaim(t, "t#same", b.now, time.Minute)
		read = get(t, a, "t#same")
		if err := b.store.Release(context.Background(), "t#same", first); err != nil {
			t.Fatal(err)
		}
		third := b.mustClaim(t, "t#same", b.now, time.Minute)
		if now := get(t, a, "t#same"); !now.LeaseUntil.Equal(read.LeaseUntil) {
			t.Fatalf("the second claim's lease %s is not the first's %s", now.LeaseUntil, read.LeaseUntil)
		}
		wantChanged(t, "delete of a record released and claimed again", a.Delete(context.Background(), idem.DeletionOf(read)), idem.StatusInProgress, third)
		gone := idem.DeletionOf(read)
		gone.Key = "t#never"
		wantChanged(t, "delete of an absent key", a.Delete(context.Background(), gone), "", "")
	}},
	{"AdminDeleteIsFencedByTheStatus", func(t *testing.T, b *bundle) {
		a := b.admin(t)
		owner := b.mustClaim(t, "t#fst", b.now, time.Minute)
		read := get(t, a, "t#fst")
		if err := b.complete("t#fst", owner, []byte("done"), b.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		wantChanged(t, "delete of a record completed since", a.Delete(context.Background(), idem.DeletionOf(read)), idem.StatusCompleted, owner)
		if now := get(t, a, "t#fst"); now.Status != idem.StatusCompleted || string(now.Result) != "done" {
			t.Fatalf("the refused delete changed the record: %+v", now)
		}
	}},
	{"AdminDeleteIsFencedByTheLease", func(t *testing.T, b *bundle) {
		a := b.admin(t)
		owner := b.mustClaim(t, "t#flease", b.now, time.Second)
		read := get(t, a, "t#flease")
		// The owner's heartbeat renews the lease after it was read.
		if err := b.extend("t#flease", owner, b.now.Add(time.Minute), b.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		wantChanged(t, "delete of a record whose lease was renewed", a.Delete(context.Background(), idem.DeletionOf(read)), idem.StatusInProgress, owner)
		get(t, a, "t#flease")
		// And a record without a lease is fenced by its absence.
		if err := b.extend("t#flease", owner, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		noLease := get(t, a, "t#flease")
		if !noLease.LeaseUntil.IsZero() {
			t.Fatalf("extend without a lease: %+v", noLease)
		}
		withLease := idem.DeletionOf(noLease)
		withLease.LeaseUntil = b.now.Add(time.Minute)
		wantChanged(t, "delete fenced by a lease the record no longer has", a.Delete(context.Background(), withLease), idem.StatusInProgress, owner)
		if err := a.Delete(context.Background(), idem.DeletionOf(noLease)); err != nil {
			t.Fatalf("delete of a record without a lease as read: %v", err)
		}
	}},
	{"AdminListFilters", func(t *testing.T, b *bundle) {
		a := b.admin(t)
		// Two claims abandoned (lease 1 s), one live (lease 1 h), two
		// completed (one expiring in 10 s), one without a lease.
		b.mustClaim(t, "t#stuck1", b.now, time.Second)
		b.mustClaim(t, "t#stuck2", b.now, 2*time.Second)
		b.mustClaim(t, "t#live", b.now, time.Hour)
		for key, expiry := range map[idem.Key]time.Duration{"t#done": time.Hour, "t#soon": 10 * time.Second} {
			owner := b.mustClaim(t, key, b.now, time.Minute)
			if err := b.complete(key, owner, []byte("r"), b.now.Add(expiry)); err != nil {
				t.Fatal(err)
			}
		}
		noLease := b.mustClaim(t, "t#nolease", b.now, time.Second)
		if err := b.extend("t#nolease", noLease, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			req  idem.ListRequest
			want []idem.Key
		}{
			{"all", idem.ListRequest{}, []idem.Key{"t#done", "t#live", "t#nolease", "t#soon", "t#stuck1", "t#stuck2"}},
			{"in progress", idem.ListRequest{Status: idem.StatusInProgress}, []idem.Key{"t#live", "t#nolease", "t#stuck1", "t#stuck2"}},
			{"completed", idem.ListRequest{Status: idem.StatusCompleted}, []idem.Key{"t#done", "t#soon"}},
			{"lease passed at +3s", idem.ListRequest{LeaseBefore: b.now.Add(3 * time.Second)}, []idem.Key{"t#stuck1", "t#stuck2"}},
			{"lease passed at +2s", idem.ListRequest{Status: idem.StatusInProgress, LeaseBefore: b.now.Add(2 * time.Second)}, []idem.Key{"t#stuck1"}},
			{"lease passed at the lease's end", idem.ListRequest{LeaseBefore: b.now.Add(time.Second)}, nil},
			{"expiring before +1m", idem.ListRequest{ExpiresBefore: b.now.Add(time.Minute)}, []idem.Key{"t#soon"}},
			{"completed expiring before +2h", idem.ListRequest{Status: idem.StatusCompleted, ExpiresBefore: b.now.Add(2 * time.Hour)}, []idem.Key{"t#done", "t#soon"}},
		} {
			got := keysOf(listAll(t, a, c.req, 10))
			if !slices.Equal(got, c.want) {
				t.Errorf("list %s: keys %q, want %q", c.name, got, c.want)
			}
		}
		recs := listAll(t, a, idem.ListRequest{Status: idem.StatusInProgress, LeaseBefore: b.now.Add(3 * time.Second), Limit: 1}, 10)
		for _, r := range recs {
			if want := get(t, a, r.Key); !want.LeaseUntil.Equal(r.LeaseUntil) || want.Owner != r.Owner || want.Status != r.Status || !want.ExpiresAt.Equal(r.ExpiresAt) {
				t.Errorf("listed %+v, read %+v", r, want)
			}
		}
	}},
	{"AdminListNamespace", func(t *testing.T, b *bundle) {
		a := b.admin(t)
		must := func(k idem.Key, err error) idem.Key {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			return k
		}
		// Keys of namespace t, with a scope and without; of namespaces
		// that share its first letters, hold a ':' or are t as a scope;
		// and keys of no namespace's form.
		inT := []idem.Key{must(idem.ClientKey("t", "a")), must(idem.ScopedKey("t", "acme", "b")), must(idem.NaturalKey("t", "doc", "1"))}
		others := []idem.Key{must(idem.ClientKey("tt", "c")), must(idem.ClientKey("t:x", "d")), must(idem.ScopedKey("u", "t", "e")),
			must(idem.ClientKey("u", "t#f")), must(idem.ClientKey("T", "g")), "t:plain", "t"}
		for _, k := range append(slices.Clone(inT), others...) {
			b.mustClaim(t, k, b.now, time.Hour)
		}
		owner := b.mustClaim(t, must(idem.ClientKey("t", "done")), b.now, time.Minute)
		if err := b.complete(must(idem.ClientKey("t", "done")), owner, []byte("r"), b.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		sorted := func(keys ...idem.Key) []idem.Key { slices.Sort(keys); return keys }
		for _, c := range []struct {
			req  idem.ListRequest
			want []idem.Key
		}{
			{idem.ListRequest{Namespace: "t"}, sorted(append(slices.Clone(inT), "t#done")...)},
			{idem.ListRequest{Namespace: "t", Status: idem.StatusInProgress}, sorted(inT...)},
			{idem.ListRequest{Namespace: "t", Status: idem.StatusCompleted}, []idem.Key{"t#done"}},
			{idem.ListRequest{Namespace: "t", Limit: 1}, sorted(append(slices.Clone(inT), "t#done")...)},
			{idem.ListRequest{Namespace: "t:x"}, []idem.Key{must(idem.ClientKey("t:x", "d"))}},
			{idem.ListRequest{Namespace: "u"}, sorted(must(idem.ScopedKey("u", "t", "e")), must(idem.ClientKey("u", "t#f")))},
			{idem.ListRequest{Namespace: "tt"}, []idem.Key{"tt#c"}},
			{idem.ListRequest{Namespace: "none"}, nil},
		} {
			got := slices.Compact(keysOf(listAll(t, a, c.req, 10)))
			if !slices.Equal(got, c.want) {
				t.Errorf("list %+v: keys %q, want %q", c.req, got, c.want)
			}
			for _, k := range got {
				if !k.InNamespace(c.req.Namespace) {
					t.Errorf("list of namespace %q: key %q is not in it", c.req.Namespace, k)
				}
			}
		}
	}},
	{"AdminListPages", func(t *testing.T, b *bundle) {
		a := b.admin(t)
		var want []idem.Key
		for _, k := range []idem.Key{"t#p1", "t#p2", "t#p3", "t#p4", "t#p5"} {
			b.mustClaim(t, k, b.now, time.Minute)
			want = append(want, k)
		}
		for _, limit := range []int{1, 2, 5, 6} {
			got := listAll(t, a, idem.ListRequest{Limit: limit}, 12)
			// Each at least once (Admin.List: Redis's SCAN may return a
			// key twice while the server resizes its table), and no other.
			if keys := slices.Compact(keysOf(got)); !slices.Equal(keys, want) {
				t.Errorf("pages of %d: keys %q, want each of %q", limit, keysOf(got), want)
			}
		}
		page, err := a.List(context.Background(), idem.ListRequest{Limit: 2})
		if err != nil || len(page.Records) == 0 || page.Next == "" {
			t.Fatalf("first page of 2 of 5 records: %d records, next %q, %v", len(page.Records), page.Next, err)
		}
		if _, err := a.List(context.Background(), idem.ListRequest{Limit: -1}); !errors.As(err, new(*idem.ConfigError)) {
			t.Errorf("list with limit -1: err %v, want an *idem.ConfigError", err)
		}
	}},
}
