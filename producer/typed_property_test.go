package producer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/fuzzreq"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

// propRequest is a request type with a key of four fields (one nested
// twice, one whose name has a dot) and a fingerprint field.
type propRequest struct {
	Tenant string `json:"tenant" idemq:"key"`
	Doc    struct {
		ID  int64   `json:"id" idemq:"key"`
		Rev float64 `json:"rev" idemq:"key"`
	} `json:"doc"`
	Region string `json:"re.gion" idemq:"key"`
	Prompt string `json:"prompt" idemq:"fingerprint"`
	Note   string `json:"note"`
}

// propIdentity is propRequest's Identity written by hand: the untyped
// parts are given this.
var propIdentity = request.Identity{
	Namespace:         "ns",
	KeyFields:         []string{"doc.rev", `re\.gion`, "doc.id", "tenant"},
	FingerprintFields: []string{"prompt"},
}

// TestTypedIsUntyped: a random value of a typed request, sent by the
// typed producer and run by the typed handler, makes the key the untyped
// Identity with the same fields reads from the same request written by
// hand (members in another order, strings escaped otherwise, numbers
// spelled otherwise), and the two reach one record: whichever runs
// second replays. Values the key rule refuses are refused by both.
func TestTypedIsUntyped(t *testing.T) {
	t.Parallel()
	cases := 1000
	if testing.Short() {
		cases = 100
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	ctx := context.Background()
	typ := must(request.NewType[propRequest](request.Identity{Namespace: "ns"}))
	if err := typ.Identity().SameAs(propIdentity); err != nil {
		t.Fatalf("the type's Identity is not the one by hand: %v", err)
	}
	untypedReader := must(request.NewReader(propIdentity))
	f := &fakeSQS{}
	p := must(producer.New(f, queueURL, producer.WithRequest(typ.Identity())))
	send := must(producer.NewTyped[propRequest](p))
	quiet := handler.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	refused := 0
	for n := range cases {
		v := randomRequest(rng)
		scope := ""
		if rng.IntN(3) == 0 {
			scope = randomText(rng, 1+rng.IntN(6), false)
		}
		m, err := send.Message(v)
		if err != nil {
			t.Fatalf("case %d: %+v does not encode: %v", n, v, err)
		}
		m.Scope = scope
		sent, sendErr := p.Send(ctx, m)
		byHand := handWritten(rng, v)
		want, readErr := untypedReader.Read(message("by-hand", byHand, scope))
		if sendErr != nil || readErr != nil {
			if sendErr == nil || readErr == nil || !sameClass(sendErr, readErr) {
				t.Fatalf("case %d %+v: the typed producer: %v; the Identity by hand: %v", n, v, sendErr, readErr)
			}
			refused++
			continue
		}
		if sent.RecordKey != want.Key {
			t.Fatalf("case %d %+v: sent under %q, the Identity by hand reads %q", n, v, sent.RecordKey, want.Key)
		}
		bodies := f.taken()
		typedBody := bodies[len(bodies)-1]

		store := must(memstore.New())
		var typedRuns, untypedRuns int
		var claimed idem.Key
		var seen propRequest
		typedH := must(handler.NewTyped(store, func(ctx context.Context, req propRequest) (string, error) {
			typedRuns++
			claimed, _ = handler.KeyFromContext(ctx)
			seen = req
			return "typed", nil
		}, handler.WithRequest(request.Identity{Namespace: "ns"}), quiet))
		untypedH := must(handler.New(store, func(ctx context.Context, _ events.SQSMessage) ([]byte, error) {
			untypedRuns++
			claimed, _ = handler.KeyFromContext(ctx)
			return []byte(`"untyped"`), nil
		}, handler.WithRequest(propIdentity), quiet))
		deliveries := []func(){
			func() { deliver(t, typedH, message("typed", typedBody, scope)) },
			func() { deliver(t, untypedH, message("by-hand", byHand, scope)) },
		}
		typedFirst := rng.IntN(2) == 0
		if !typedFirst {
			deliveries[0], deliveries[1] = deliveries[1], deliveries[0]
		}
		deliveries[0]()
		if claimed != want.Key {
			t.Fatalf("case %d %+v: the handler that ran first (typed %v) claimed %q, want %q", n, v, typedFirst, claimed, want.Key)
		}
		deliveries[1]()
		if typedRuns+untypedRuns != 1 {
			t.Fatalf("case %d %+v: %d typed and %d untyped runs: one request, two records", n, v, typedRuns, untypedRuns)
		}
		if typedFirst && !reflect.DeepEqual(seen, v) {
			t.Fatalf("case %d: the typed function saw %+v, sent %+v", n, seen, v)
		}
	}
	if refused == cases || refused == 0 {
		t.Errorf("%d of %d cases refused: the generator should make both kinds", refused, cases)
	}
}

// deliver runs h on one message, which must be acknowledged.
func deliver(t *testing.T, h handler.Handler, msg events.SQSMessage) {
	t.Helper()
	resp, err := h(context.Background(), events.SQSEvent{Records: []events.SQSMessage{msg}})
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("%s %s: %v %v", msg.MessageId, msg.Body, resp.BatchItemFailures, err)
	}
}

func message(id, body, scope string) events.SQSMessage {
	m := events.SQSMessage{MessageId: id, Body: body, EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:jobs"}
	if scope != "" {
		m.MessageAttributes = map[string]events.SQSMessageAttribute{request.ScopeAttribute: {DataType: "String", StringValue: &scope}}
	}
	return m
}

// sameClass reports whether two refusals are for the same reason.
func sameClass(a, b error) bool {
	for _, sentinel := range []error{idem.ErrNoKey, idem.ErrBadKey, request.ErrBadBody} {
		if errors.Is(a, sentinel) {
			return errors.Is(b, sentinel)
		}
	}
	return false
}

// randomRequest makes a request whose strings are mostly good keys, now
// and then empty or holding a control character (which the key rule
// refuses), and whose numbers span int64 and float64.
func randomRequest(rng *rand.Rand) propRequest {
	var v propRequest
	v.Tenant = randomText(rng, rng.IntN(12), rng.IntN(40) == 0)
	v.Doc.ID = int64(rng.Uint64())
	if rng.IntN(2) == 0 {
		v.Doc.ID = rng.Int64N(1000) - 500
	}
	switch rng.IntN(4) {
	case 0:
		v.Doc.Rev = float64(rng.IntN(100))
	case 1:
		v.Doc.Rev = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
	default:
		v.Doc.Rev = math.Float64frombits(rng.Uint64())
		if math.IsNaN(v.Doc.Rev) || math.IsInf(v.Doc.Rev, 0) {
			v.Doc.Rev = 0.5
		}
	}
	v.Region = randomText(rng, 1+rng.IntN(8), rng.IntN(40) == 0)
	v.Prompt = randomText(rng, rng.IntN(20), false)
	v.Note = randomText(rng, rng.IntN(5), false)
	return v
}

// alphabet holds the characters keys are made of: letters, the key's
// own separators, JSON's escapes, markup that encoding/json escapes, and
// text beyond ASCII.
var alphabet = []rune("abcXYZ019 :#%.\\\"/<>&'é中😀\u2028\u00a0")

func randomText(rng *rand.Rand, n int, control bool) string {
	var b strings.Builder
	for range n {
		b.WriteRune(alphabet[rng.IntN(len(alphabet))])
	}
	if control {
		b.WriteByte(byte(rng.IntN(0x20)))
	}
	return b.String()
}

// handWritten writes v's JSON form by hand, as another program might:
// members in a random order, some characters escaped as \u, numbers
// spelled in exponent form now and then.
func handWritten(rng *rand.Rand, v propRequest) string {
	members := []string{
		str(rng, "tenant") + ":" + str(rng, v.Tenant),
		str(rng, "doc") + ":{" + strings.Join(shuffled(rng, []string{
			str(rng, "id") + ":" + integer(rng, v.Doc.ID),
			str(rng, "rev") + ":" + float(rng, v.Doc.Rev),
		}), ",") + "}",
		str(rng, "re.gion") + ":" + str(rng, v.Region),
		str(rng, "prompt") + ":" + str(rng, v.Prompt),
		str(rng, "note") + ":" + str(rng, v.Note),
		str(rng, "trace_id") + ":" + strconv.Quote(fmt.Sprint(rng.Uint32())),
	}
	return "{ " + strings.Join(shuffled(rng, members), " ,\n") + "}"
}

func shuffled(rng *rand.Rand, s []string) []string {
	rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

// str writes s as a JSON string, escaping characters as \u at random.
func str(rng *rand.Rand, s string) string {
	return fuzzreq.Quote(s, func(rune) bool { return rng.IntN(4) == 0 })
}

// integer spells n as itself, or with a fraction or an exponent.
func integer(rng *rand.Rand, n int64) string {
	s := strconv.FormatInt(n, 10)
	switch rng.IntN(3) {
	case 0:
		return s + ".000"
	case 1:
		digits := strings.TrimPrefix(s, "-")
		sign := s[:len(s)-len(digits)]
		return sign + digits[:1] + "." + digits[1:] + "0e" + strconv.Itoa(len(digits)-1)
	}
	return s
}

// float spells f exactly, in a form encoding/json does not always use.
func float(rng *rand.Rand, f float64) string {
	if rng.IntN(2) == 0 {
		return strconv.FormatFloat(f, 'E', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
