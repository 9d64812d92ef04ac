package request

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

type (
	jfInner struct {
		A string
		B string `json:"b"`
	}
	jfOther struct {
		A string `json:"A"`
		C string
	}
	jfDeep struct {
		jfInner
	}
	jfTwice struct {
		jfInner
		Pointer *jfInner
	}
	// jfConflicts: A is at depth 1 in jfInner (untagged) and jfOther
	// (tagged): the tagged one wins; B is only jfInner's; C is jfOther's.
	jfConflicts struct {
		jfInner
		jfOther
		D string `json:"d,omitempty"`
		e string //lint:ignore U1000 unexported: encoding/json leaves it out, the point
		F string `json:"-"`
		H string `json:"h i"`
	}
	// jfAnnulled: A at depth 1 in both, both untagged: encoding/json
	// writes neither.
	jfAnnulled struct {
		jfInner
		jfDeepA
	}
	jfDeepA struct {
		A string
	}
	// jfShallow: the parent's own A hides both embedded ones.
	jfShallow struct {
		jfInner
		jfOther
		A string
	}
	// jfSameTypeTwice: one struct type embedded twice at one depth (via
	// a pointer and not): its fields annul each other.
	jfSameTypeTwice struct {
		jfDeep
		*JfOtherDeep
	}
	JfOtherDeep struct {
		jfInner
	}
	JfExported struct {
		X string
	}
	jfNamedEmbedded struct {
		JfExported `json:"ex"`
		jfInner    `json:"in"`
	}
)

// jsonFields names the members encoding/json writes, no more and no
// fewer: a type's every field filled, marshalled, and the names compared.
func TestJSONFieldsAreEncodingJSONs(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		jfInner{}, jfDeep{}, jfTwice{}, jfConflicts{}, jfAnnulled{}, jfShallow{}, jfSameTypeTwice{}, jfNamedEmbedded{},
	} {
		rv := reflect.New(reflect.TypeOf(v)).Elem()
		fill(rv)
		body, err := json.Marshal(rv.Interface())
		if err != nil {
			t.Fatal(err)
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(body, &members); err != nil {
			t.Fatal(err)
		}
		var want []string
		for name := range members {
			want = append(want, name)
		}
		fields, _, _ := jsonFields(rv.Type())
		var got []string
		for _, f := range fields {
			got = append(got, f.name)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%T: jsonFields %q, encoding/json writes %q (%s)", v, got, want, body)
		}
	}
}

// fill sets every settable string to "x" and allocates every nil
// pointer to a struct, so that encoding/json writes every member.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString("x")
		}
	case reflect.Pointer:
		if v.IsNil() && v.CanSet() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		if !v.IsNil() {
			fill(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() && v.Type().Field(i).Anonymous && f.Kind() == reflect.Pointer {
				continue // an unexported embedded pointer: encoding/json cannot reach it either
			}
			fill(reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem())
		}
	}
}
