package idemjson_test

import (
	"fmt"

	"github.com/idemq/idemq/idem/idemjson"
)

// Two deliveries of one request, encoded differently, get one key.
func ExampleKey() {
	body := []byte(`{"model":"m1","prompt":"Summarise document 4471","trace_id":"a1"}`)
	resent := []byte(`{"trace_id":"b2", "prompt":"Summarise document 4471", "model":"m1"}`)
	k1, _ := idemjson.Key("summariser", body, "model", "prompt")
	k2, _ := idemjson.Key("summariser", resent, "model", "prompt")
	fmt.Println(k1 == k2)
	fmt.Println(string(k1)[:len("summariser#json(model,prompt):sha256:")])

	_, err := idemjson.Key("summariser", []byte(`{"model":"m1"}`), "model", "prompt")
	fmt.Println(err)
	// Output:
	// true
	// summariser#json(model,prompt):sha256:
	// idem: no idempotency key: field "prompt" is absent or null
}

// A body decoded once gives its key, its fingerprint and its fields.
func ExampleParse() {
	obj, err := idemjson.Parse(`{"order":{"id":4471},"amount":12.50,"trace":"a1"}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	k, _ := obj.Key("charge", "order.id")
	fmt.Println(k)
	id, _ := obj.Field("order.id")
	fmt.Println(id)
	v, _ := obj.NaturalValue("order.id", "amount")
	fmt.Println(v)
	// Output:
	// charge#json(order.id):sha256:83a1dfb7118edec8ed65e7719ed6799e2985e0466978831970086256bc1ec71d
	// 4471
	// amount:12.5:order.id:4471
}

// Canonical writes a document so that its encoding does not matter.
func ExampleCanonical() {
	a, _ := idemjson.Canonical([]byte(`{ "b": 1.50, "a": "\u0068i" }`))
	b, _ := idemjson.Canonical([]byte(`{"a":"hi","b":1.5}`))
	fmt.Println(string(a), string(a) == string(b))
	// Output: {"a":"hi","b":1.5} true
}
