package request_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// Summarise is a request type: its tags say which fields make its key
// and its fingerprint, once, for every part.
type Summarise struct {
	DocumentID string `json:"document_id" idemq:"key"`
	Version    int    `json:"version" idemq:"key"`
	Prompt     string `json:"prompt" idemq:"fingerprint"`
	TraceID    string `json:"trace_id"` // changes between re-sends: not checked
}

// The Identity a type's tags say, the same as one written by hand.
func ExampleIdentityOf() {
	id, err := request.IdentityOf[Summarise]()
	if err != nil {
		panic(err) // an *idem.ConfigError naming a badly tagged field
	}
	fmt.Printf("%q %q\n", id.KeyFields, id.FingerprintFields)

	typ, _ := request.NewType[Summarise](request.Identity{Namespace: "summarise"})
	req, _ := typ.ID(Summarise{DocumentID: "doc-1", Version: 9, Prompt: "in three sentences"})
	fmt.Println(req.Key)
	// Output:
	// ["document_id" "version"] ["prompt"]
	// summarise#document_id:doc-1:version:9
}

// A Type decodes a body into its Go type and reads the key its tags say;
// a body the handler would refuse is refused here, before anything is
// sent or claimed.
func ExampleNewType() {
	typ, err := request.NewType[Summarise](request.Identity{Namespace: "summarise"})
	if err != nil {
		panic(err)
	}
	body, _ := typ.Body(Summarise{DocumentID: "doc-1", Version: 9, Prompt: "in three sentences"})
	fmt.Println(string(body))
	req, err := typ.Decode([]byte(`{"document_id":"doc-1","version":9,"prompt":"in three sentences"}`))
	if err != nil {
		panic(err)
	}
	id, _ := typ.ID(req)
	fmt.Println(id.Key)
	_, err = typ.Decode([]byte(`["not", "an", "object"]`))
	fmt.Println(errors.Is(err, request.ErrBadBody))
	// Output:
	// {"document_id":"doc-1","version":9,"prompt":"in three sentences","trace_id":""}
	// summarise#document_id:doc-1:version:9
	// true
}

// NewFunc keeps a Lambda handler's signature: here an API Gateway handler,
// keyed by the client's Idempotency-Key header, whose retries (each with
// a new request id) create one order. A call while the first still runs
// gets idem.ErrInProgress, which the API answers with 409.
func ExampleNewFunc() {
	store, _ := memstore.New()
	running, release := make(chan struct{}), make(chan struct{})
	orders := 0
	createOrder := func(_ context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		orders++
		if req.Body == `{"item":"slow"}` {
			close(running)
			<-release
		}
		return events.APIGatewayProxyResponse{StatusCode: http.StatusCreated, Body: fmt.Sprintf(`{"order":%d}`, orders)}, nil
	}
	idempotent, err := request.NewFunc(store, createOrder,
		// The key is the client's; the fingerprint covers what the
		// client sent, not the request id or the headers each retry
		// changes.
		request.WithRequest(request.Identity{Namespace: "orders", FingerprintFields: []string{"httpMethod", "path", "body"}}),
		request.WithKeyOf(func(req events.APIGatewayProxyRequest) (string, error) {
			return req.Headers["Idempotency-Key"], nil
		}))
	if err != nil {
		// A bad setting: each one an *idem.ConfigError.
		fmt.Println(err)
		return
	}
	// What lambda.Start is given: the same signature, and the answer to
	// a call that finds the key in progress.
	api := func(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		resp, err := idempotent(ctx, req)
		if busy, ok := errors.AsType[*idem.InProgressError](err); ok {
			wait := max(1, int(time.Until(busy.LeaseUntil).Seconds()))
			return events.APIGatewayProxyResponse{StatusCode: http.StatusConflict, Headers: map[string]string{"Retry-After": strconv.Itoa(wait)}}, nil
		}
		return resp, err
	}

	ctx := context.Background()
	post := func(key, body, requestID string) events.APIGatewayProxyRequest {
		return events.APIGatewayProxyRequest{HTTPMethod: "POST", Path: "/orders", Body: body,
			Headers:        map[string]string{"Idempotency-Key": key, "X-Amzn-Trace-Id": requestID},
			RequestContext: events.APIGatewayProxyRequestContext{RequestID: requestID}}
	}
	first, _ := api(ctx, post("k-1", `{"item":"book"}`, "r-1"))
	retry, _ := api(ctx, post("k-1", `{"item":"book"}`, "r-2"))
	fmt.Println(first.StatusCode, first.Body, retry.StatusCode, retry.Body)

	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = api(ctx, post("k-2", `{"item":"slow"}`, "r-3"))
	}()
	<-running
	busy, _ := api(ctx, post("k-2", `{"item":"slow"}`, "r-4"))
	_, err = idempotent(ctx, post("k-2", `{"item":"slow"}`, "r-5"))
	fmt.Println(busy.StatusCode, errors.Is(err, idem.ErrInProgress))
	close(release)
	<-done
	fmt.Println("orders created:", orders)
	// Output:
	// 201 {"order":1} 201 {"order":1}
	// 409 true
	// orders created: 2
}
