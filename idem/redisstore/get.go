package redisstore

import (
	"context"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// Get returns the record of key as stored, and whether there is one (a
// record past its expiry that Redis has not yet removed included). It is a
// plain read, for tools and tests: claims never read first.
func (s *Store) Get(ctx context.Context, key idem.Key) (idem.Record, bool, error) {
	h, err := s.client.HGetAll(ctx, s.Key(key)).Result()
	if err != nil {
		return idem.Record{}, false, s.fail(storekit.OpGet, key, err)
	}
	if len(h) == 0 {
		return idem.Record{}, false, nil
	}
	rec, err := decode(key, h)
	if err != nil {
		return idem.Record{}, false, s.fail(storekit.OpGet, key, err)
	}
	return rec, true, nil
}
