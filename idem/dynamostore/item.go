package dynamostore

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
)

// Item layout. Times become numbers here and only here: the expiry in epoch
// seconds rounded up (idem.ExpirySeconds), the lease in epoch milliseconds.

// key is the item key of a record.
func (s *Store) key(k idem.Key) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{s.attrs.Key: str(string(k))}
}

// claimItem is the IN_PROGRESS item a claim writes.
func (s *Store) claimItem(req idem.ClaimRequest) map[string]types.AttributeValue {
	a := s.attrs
	item := map[string]types.AttributeValue{
		a.Key:    str(string(req.Key)),
		a.Status: str(string(idem.StatusInProgress)),
		a.Expiry: seconds(req.ExpiresAt),
		a.Owner:  str(req.Owner),
	}
	if !req.LeaseUntil.IsZero() {
		item[a.Lease] = millis(req.LeaseUntil)
	}
	if req.Fingerprint != "" {
		item[a.Fingerprint] = str(req.Fingerprint)
	}
	return item
}

// record decodes an item. It decodes what it can and reports the first
// attribute it could not read.
func (s *Store) record(item map[string]types.AttributeValue) (idem.Record, error) {
	a := s.attrs
	d := decoder{item: item}
	r := idem.Record{
		Key:         idem.Key(d.str(a.Key)),
		Status:      idem.Status(d.str(a.Status)),
		Fingerprint: d.str(a.Fingerprint),
		Owner:       d.str(a.Owner),
		Result:      d.bytes(a.Result),
	}
	if v, ok := d.num(a.Expiry); ok {
		r.ExpiresAt = time.Unix(v, 0)
	}
	if v, ok := d.num(a.Lease); ok {
		r.LeaseUntil = time.UnixMilli(v)
	}
	// Absent on a record with its result, and on one written by other
	// code (Powertools): a missing result is then an empty one.
	if v, ok := d.num(a.OmittedBytes); ok && v > 0 {
		r.OmittedBytes = int(v)
	}
	return r, d.err
}

type decoder struct {
	item map[string]types.AttributeValue
	err  error
}

func (d *decoder) fail(name string, v types.AttributeValue, want string) {
	if d.err == nil {
		d.err = fmt.Errorf("dynamostore: attribute %q is a %T, want %s", name, v, want)
	}
}

func (d *decoder) str(name string) string {
	switch v := d.item[name].(type) {
	case nil:
		return ""
	case *types.AttributeValueMemberS:
		return v.Value
	default:
		d.fail(name, v, "a string")
		return ""
	}
}

// bytes reads a binary attribute, or a string one (Powertools for Python
// stores results as JSON strings; Powertools for TypeScript stores a
// result that is not a string as a map or a number, which this store does
// not read: a claim that meets one fails). Present but empty is a non-nil
// empty slice.
func (d *decoder) bytes(name string) []byte {
	switch v := d.item[name].(type) {
	case nil:
		return nil
	case *types.AttributeValueMemberB:
		if v.Value == nil {
			return []byte{}
		}
		return v.Value
	case *types.AttributeValueMemberS:
		return []byte(v.Value)
	default:
		d.fail(name, v, "binary")
		return nil
	}
}

func (d *decoder) num(name string) (int64, bool) {
	switch v := d.item[name].(type) {
	case nil:
		return 0, false
	case *types.AttributeValueMemberN:
		n, err := strconv.ParseInt(v.Value, 10, 64)
		if err != nil {
			// A number written by other code may carry a fraction.
			f, ferr := strconv.ParseFloat(v.Value, 64)
			if ferr != nil {
				if d.err == nil {
					d.err = fmt.Errorf("dynamostore: attribute %q: %w", name, errors.Join(err, ferr))
				}
				return 0, false
			}
			n = int64(f)
		}
		return n, true
	default:
		d.fail(name, v, "a number")
		return 0, false
	}
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func bin(b []byte) types.AttributeValue {
	if b == nil {
		b = []byte{}
	}
	return &types.AttributeValueMemberB{Value: b}
}

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func seconds(t time.Time) types.AttributeValue { return num(idem.ExpirySeconds(t)) }

func millis(t time.Time) types.AttributeValue { return num(t.UnixMilli()) }
