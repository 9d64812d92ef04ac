package producer_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

const queueURL = "https://sqs.us-east-1.amazonaws.com/123456789012/jobs"

// TestKeyIsTheHandlers sends each body through the producer and runs the
// handler, configured alike, over what was sent: the key the handler
// claims is idem.ClientKey(namespace, Sent.Key).
func TestKeyIsTheHandlers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		body     string
		key      string
		field    string   // request.Identity.KeyField of the producer and the handler
		fields   []string // request.Identity.KeyFields of the producer and the handler
		wantKey  string   // Sent.Key
		wantBody string   // the body sent, when it is worth saying
	}{
		{name: "put in", body: `{"prompt":"summarise"}`, key: "req-1", wantKey: "req-1",
			wantBody: `{"idempotency_key":"req-1","prompt":"summarise"}`},
		{name: "empty object", body: " {\n} ", key: "req-1", wantKey: "req-1", wantBody: ` {"idempotency_key":"req-1"` + "\n} "},
		{name: "already there", body: `{"prompt":"x","idempotency_key":"req-1"}`, key: "req-1", wantKey: "req-1"},
		{name: "already there, no key given", body: `{"idempotency_key":"req-1"}`, wantKey: "req-1"},
		{name: "a number in the body", body: `{"idempotency_key":42}`, key: "42", wantKey: "42"},
		{name: "null replaced", body: `{"idempotency_key":null,"p":1}`, key: "k", wantKey: "k",
			wantBody: `{"idempotency_key":"k","p":1}`},
		{name: "empty replaced", body: `{"idempotency_key":"","p":1}`, key: "k", wantKey: "k"},
		{name: "text and markup", body: `{"p":"<b>"}`, key: "ключ <&> \"q\" ✓", wantKey: "ключ <&> \"q\" ✓"},
		{name: "custom field", body: `{"p":1}`, key: "k", field: "request_id", wantKey: "k"},
		{name: "dotted, object exists", body: `{"request":{"prompt":"x"},"n":[1,{"a":2}]}`, key: "k", field: "request.id", wantKey: "k",
			wantBody: `{"request":{"id":"k","prompt":"x"},"n":[1,{"a":2}]}`},
		{name: "dotted, object made", body: `{"prompt":"x"}`, key: "k", field: "request.meta.id", wantKey: "k",
			wantBody: `{"request":{"meta":{"id":"k"}},"prompt":"x"}`},
		{name: "dotted, null object", body: `{"request":null}`, key: "k", field: "request.id", wantKey: "k"},
		{name: "escaped dot", body: `{"order":{"id":"other"}}`, key: "k", field: `order\.id`, wantKey: "k"},
		{name: "escaped name in the body", body: `{"re\u0071uest":{}}`, key: "k", field: "request.id", wantKey: "k"},
		{name: "numbers kept exact", body: `{"n":9007199254740993,"f":1.50}`, key: "k", wantKey: "k",
			wantBody: `{"idempotency_key":"k","n":9007199254740993,"f":1.50}`},
		{name: "fields", body: `{"document_id":4471,"version":9.0,"prompt":"x"}`, fields: []string{"version", "document_id"},
			wantKey: "document_id:4471:version:9"},
		{name: "fields, key given", body: `{"document_id":"4471","version":"9"}`, key: "document_id:4471:version:9",
			fields: []string{"document_id", "version"}, wantKey: "document_id:4471:version:9"},
		{name: "fields, nested and odd", body: `{"doc":{"id":"a:b#c"},"tags":["x",1]}`, fields: []string{"doc.id", "tags"},
			wantKey: `doc.id:a%3Ab%23c:tags:["x",1]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			id := request.Identity{Namespace: "ns", KeyField: tc.field, KeyFields: tc.fields}
			popts, hopts := []producer.Option{producer.WithRequest(id)}, []handler.Option{handler.WithRequest(id)}
			fake := &fakeSQS{}
			p := must(producer.New(fake, queueURL, popts...))
			sent, err := p.Send(context.Background(), producer.Message{Key: tc.key, Body: []byte(tc.body)})
			if err != nil {
				t.Fatal(err)
			}
			if sent.Key != tc.wantKey || sent.MessageID == "" || sent.Attempts != 1 {
				t.Errorf("sent %+v, want key %q, a message id, 1 attempt", sent, tc.wantKey)
			}
			bodies := fake.taken()
			if tc.wantBody != "" && bodies[0] != tc.wantBody {
				t.Errorf("body sent\n %s\nwant\n %s", bodies[0], tc.wantBody)
			}
			keys, n := run(t, bodies, hopts...)
			want := must(idem.ClientKey("ns", sent.Key))
			if n != 1 || keys[0] != want {
				t.Errorf("the handler ran %d times with key %v, want once with %q", n, keys, want)
			}
		})
	}
}

// TestRefused: a message the handler could not key, or would key
// otherwise, is refused before anything is sent.
func TestRefused(t *testing.T) {
	t.Parallel()
	long := `{"p":"` + strings.Repeat("x", 300<<10) + `"}`
	cases := []struct {
		name string
		url  string
		opts []producer.Option
		msg  producer.Message
		want error
	}{
		{"another key in the body", queueURL, nil, producer.Message{Key: "a", Body: []byte(`{"idempotency_key":"b"}`)}, producer.ErrKeyMismatch},
		{"a number that is another key", queueURL, nil, producer.Message{Key: "42.0", Body: []byte(`{"idempotency_key":42}`)}, producer.ErrKeyMismatch},
		{"fields make another key", queueURL, []producer.Option{producer.WithRequest(request.Identity{KeyFields: []string{"id"}})}, producer.Message{Key: "a", Body: []byte(`{"id":"b"}`)}, producer.ErrKeyMismatch},
		{"no key anywhere", queueURL, nil, producer.Message{Body: []byte(`{"p":1}`)}, idem.ErrNoKey},
		{"a key field absent", queueURL, []producer.Option{producer.WithRequest(request.Identity{KeyFields: []string{"id", "v"}})}, producer.Message{Body: []byte(`{"id":1}`)}, idem.ErrNoKey},
		{"not JSON", queueURL, nil, producer.Message{Key: "a", Body: []byte(`prompt=x`)}, request.ErrBadBody},
		{"not an object", queueURL, nil, producer.Message{Key: "a", Body: []byte(`["a"]`)}, request.ErrBadBody},
		{"the key field holds an object", queueURL, nil, producer.Message{Key: "a", Body: []byte(`{"idempotency_key":{}}`)}, idem.ErrBadKey},
		{"a member named with the dot", queueURL, []producer.Option{producer.WithRequest(request.Identity{KeyField: "request.id"})},
			producer.Message{Key: "a", Body: []byte(`{"request.id":"a"}`)}, idem.ErrBadKey},
		{"the path crosses a string", queueURL, []producer.Option{producer.WithRequest(request.Identity{KeyField: "request.id"})},
			producer.Message{Key: "a", Body: []byte(`{"request":"x"}`)}, request.ErrBadBody},
		{"a repeated member on the key's path", queueURL, []producer.Option{producer.WithRequest(request.Identity{KeyField: "request.id"})},
			producer.Message{Key: "k", Body: []byte(`{"request":{"a":1},"request":{"b":2}}`)}, idem.ErrBadKey},
		{"a case variant of the key member", queueURL, nil, producer.Message{Key: "k", Body: []byte(`{"IDEMPOTENCY_KEY":"other"}`)}, idem.ErrBadKey},
		{"a key with a control character", queueURL, nil, producer.Message{Key: "a\x1b[2J", Body: []byte(`{}`)}, idem.ErrBadKey},
		{"a scope with a control character", queueURL, nil, producer.Message{Key: "a", Scope: "\n", Body: []byte(`{}`)}, idem.ErrBadKey},
		{"attributes above the queue's size", queueURL, []producer.Option{func(c *producer.Config) { c.MaxMessageBytes = 1000 }},
			producer.Message{Key: "a", Body: []byte(`{}`), Attributes: map[string]string{"trace": strings.Repeat("t", 990)}}, producer.ErrTooLarge},
		{"a key that is not text", queueURL, nil, producer.Message{Key: "a\xff", Body: []byte(`{}`)}, idem.ErrBadKey},
		{"FIFO without a group", queueURL + ".fifo", nil, producer.Message{Key: "a", Body: []byte(`{}`)}, producer.ErrBadMessage},
		{"a group id SQS refuses", queueURL, nil, producer.Message{Key: "a", Body: []byte(`{}`), GroupID: "a b"}, producer.ErrBadMessage},
		{"above the queue's size", queueURL, []producer.Option{func(c *producer.Config) { c.MaxMessageBytes = 256 << 10 }}, producer.Message{Key: "a", Body: []byte(long)}, producer.ErrTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := &fakeSQS{}
			p := must(producer.New(fake, tc.url, tc.opts...))
			sent, err := p.Send(context.Background(), tc.msg)
			if !errors.Is(err, tc.want) || !errors.Is(sent.Err, tc.want) {
				t.Errorf("err %v, want %v", err, tc.want)
			}
			if sent.Attempts != 0 || len(fake.taken()) != 0 {
				t.Errorf("%d attempts, %d sent: want none", sent.Attempts, len(fake.taken()))
			}
		})
	}
}

func TestDeduplicationID(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("k", 129)
	cases := []struct {
		key    string
		hashed bool
	}{
		{"req-0001", false},
		{"a!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~z", false},
		{strings.Repeat("k", 128), false},
		{long, true},
		{"two words", true},
		{"ключ", true},
		{"sha256:abc", true}, // never taken for another key's hash
	}
	seen := map[string]string{}
	for _, tc := range cases {
		id := producer.DeduplicationID(tc.key)
		if again := producer.DeduplicationID(tc.key); again != id {
			t.Errorf("%q: %q then %q", tc.key, id, again)
		}
		if hashed := id != tc.key; hashed != tc.hashed || len(id) > 128 {
			t.Errorf("%q: id %q (hashed %v), want hashed %v and at most 128 characters", tc.key, id, hashed, tc.hashed)
		}
		for i := 0; i < len(id); i++ {
			if id[i] < '!' || id[i] > '~' {
				t.Errorf("%q: id %q has %q", tc.key, id, id[i])
			}
		}
		if other, ok := seen[id]; ok {
			t.Errorf("%q and %q share id %q", tc.key, other, id)
		}
		seen[id] = tc.key
	}
}

// TestFIFOIDs: on a FIFO queue every attempt carries the group and the
// deduplication id the key maps to.
func TestFIFOIDs(t *testing.T) {
	t.Parallel()
	fake := &fakeSQS{loseNext: 1}
	p := must(producer.New(fake, queueURL+".fifo", producer.WithGroupID("tenant-1"), func(c *producer.Config) { c.RetryMin, c.RetryMax = 0, 0 }))
	key := strings.Repeat("long key ", 20)
	sent, err := p.Send(context.Background(), producer.Message{Key: key, Body: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if sent.Attempts != 2 || sent.DeduplicationID != producer.DeduplicationID(key) {
		t.Errorf("sent %+v: want 2 attempts with DeduplicationID(key)", sent)
	}
	for _, in := range fake.inputs {
		if aws.ToString(in.MessageDeduplicationId) != sent.DeduplicationID || aws.ToString(in.MessageGroupId) != "tenant-1" {
			t.Errorf("attempt with dedup id %q, group %q", aws.ToString(in.MessageDeduplicationId), aws.ToString(in.MessageGroupId))
		}
	}
	other, err := p.Send(context.Background(), producer.Message{Key: "k2", Body: []byte(`{}`), GroupID: "tenant-2"})
	if err != nil || aws.ToString(fake.inputs[2].MessageGroupId) != "tenant-2" || other.DeduplicationID != "k2" {
		t.Errorf("sent %+v, %v: want the message's own group and the key as its id", other, err)
	}
}

func TestConfig(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		opts  []producer.Option
		field string
	}{
		{"both key settings", []producer.Option{func(c *producer.Config) { c.Request.KeyField, c.Request.KeyFields = "a", []string{"b"} }}, "request.KeyFields"},
		{"bad field", []producer.Option{producer.WithRequest(request.Identity{KeyField: "a..b"})}, "request.KeyField"},
		{"bad fields", []producer.Option{producer.WithRequest(request.Identity{KeyFields: []string{"a", ".b"}})}, "request.KeyFields"},
		{"bad group", []producer.Option{producer.WithGroupID(strings.Repeat("g", 129))}, "GroupID"},
		{"message above SQS's", []producer.Option{func(c *producer.Config) { c.MaxMessageBytes = 1<<20 + 1 }}, "MaxMessageBytes"},
		{"batch under a message", []producer.Option{func(c *producer.Config) { c.MaxMessageBytes = 1000 }, func(c *producer.Config) { c.MaxBatchBytes = 999 }}, "MaxBatchBytes"},
		{"no attempt", []producer.Option{func(c *producer.Config) { c.MaxAttempts = -1 }}, "MaxAttempts"},
		{"negative timeout", []producer.Option{func(c *producer.Config) { c.AttemptTimeout = -1 }}, "AttemptTimeout"},
		{"retry max under min", []producer.Option{func(c *producer.Config) { c.RetryMin, c.RetryMax = 2, 1 }}, "RetryMax"},
		{"nil option", []producer.Option{nil}, "options[0]"},
	}
	for _, tc := range cases {
		_, err := producer.New(&fakeSQS{}, queueURL, tc.opts...)
		var bad *idem.ConfigError
		pkg, field, ok := strings.Cut(tc.field, ".")
		if !ok || strings.Contains(field, "]") {
			pkg, field = "producer", tc.field
		}
		if !errors.As(err, &bad) || bad.Package != pkg || bad.Field != field {
			t.Errorf("%s: %v, want a ConfigError for %s", tc.name, err, tc.field)
		}
	}
	if _, err := producer.New(nil, queueURL); !errors.Is(err, optkit.ErrNil) {
		t.Errorf("nil client: %v", err)
	}
	if _, err := producer.New(&fakeSQS{}, ""); err == nil {
		t.Error("empty queue URL accepted")
	}
	if err := (producer.Config{}).Validate(); err != nil {
		t.Errorf("zero Config: %v", err)
	}
}
