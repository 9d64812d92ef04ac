package producer

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/request"
)

// Typed sends requests of type Req through a Producer: each one's body is
// its JSON form (encoding/json), which holds its key where Req's tags say
// (request.IdentityOf), so the handler that decodes a Req
// (handler.NewTyped) claims the key its fields make. It is safe for
// concurrent use.
type Typed[Req any] struct {
	p   *Producer
	typ *request.Type[Req]
}

// NewTyped returns the typed sender of Req through p. Req's fields must
// make the key: a field tagged idemq:"key" (or several), or, untagged, a
// member named request.DefaultKeyField. p must read requests as Req's
// tags say (its Config.Request, namespace aside, with the key from the
// same fields and the same fingerprint; what the tags leave unset, such
// as fingerprint fields, it may add): a producer given another Identity
// would send keys the handler does not read. Pass it the Type's:
//
//	typ, err := request.NewType[Summarise](request.Identity{Namespace: "summarise"})
//	p, err := producer.New(client, queueURL, producer.WithRequest(typ.Identity()))
//	send, err := producer.NewTyped[Summarise](p)
//
// Anything else is an *idem.ConfigError naming the setting.
func NewTyped[Req any](p *Producer) (*Typed[Req], error) {
	if p == nil {
		return nil, configError("producer", "", optkit.ErrNil)
	}
	have := p.reader.Identity()
	typ, err := request.NewType[Req](have)
	if err != nil {
		return nil, err
	}
	if err := have.SameAs(typ.Identity()); err != nil {
		return nil, configError("Request", "", fmt.Errorf("reads requests otherwise than the tags of %s say: %w", typ.Name(), err))
	}
	if id := typ.Identity(); id.KeyAttribute != "" || id.KeyFunc != nil {
		return nil, configError("Request", "", fmt.Errorf("takes keys from %s, which no field of %s makes: tag its key field idemq:\"key\"", id.Source(), typ.Name()))
	}
	if !typ.CarriesKey() {
		return nil, configError("Request", "", fmt.Errorf("reads the key from %s, which is no member of the JSON form of %s: tag its key field idemq:\"key\"", typ.Identity().Source(), typ.Name()))
	}
	return &Typed[Req]{p: p, typ: typ}, nil
}

// Producer returns the Producer t sends through.
func (t *Typed[Req]) Producer() *Producer { return t.p }

// Message returns req as a Message: its JSON form as the body, which
// holds its key, so Key is left empty. Set its Scope, GroupID or
// Attributes and send it with the Producer's Send or SendBatch for what
// Send does not set. A req that does not encode is ErrBadMessage.
func (t *Typed[Req]) Message(req Req) (Message, error) {
	body, err := t.typ.Body(req)
	if err != nil {
		return Message{}, fmt.Errorf("%w: %w", ErrBadMessage, err)
	}
	return Message{Body: body}, nil
}

// Send sends req (Message, then Producer.Send): its Sent.Key is the key
// within the namespace that Req's fields make, and Sent.RecordKey the key
// the handler claims when the Producer's Identity has the namespace.
func (t *Typed[Req]) Send(ctx context.Context, req Req) (Sent, error) {
	m, err := t.Message(req)
	if err != nil {
		return Sent{Err: err}, err
	}
	return t.p.Send(ctx, m)
}

// SendBatch sends reqs as Producer.SendBatch sends messages, in input
// order: a req that does not encode fails alone (its Sent.Err a
// *MessageError), the others are sent.
func (t *Typed[Req]) SendBatch(ctx context.Context, reqs []Req) ([]Sent, error) {
	msgs := make([]Message, 0, len(reqs))
	index := make([]int, 0, len(reqs)) // msgs[n] is reqs[index[n]]
	out := make([]Sent, len(reqs))
	var errs []error
	for i, req := range reqs {
		m, err := t.Message(req)
		if err != nil {
			out[i].Err = &MessageError{Index: i, Err: err}
			errs = append(errs, out[i].Err)
			continue
		}
		msgs = append(msgs, m)
		index = append(index, i)
	}
	if len(msgs) == 0 {
		return out, errors.Join(errs...)
	}
	sent, _ := t.p.SendBatch(ctx, msgs)
	for n, s := range sent {
		i := index[n]
		if me, ok := s.Err.(*MessageError); ok {
			me.Index = i
		}
		out[i] = s
		if s.Err != nil {
			errs = append(errs, s.Err)
		}
	}
	return out, errors.Join(errs...)
}
