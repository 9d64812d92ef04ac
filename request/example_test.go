package request_test

import (
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/request"
)

// One Identity, written once: the producer's side stamps a message with
// a key, the handler's side reads the same key back from it.
func Example() {
	id := request.Identity{Namespace: "summarise", KeyFields: []string{"document_id", "version"}}
	r, err := request.NewReader(id)
	if err != nil {
		panic(err)
	}
	msg, sent, err := r.Stamp(events.SQSMessage{Body: `{"document_id":"doc-1","version":9,"prompt":"summarise"}`}, "", "")
	if err != nil {
		panic(err)
	}
	read, err := r.Read(msg)
	if err != nil {
		panic(err)
	}
	fmt.Println(sent.Key == read.Key, read.Key)

	// A front door's caller: the same key, in a scope no other caller,
	// and no unscoped producer, can reach.
	_, scoped, _ := r.Stamp(events.SQSMessage{Body: msg.Body}, "", "acme")
	fmt.Println(scoped.Key)
	// Output:
	// true summarise#document_id:doc-1:version:9
	// summarise:acme#document_id:doc-1:version:9
}

// A key given to a part (an operator's, a status URL's) finds the record
// a message with it has.
func ExampleReader_ID() {
	r, _ := request.NewReader(request.Identity{Namespace: "billing"})
	id, _ := r.ID("req-42", "")
	fmt.Println(id.Key)
	// Output: billing#req-42
}
