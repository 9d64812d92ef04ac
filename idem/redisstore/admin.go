package redisstore

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

var _ idem.Admin = (*Store)(nil)

// scanCount is the COUNT hint of List's SCANs: about how many keys of
// the server each one visits.
const scanCount = 1000

// ErrBadCursor means a List cursor is not one List returned.
var ErrBadCursor = errors.New("redisstore: not a cursor of this store's List")

// ErrOneServer means List was asked of a store whose client spreads keys
// over several servers (a *redis.ClusterClient or *redis.Ring): SCAN
// reads one server's keys, so a listing would miss the others'.
var ErrOneServer = errors.New("redisstore: List scans one server's keys")

// getAllScript reads the hashes of KEYS, each as HGETALL lists it (an
// empty list for a key gone since it was scanned), or 'WRONGTYPE' for a
// key that is not a hash.
var getAllScript = redis.NewScript(`
local out = {}
for i, k in ipairs(KEYS) do
	local h = redis.pcall('HGETALL', k)
	if type(h) == 'table' and h.err then out[i] = 'WRONGTYPE' else out[i] = h end
end
return out
`)

// deleteScript deletes KEYS[1] if its status, owner and lease are ARGV
// (the owner and lease "" for none): {1}; otherwise {0, status, owner,
// lease} of what it holds.
var deleteScript = redis.NewScript(`
local st = redis.call('HMGET', KEYS[1], 'status', 'owner', 'in_progress_expiration')
if st[1] == ARGV[1] and (st[2] or '') == ARGV[2] and (st[3] or '') == ARGV[3] then
	redis.call('DEL', KEYS[1])
	return {1}
end
return {0, st[1], st[2], st[3]}
`)

// List implements idem.Admin with SCAN over the store's prefix (MATCH
// prefix*), reading the records found with one script per SCAN. A page
// cut inside a SCAN batch resumes in that batch after the last key it
// listed: the cursor is SCAN's cursor of the batch and that key, and a
// batch is read in key order, so a batch that SCAN returns in another
// order, or with keys added or gone, is resumed where the page ended. As
// SCAN does, it lists every record that stays the whole time at least
// once, and may list one twice. A client of several servers (a
// *redis.ClusterClient or *redis.Ring) is ErrOneServer.
func (s *Store) List(ctx context.Context, req idem.ListRequest) (idem.ListPage, error) {
	limit, err := req.PageLimit("redisstore")
	if err != nil {
		return idem.ListPage{}, err
	}
	switch s.client.(type) {
	case *redis.ClusterClient, *redis.Ring:
		return idem.ListPage{}, &idem.Error{Op: storekit.OpList, Err: fmt.Errorf("%w: a %T spreads them over several", ErrOneServer, s.client)}
	}
	cursor, after, err := parseCursor(req.Cursor)
	if err != nil {
		return idem.ListPage{}, &idem.Error{Op: storekit.OpList, Err: err}
	}
	pattern := globEscaper.Replace(s.prefix) + "*"
	var page idem.ListPage
	for {
		found, next, err := s.client.Scan(ctx, cursor, pattern, int64(max(limit, scanCount))).Result()
		if err != nil {
			return idem.ListPage{}, s.fail(storekit.OpList, "", err)
		}
		keys := unique(found)
		slices.Sort(keys)
		if after != "" {
			keys = keys[sort.SearchStrings(keys, after+"\x00"):] // the keys after it
		}
		if len(keys) > 0 {
			recs, err := s.getAll(ctx, keys)
			if err != nil {
				return idem.ListPage{}, err
			}
			for i, rec := range recs {
				if rec == nil || !req.Selects(*rec) {
					continue
				}
				if len(page.Records) == limit {
					last := after // the last key this page read
					if i > 0 {
						last = keys[i-1]
					}
					page.Next = formatCursor(cursor, last)
					return page, nil
				}
				page.Records = append(page.Records, *rec)
			}
		}
		if next == 0 {
			return page, nil
		}
		cursor, after = next, ""
		if len(page.Records) == limit {
			page.Next = formatCursor(cursor, "")
			return page, nil
		}
	}
}

// getAll reads the records of the Redis keys, nil for one gone.
func (s *Store) getAll(ctx context.Context, keys []string) ([]*idem.Record, error) {
	reply, err := getAllScript.Run(ctx, s.client, keys).Slice()
	if err != nil {
		return nil, s.fail(storekit.OpList, "", err)
	}
	recs := make([]*idem.Record, len(keys))
	for i, r := range reply {
		key := idem.Key(strings.TrimPrefix(keys[i], s.prefix))
		if r == "WRONGTYPE" {
			return nil, &idem.Error{Op: storekit.OpList, Key: key, Err: fmt.Errorf("%w: %s is not a hash", ErrKeySpace, keys[i])}
		}
		rec, err := decodeFields(key, r)
		if err != nil {
			return nil, &idem.Error{Op: storekit.OpList, Key: key, Err: err}
		}
		recs[i] = rec
	}
	return recs, nil
}

// globEscaper escapes the characters SCAN's MATCH reads as a pattern.
var globEscaper = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)

// unique drops the keys a SCAN returned twice.
func unique(keys []string) []string {
	seen := make(map[string]bool, len(keys))
	out := keys[:0]
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// formatCursor is the cursor of a page that ends in SCAN's batch at
// cursor after key after ("": at the batch's start): "cursor" or
// "cursor:" and the key in unpadded base64url.
func formatCursor(cursor uint64, after string) string {
	if after == "" {
		return strconv.FormatUint(cursor, 10)
	}
	return strconv.FormatUint(cursor, 10) + ":" + base64.RawURLEncoding.EncodeToString([]byte(after))
}

// parseCursor reads a cursor of List (formatCursor); "" is the start.
func parseCursor(c string) (cursor uint64, after string, err error) {
	if c == "" {
		return 0, "", nil
	}
	a, b, hasKey := strings.Cut(c, ":")
	cursor, err = strconv.ParseUint(a, 10, 64)
	if err == nil && hasKey {
		var k []byte
		k, err = base64.RawURLEncoding.DecodeString(b)
		after = string(k)
		if err == nil && after == "" {
			err = errors.New("no key")
		}
	}
	if err != nil || (cursor == 0 && after == "") {
		return 0, "", fmt.Errorf("%w: %q", ErrBadCursor, c)
	}
	return cursor, after, nil
}

// Delete implements idem.Admin with one script that deletes the record
// if its status, owner and lease are those read.
func (s *Store) Delete(ctx context.Context, d idem.Deletion) error {
	if d.Key == "" {
		return &idem.Error{Op: storekit.OpDelete, Err: idem.ErrNoKey}
	}
	lease := ""
	if !d.LeaseUntil.IsZero() {
		lease = strconv.FormatInt(d.LeaseUntil.UnixMilli(), 10)
	}
	reply, err := deleteScript.Run(ctx, s.client, []string{s.Key(d.Key)}, string(d.Status), d.Owner, lease).Slice()
	if err != nil {
		return s.fail(storekit.OpDelete, d.Key, err)
	}
	if code, _ := reply[0].(int64); code == 1 {
		return nil
	}
	changed := &idem.RecordChangedError{Key: d.Key}
	if len(reply) == 4 {
		status, _ := reply[1].(string)
		changed.Status = idem.Status(status)
		changed.Owner, _ = reply[2].(string)
		if ms, _ := reply[3].(string); ms != "" {
			if n, err := strconv.ParseInt(ms, 10, 64); err == nil {
				changed.LeaseUntil = time.UnixMilli(n)
			}
		}
	}
	return &idem.Error{Op: storekit.OpDelete, Key: d.Key, Err: changed}
}
