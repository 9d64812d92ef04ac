package memstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/internal/storekit"
)

// DefaultMaxResultBytes is the largest result a Store keeps unless told
// otherwise: DynamoDB's 400 KB item limit less 4 KiB for the key and the
// other attributes, so what fits here fits in the DynamoDB store.
const DefaultMaxResultBytes = 400*1024 - 4096

// ErrWriteFailed means a staged Write returned an error or panicked: the
// Complete it came with failed, leaving the record IN_PROGRESS and the
// store's data as they were.
var ErrWriteFailed = errors.New("memstore: staged write failed")

// Store is an idem.Store in process memory. The zero value is not usable;
// call New. It is safe for concurrent use.
type Store struct {
	mu        sync.Mutex
	records   map[idem.Key]idem.Record
	data      map[string][]byte // written by staged Writes
	maxResult int
}

// Config is a Store's settings, declared, defaulted and checked here as
// every idemq package does it (docs/options.md): a zero field is its
// default, a negative one is refused, the options only set fields, and
// WithConfig passes a Config whole. The zero value takes every default.
type Config struct {
	// MaxResultBytes is the largest result Complete accepts, counted as
	// stored (compressed, when idem.Do compressed it); a larger one fails
	// with idem.ErrResultTooLarge (and idem.Do then completes the record
	// without it). Defaults to DefaultMaxResultBytes.
	MaxResultBytes int
}

// Option changes a Config; New applies them in order over the zero
// Config. An option only sets a field: a value that cannot work is stored
// as given, and New refuses it.
type Option func(*Config)

// WithConfig sets the whole Config: options after it change its fields,
// and options before it are overwritten. Defaults to the zero Config,
// every field its default.
func WithConfig(cfg Config) Option { return func(c *Config) { *c = cfg } }

// WithMaxResultBytes sets Config.MaxResultBytes, the largest result
// Complete accepts. Defaults to DefaultMaxResultBytes.
func WithMaxResultBytes(n int) Option {
	return func(c *Config) { c.MaxResultBytes = n }
}

// Validate reports every setting of c that cannot work, each an
// *idem.ConfigError naming its field, joined (errors.Join); nil
// when there is none. It is the resolve step New runs, without its
// result.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and checks c.
func (c Config) resolve() (Config, error) {
	var err error
	if c.MaxResultBytes, err = optkit.ByteLimit("memstore", "MaxResultBytes", c.MaxResultBytes, DefaultMaxResultBytes); err != nil {
		return Config{}, err
	}
	return c, nil
}

// New returns an empty Store, or an error joining an *idem.ConfigError for
// every nil option and setting that cannot work (joined).
// It returns an error like every store's New, although only a bad option
// can make it fail, so that one shape serves every store (a test swaps one
// for another in one line).
func New(opts ...Option) (*Store, error) {
	c, optErr := optkit.ApplyOptions("memstore", opts)
	c, err := c.resolve()
	if err := errors.Join(optErr, err); err != nil {
		return nil, err
	}
	return &Store{records: make(map[idem.Key]idem.Record), data: make(map[string][]byte), maxResult: c.MaxResultBytes}, nil
}

// Claim implements idem.Store.
func (s *Store) Claim(ctx context.Context, req idem.ClaimRequest) (idem.Claim, error) {
	if err := ctx.Err(); err != nil {
		return idem.Claim{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, exists := s.records[req.Key]
	if exists && old.Status == idem.StatusInProgress && old.Owner == req.Owner {
		return idem.Claim{Claimed: true}, nil // a retry of this claim
	}
	if exists && !old.Claimable(req.Now) {
		return idem.Claim{Record: clone(old)}, nil
	}
	s.records[req.Key] = idem.Record{
		Key:         req.Key,
		Status:      idem.StatusInProgress,
		LeaseUntil:  req.LeaseUntil.Truncate(time.Millisecond),
		ExpiresAt:   time.Unix(storekit.ExpirySeconds(req.ExpiresAt), 0),
		Fingerprint: req.Fingerprint,
		Owner:       req.Owner,
	}
	c := idem.Claim{Claimed: true}
	if exists {
		prev := clone(old)
		c.Previous = &prev
	}
	return c, nil
}

// Complete implements idem.Store.
func (s *Store) Complete(ctx context.Context, c idem.Completion) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	result, encoding, omitted := c.Result, c.Encoding, max(c.OmittedBytes, 0)
	if omitted > 0 {
		result, encoding = nil, storekit.EncodingRaw // completed without its result
	} else if len(result) > s.maxResult {
		return fmt.Errorf("%w: %d bytes, the limit is %d", idem.ErrResultTooLarge, len(result), s.maxResult)
	}
	writes := make([]Write, len(c.Writes))
	for i, w := range c.Writes {
		fn, ok := w.(Write)
		if !ok {
			return fmt.Errorf("%w: memstore takes memstore.Write, not %T", idem.ErrUnsupportedWrite, w)
		}
		writes[i] = fn
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec, ok := s.records[c.Key]; ok && rec.Status == idem.StatusCompleted && rec.Owner == c.Owner &&
		rec.OmittedBytes == omitted && rec.Encoding == encoding && bytes.Equal(rec.Result, result) {
		return nil // a retry of this completion
	}
	rec, err := s.owned(c.Key, c.Owner)
	if err != nil {
		return err
	}
	// The writes first, into a Tx: the record flips and their changes
	// apply only if every one succeeded.
	tx := &Tx{data: s.data}
	for i, w := range writes {
		if err := tx.run(w); err != nil {
			return fmt.Errorf("%w: write %d of %d: %w", ErrWriteFailed, i+1, len(writes), err)
		}
	}
	tx.commit()
	rec.Status = idem.StatusCompleted
	rec.LeaseUntil = time.Time{}
	rec.ExpiresAt = time.Unix(storekit.ExpirySeconds(c.ExpiresAt), 0)
	rec.Result, rec.Encoding, rec.OmittedBytes = nil, encoding, omitted
	if omitted == 0 {
		rec.Result = append([]byte{}, result...)
	}
	s.records[c.Key] = rec
	return nil
}

// Release implements idem.Store.
func (s *Store) Release(ctx context.Context, key idem.Key, owner string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.owned(key, owner); err != nil {
		return err
	}
	delete(s.records, key)
	return nil
}

// Extend implements idem.Store.
func (s *Store) Extend(ctx context.Context, e idem.Extension) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.owned(e.Key, e.Owner)
	if err != nil {
		return err
	}
	rec.LeaseUntil = e.LeaseUntil.Truncate(time.Millisecond)
	if !e.ExpiresAt.IsZero() {
		rec.ExpiresAt = time.Unix(storekit.ExpirySeconds(e.ExpiresAt), 0)
	}
	s.records[e.Key] = rec
	return nil
}

// Get returns the record for key as stored, expired or not, as every
// store's Get does (idemtest.Getter); ok is false when there is none. It
// fails only when ctx has ended.
func (s *Store) Get(ctx context.Context, key idem.Key) (rec idem.Record, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return idem.Record{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok = s.records[key]
	return clone(rec), ok, nil
}

// Value returns the value a staged Write put at key.
func (s *Store) Value(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.data[key]
	return bytes.Clone(v), ok
}

// Len returns the number of records, expired ones included.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.records)
}

// owned returns the IN_PROGRESS record of key if owner holds it. The caller
// holds s.mu.
func (s *Store) owned(key idem.Key, owner string) (idem.Record, error) {
	rec, ok := s.records[key]
	if !ok {
		return idem.Record{}, &idem.LeaseLostError{Owner: owner}
	}
	if rec.Owner != owner || rec.Status != idem.StatusInProgress {
		return idem.Record{}, &idem.LeaseLostError{Status: rec.Status, Holder: rec.Owner, Owner: owner}
	}
	return rec, nil
}

func clone(r idem.Record) idem.Record {
	if r.Result != nil {
		r.Result = append([]byte{}, r.Result...)
	}
	return r
}
