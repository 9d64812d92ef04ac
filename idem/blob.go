package idem

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/idemq/idemq/internal/storekit"
)

// blobPointer is the Result of a record in storekit.EncodingBlob.
type blobPointer struct {
	Name     string `json:"name"`
	Size     int    `json:"size"`
	SHA256   string `json:"sha256"`
	Encoding string `json:"encoding,omitempty"`
}

// blobName is the object name of the result of the claim owner made on
// key: the key's SHA-256 (any key, any length, makes a safe name) and the
// owner token, so no two executions, a stale one and the winner, ever
// write the same object.
func blobName(key Key, owner string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:]) + "/" + owner
}

// offload puts stored (in encoding) in c.Blobs when it is longer than
// c.OffloadAbove, and returns what the completion is to hold: the pointer
// in storekit.EncodingBlob, or stored and encoding themselves. c is resolved.
func (c *Config) offload(ctx context.Context, key Key, owner string, stored []byte, encoding string) ([]byte, string, error) {
	if c.Blobs == nil || len(stored) <= c.OffloadAbove {
		return stored, encoding, nil
	}
	sum := sha256.Sum256(stored)
	p := blobPointer{Name: blobName(key, owner), Size: len(stored), SHA256: hex.EncodeToString(sum[:]), Encoding: encoding}
	if err := c.Blobs.Put(ctx, p.Name, stored); err != nil {
		return nil, "", &Error{Op: OpOffload, Key: key, Err: err}
	}
	ptr, err := json.Marshal(p)
	if err != nil {
		return nil, "", &Error{Op: OpOffload, Key: key, Err: err}
	}
	return ptr, storekit.EncodingBlob, nil
}

// replay returns the result rec holds as the work returned it, reading it
// from c.Blobs when it was offloaded, at most the pointer's size: an object
// that is missing, longer than the pointer says (ErrBlobTooLarge), or whose
// size or SHA-256 is not the pointer's, is ErrUnreadableResult, never an
// empty or truncated result. c is resolved.
func (c *Config) replay(ctx context.Context, rec *Record) ([]byte, error) {
	if rec.Encoding != storekit.EncodingBlob {
		return decode(rec, c.MaxDecodedBytes)
	}
	var p blobPointer
	if err := json.Unmarshal(rec.Result, &p); err != nil || p.Name == "" || p.Size < 0 {
		return nil, fmt.Errorf("%w: a blob pointer that cannot be read (%d bytes)", ErrUnreadableResult, len(rec.Result))
	}
	if c.Blobs == nil {
		return nil, fmt.Errorf("%w: the result is in blob %s and no blob store is configured (Config.Blobs)", ErrUnreadableResult, p.Name)
	}
	data, err := c.Blobs.Get(ctx, p.Name, p.Size)
	switch {
	case errors.Is(err, ErrBlobMissing), errors.Is(err, ErrBlobTooLarge):
		return nil, fmt.Errorf("%w: blob %s: %w", ErrUnreadableResult, p.Name, err)
	case err != nil:
		// Not an answer about the object (the blob store may be
		// unreachable): the replay fails, and a retry may read it.
		return nil, fmt.Errorf("blob %s: %w", p.Name, err)
	}
	sum := sha256.Sum256(data)
	if len(data) != p.Size || hex.EncodeToString(sum[:]) != p.SHA256 {
		return nil, fmt.Errorf("%w: blob %s holds %d bytes of SHA-256 %x, not the %d bytes of SHA-256 %s recorded", ErrUnreadableResult, p.Name, len(data), sum, p.Size, p.SHA256)
	}
	if p.Encoding == storekit.EncodingBlob {
		return nil, fmt.Errorf("%w: blob %s points to another blob", ErrUnreadableResult, p.Name)
	}
	return decode(&Record{Result: data, Encoding: p.Encoding}, c.MaxDecodedBytes)
}
