package frontdoor

import (
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem/idemjson"
	"github.com/idemq/idemq/request"
)

// WithBodyCheck sets Config.CheckBody: each POST's body is checked by f
// (see BodyCheckOf for a request type's). Defaults to none: any JSON
// object is taken.
func WithBodyCheck(f func(body []byte) error) Option { return func(c *Config) { c.CheckBody = f } }

// BodyCheckOf returns the body check (Config.CheckBody) of request type Req, the worker's
// (handler.NewTyped): a body that does not decode into a Req
// (request.Type.Decode), or lacks a member Req's tags make the key or the
// fingerprint of, is refused, as the worker would fail it:
//
//	check, err := frontdoor.BodyCheckOf[Summarise]()
//	fd, err := frontdoor.New(store, q, frontdoor.WithRequest(request.Identity{Namespace: "summarise"}), frontdoor.WithBodyCheck(check))
//
// A Req without key tags is only decoded: its key is the front door's to
// put in. A bad tag is an *idem.ConfigError naming the field.
func BodyCheckOf[Req any]() (func(body []byte) error, error) {
	own, err := request.IdentityOf[Req]()
	if err != nil {
		return nil, err
	}
	typ, err := request.NewType[Req](own)
	if err != nil {
		return nil, err
	}
	keyed := own.KeyField != "" || len(own.KeyFields) > 0
	return func(body []byte) error {
		if _, err := typ.Decode(body); err != nil {
			return err
		}
		if keyed {
			_, err := typ.Reader().Read(events.SQSMessage{Body: string(body)})
			return err
		}
		if len(own.FingerprintFields) > 0 {
			if _, err := idemjson.Fingerprint(body, own.FingerprintFields...); err != nil {
				return fmt.Errorf("%w: fingerprint: %w", request.ErrBadBody, err)
			}
		}
		return nil
	}, nil
}
