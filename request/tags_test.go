package request_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

type (
	oneKey struct {
		ID     string `json:"id" idemq:"key"`
		Prompt string `json:"prompt"`
	}
	numberKey struct {
		N int64 `idemq:"key"` // no json tag: the Go name
	}
	document struct {
		ID      string `json:"id" idemq:"key"`
		Version int    `json:"version" idemq:"key"`
	}
	Tenant struct {
		Tenant string `json:"tenant" idemq:"fingerprint"`
	}
	summarise struct {
		Tenant                       // embedded: its members are the parent's
		Doc     *document            `json:"document"`
		Prompt  string               `json:"prompt" idemq:"fingerprint"`
		Dotted  string               `json:"a.b" idemq:"fingerprint"`
		At      time.Time            `json:"at"`   // encodes itself: not walked
		Meta    map[string]string    `json:"meta"` // no tags inside
		Ignored string               `json:"-"`
		Options []struct{ Name int } `json:"options"`
	}
	bothTags struct {
		ID string `json:"id" idemq:"key,fingerprint"`
	}
	quotedBool struct {
		Flag bool `json:"flag,string" idemq:"key"`
	}
	// shadowed: Tenant's "tenant" loses to the parent's own.
	shadowed struct {
		Tenant
		Mine string `json:"tenant"`
	}
	node struct {
		ID   string `json:"id" idemq:"key"`
		Next *node  `json:"next"`
	}
	customKey struct {
		At time.Time `json:"at" idemq:"key"`
	}
)

func TestIdentityOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		got  func() (request.Identity, error)
		want request.Identity
	}{
		{"one key field", request.IdentityOf[oneKey], request.Identity{KeyField: "id"}},
		{"a pointer type", request.IdentityOf[*oneKey], request.Identity{KeyField: "id"}},
		{"the Go name", request.IdentityOf[numberKey], request.Identity{KeyField: "N"}},
		{"nested, embedded, dotted", request.IdentityOf[summarise], request.Identity{
			KeyFields:         []string{"document.id", "document.version"},
			FingerprintFields: []string{"tenant", "prompt", `a\.b`},
		}},
		{"key and fingerprint", request.IdentityOf[bothTags], request.Identity{KeyField: "id", FingerprintFields: []string{"id"}}},
		{"a quoted bool", request.IdentityOf[quotedBool], request.Identity{KeyField: "flag"}},
		{"a recursive type", request.IdentityOf[node], request.Identity{KeyField: "id"}},
		{"a type that encodes itself", request.IdentityOf[customKey], request.Identity{KeyField: "at"}},
		{"no tags", request.IdentityOf[struct{ A string }], request.Identity{}},
		{"not a struct", request.IdentityOf[map[string]any], request.Identity{}},
	} {
		got, err := tc.got()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("%s: the Identity is not valid: %v", tc.name, err)
		}
	}
}

// The fields IdentityOf names are the members encoding/json writes: a
// Reader of the Identity reads the key from a value's JSON form.
func TestIdentityOfReadsWhatJSONWrites(t *testing.T) {
	t.Parallel()
	typ := must(request.NewType[summarise](request.Identity{Namespace: "ns"}))
	id, err := typ.ID(summarise{Tenant: Tenant{"acme"}, Doc: &document{ID: "doc-1", Version: 9}, Prompt: "p", Dotted: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if id.Key != "ns#document.id:doc-1:document.version:9" || id.Fingerprint == "" {
		t.Errorf("%+v", id)
	}
	body, _ := json.Marshal(summarise{Doc: &document{ID: "doc-1", Version: 9}, Prompt: "other", Tenant: Tenant{"acme"}, Dotted: "d"})
	other, err := typ.ID(summarise{Doc: &document{ID: "doc-1", Version: 9}, Prompt: "other", Tenant: Tenant{"acme"}, Dotted: "d"})
	if err != nil || other.Key != id.Key || other.Fingerprint == id.Fingerprint {
		t.Errorf("another prompt: %+v %v (body %s): want the key, another fingerprint", other, err, body)
	}
}

type (
	unexportedTag struct {
		//lint:ignore U1000 the tag on a field encoding/json leaves out is the test
		id string `idemq:"key"`
	}
	dashTag struct {
		ID string `json:"-" idemq:"key"`
	}
	unknownWord struct {
		ID string `json:"id" idemq:"kee"`
	}
	emptyTag struct {
		ID string `json:"id" idemq:""`
	}
	inSlice struct {
		Docs []document `json:"docs"`
	}
	inMap struct {
		Docs map[string]oneKey `json:"docs"`
	}
	taggedEmbedded struct {
		Tenant `idemq:"fingerprint"`
	}
	hiddenTag struct {
		Tenant
		Other string `json:"tenant"`
	}
	objectKey struct {
		Doc struct{ A string } `json:"doc" idemq:"key"`
	}
	twoBad struct {
		A string `json:"a" idemq:"nope"`
		//lint:ignore U1000 the tag on a field encoding/json leaves out is the test
		b string `idemq:"key"`
	}
)

// A tag that cannot work is refused when the type is read, naming the
// Go field; every bad tag is reported.
func TestIdentityOfRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		got    func() (request.Identity, error)
		fields []string
	}{
		{"unexported", request.IdentityOf[unexportedTag], []string{"unexportedTag.id"}},
		{`json:"-"`, request.IdentityOf[dashTag], []string{"dashTag.ID"}},
		{"an unknown word", request.IdentityOf[unknownWord], []string{"unknownWord.ID"}},
		{"an empty tag", request.IdentityOf[emptyTag], []string{"emptyTag.ID"}},
		{"in a slice", request.IdentityOf[inSlice], []string{"inSlice.Docs[].ID", "inSlice.Docs[].Version"}},
		{"in a map", request.IdentityOf[inMap], []string{"inMap.Docs[…].ID"}},
		{"an embedded struct", request.IdentityOf[taggedEmbedded], []string{"taggedEmbedded.Tenant"}},
		{"hidden", request.IdentityOf[hiddenTag], []string{"hiddenTag.Tenant.Tenant"}},
		{"one key field that is an object", request.IdentityOf[objectKey], []string{"objectKey.Doc"}},
		{"two at once", request.IdentityOf[twoBad], []string{"twoBad.b", "twoBad.A"}},
	} {
		_, err := tc.got()
		var fields []string
		for _, e := range leaves(err) {
			bad, ok := errors.AsType[*idem.ConfigError](e)
			if !ok || bad.Package != "request" {
				t.Errorf("%s: %v is not a ConfigError of package request", tc.name, e)
				continue
			}
			fields = append(fields, bad.Field)
		}
		slices.Sort(fields)
		want := slices.Sorted(slices.Values(tc.fields))
		if !slices.Equal(fields, want) {
			t.Errorf("%s: %v: fields %q, want %q", tc.name, err, fields, want)
		}
	}
}

// leaves splits errors.Join's joins.
func leaves(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leaves(e)...)
		}
		return out
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// shadowed's embedded Tenant field loses its name to the parent's own,
// untagged field, as encoding/json decides: its tag is refused.
func TestIdentityOfFollowsJSONNames(t *testing.T) {
	t.Parallel()
	_, err := request.IdentityOf[shadowed]()
	bad, ok := errors.AsType[*idem.ConfigError](err)
	if !ok || bad.Field != "shadowed.Tenant.Tenant" {
		t.Fatalf("%v", err)
	}
	body, _ := json.Marshal(shadowed{Tenant: Tenant{"embedded"}, Mine: "mine"})
	if string(body) != `{"tenant":"mine"}` {
		t.Fatalf("encoding/json wrote %s: the test's premise is wrong", body)
	}
}

// must returns v, and panics if err is not nil.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
