package idem

import (
	"context"
	"errors"
)

// Blobs is a store for large results beside a record store (Config.Blobs):
// Do puts a result above Config.OffloadAbove there and completes the record
// with a pointer to it. Objects are never overwritten or deleted by Do:
// each name is unique to the execution that writes it, and the blob
// store's own rule (an S3 lifecycle rule, say) expires them, no sooner
// than the records (Config.Expiry). idem/s3blob keeps them in S3.
type Blobs interface {
	// Put stores data under name. Putting the same data under the same
	// name again (a retry whose first answer was lost) must succeed.
	Put(ctx context.Context, name string, data []byte) error
	// Get returns the data stored under name, or an error wrapping
	// ErrBlobMissing when there is none. size is the length Put stored
	// there, as the record's pointer says: Get reads at most size bytes,
	// and an object longer than that (or than a cap of the blob store's
	// own) is an error wrapping ErrBlobTooLarge, so a replay never reads an
	// unbounded object into memory. A shorter object is returned as it is:
	// Do checks its size and SHA-256.
	Get(ctx context.Context, name string, size int) ([]byte, error)
}

// ErrBlobMissing means a blob store holds no object of the name asked for.
// A replay whose object is missing fails with ErrUnreadableResult too.
var ErrBlobMissing = errors.New("idem: blob not found")

// ErrBlobTooLarge means a blob store holds an object longer than the size
// asked for (the record's pointer), or than the most it reads. A replay
// whose object is too large fails with ErrUnreadableResult too; a blob
// store that refuses to Put data over its cap wraps ErrResultTooLarge
// instead, so Do completes the key without the result.
var ErrBlobTooLarge = errors.New("idem: blob larger than expected")
