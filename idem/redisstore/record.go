package redisstore

import (
	"fmt"
	"strconv"
	"time"

	"github.com/idemq/idemq/idem"
)

// decodeFields reads a record from the hash's fields, as HGETALL lists
// them (name, value, name, value…) in a script's reply.
func decodeFields(key idem.Key, reply any) (*idem.Record, error) {
	list, ok := reply.([]any)
	if !ok || len(list)%2 != 0 {
		return nil, fmt.Errorf("%w: the script returned %T", ErrKeySpace, reply)
	}
	if len(list) == 0 {
		return nil, nil
	}
	h := make(map[string]string, len(list)/2)
	for i := 0; i < len(list); i += 2 {
		name, _ := list[i].(string)
		value, _ := list[i+1].(string)
		h[name] = value
	}
	rec, err := decode(key, h)
	return &rec, err
}

// decode reads a record from the hash's fields: the expiry from epoch
// seconds, the lease from epoch milliseconds. A hash the store did not
// write is ErrKeySpace.
func decode(key idem.Key, h map[string]string) (idem.Record, error) {
	rec := idem.Record{
		Key:         key,
		Status:      idem.Status(h["status"]),
		Owner:       h["owner"],
		Fingerprint: h["validation"],
		Encoding:    h["data_encoding"],
	}
	if rec.Status != idem.StatusInProgress && rec.Status != idem.StatusCompleted {
		return rec, fmt.Errorf("%w: the record has an unknown status %q", ErrKeySpace, rec.Status)
	}
	exp, err := number(h, "expiration", true)
	if err != nil {
		return rec, err
	}
	rec.ExpiresAt = time.Unix(exp, 0)
	if lease, err := number(h, "in_progress_expiration", false); err != nil {
		return rec, err
	} else if lease != 0 {
		rec.LeaseUntil = time.UnixMilli(lease)
	}
	omitted, err := number(h, "result_omitted_bytes", false)
	if err != nil {
		return rec, err
	}
	rec.OmittedBytes = int(omitted)
	if data, ok := h["data"]; ok {
		rec.Result = []byte(data)
	} else if rec.Status == idem.StatusCompleted && rec.OmittedBytes == 0 {
		rec.Result = []byte{}
	}
	return rec, nil
}

func number(h map[string]string, field string, required bool) (int64, error) {
	v, ok := h[field]
	if !ok {
		if required {
			return 0, fmt.Errorf("%w: the record has no field %q", ErrKeySpace, field)
		}
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: field %q is %q, want an integer", ErrKeySpace, field, v)
	}
	return n, nil
}
