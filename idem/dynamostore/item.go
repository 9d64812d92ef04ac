package dynamostore

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// Item layout. Times become numbers here and only here: the expiry in epoch
// seconds rounded up (storekit.ExpirySeconds), the lease in epoch milliseconds.

// key is the item key of a record: the key in the partition key, or with
// WithSortKey the static value there and the key in the sort key.
func (s *Store) key(k idem.Key) map[string]types.AttributeValue {
	if s.sortKey != "" {
		return map[string]types.AttributeValue{s.attrs.Key: str(s.partitionValue), s.sortKey: str(string(k))}
	}
	return map[string]types.AttributeValue{s.attrs.Key: str(string(k))}
}

// keyAttr is the attribute that holds the idem.Key.
func (s *Store) keyAttr() string {
	if s.sortKey != "" {
		return s.sortKey
	}
	return s.attrs.Key
}

// claimItem is the IN_PROGRESS item a claim writes.
func (s *Store) claimItem(req idem.ClaimRequest) map[string]types.AttributeValue {
	a := s.attrs
	item := s.key(req.Key)
	item[a.Status] = str(string(idem.StatusInProgress))
	item[a.Expiry] = seconds(req.ExpiresAt)
	item[a.Owner] = str(req.Owner)
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
		Key:         idem.Key(d.str(s.keyAttr())),
		Status:      idem.Status(d.str(a.Status)),
		Fingerprint: d.str(a.Fingerprint),
		Owner:       d.str(a.Owner),
		Result:      d.bytes(a.Result),
		Encoding:    d.str(a.Encoding),
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
// stores results as JSON strings), or any other as its JSON (Powertools for
// TypeScript stores a result that is not a string as a native value: a map,
// a list, a number, a boolean). Present but empty is a non-nil empty slice.
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
		b, err := nativeJSON(v)
		if err != nil {
			d.fail(name, v, "binary, a string, or a value that has a JSON form")
			return nil
		}
		return b
	}
}

// nativeJSON writes a native DynamoDB value as JSON, numbers as they are
// spelled, binary values in base64, sets as arrays.
func nativeJSON(v types.AttributeValue) ([]byte, error) {
	var out any
	dec := attributevalue.NewDecoder(func(o *attributevalue.DecoderOptions) { o.UseNumber = true })
	if err := dec.Decode(v, &out); err != nil {
		return nil, err
	}
	return json.Marshal(jsonNumbers(out))
}

// jsonNumbers turns the decoder's numbers into JSON numbers.
func jsonNumbers(v any) any {
	switch v := v.(type) {
	case attributevalue.Number:
		return json.Number(v)
	case []attributevalue.Number:
		out := make([]json.Number, len(v))
		for i, n := range v {
			out[i] = json.Number(n)
		}
		return out
	case []any:
		for i, e := range v {
			v[i] = jsonNumbers(e)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = jsonNumbers(e)
		}
	}
	return v
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

func seconds(t time.Time) types.AttributeValue { return num(storekit.ExpirySeconds(t)) }

func millis(t time.Time) types.AttributeValue { return num(t.UnixMilli()) }
