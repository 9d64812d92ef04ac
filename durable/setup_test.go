package durable_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/durable/durabletest"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

const function = "summarise:prod"

// namespace is the dispatchers' namespace (Config.Request.Namespace), the
// handler's they stand in for.
const namespace = "summarise"

// inNamespace names the tests' requests in namespace; an option given
// after it replaces it.
var inNamespace = durable.WithRequest(request.Identity{Namespace: namespace})

// name is the execution name of the client's key k in namespace: the name
// of the record key a handler claims for it.
func name(k string) string {
	key, err := idem.ClientKey(namespace, k)
	if err != nil {
		panic(err)
	}
	return durable.ExecutionName(string(key))
}

// discard is a logger that writes nowhere.
var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// quiet sends the dispatcher's log nowhere.
var quiet = durable.WithLogger(discard)

// bundle is a dispatcher wired to a fake Lambda through the real SDK
// client.
type bundle struct {
	srv *durabletest.Server
	d   *durable.Dispatcher
}

// setup starts a fake and a dispatcher of function on it. attempts is the
// SDK's RetryMaxAttempts (0: the SDK's default, 3).
func setup(t *testing.T, attempts int, opts ...durable.Option) *bundle {
	t.Helper()
	srv := durabletest.NewServer(t)
	d, err := durable.New(newClient(srv, attempts), function,
		append([]durable.Option{quiet, inNamespace}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return &bundle{srv: srv, d: d}
}

func newClient(srv *durabletest.Server, attempts int) *lambda.Client {
	return lambda.New(lambda.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(srv.URL),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: attempts,
	})
}

// handle delivers msgs as one batch and returns the ids acknowledged.
func (b *bundle) handle(t *testing.T, msgs ...events.SQSMessage) (acked, failed []string) {
	t.Helper()
	resp, err := b.d.Handle(context.Background(), events.SQSEvent{Records: msgs})
	if err != nil {
		t.Fatalf("Handle: %v", err)
	}
	bad := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		bad[f.ItemIdentifier] = true
		failed = append(failed, f.ItemIdentifier)
	}
	for _, m := range msgs {
		if !bad[m.MessageId] {
			acked = append(acked, m.MessageId)
		}
	}
	return acked, failed
}

// msg is a message of a standard queue whose body holds key and prompt.
func msg(id, key, prompt string) events.SQSMessage {
	return events.SQSMessage{
		MessageId:      id,
		Body:           fmt.Sprintf(`{"idempotency_key":%q,"prompt":%q}`, key, prompt),
		EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:requests",
	}
}
