package idem

import "context"

// StoredResult returns the result rec, a COMPLETED record read with a
// store's Get, holds as the work returned it, exactly as Do replays it:
// decompressed, and, for a result offloaded to Config.Blobs, read from the
// blob store and checked against its pointer. A result that cannot be
// read is ErrUnreadableResult, never an empty or truncated one; a blob
// store that cannot be reached is its own error. A record completed
// without its result (OmittedBytes), or one that is not COMPLETED, holds
// none: nil. It is for code that answers from another's records (an HTTP
// front door's status reads), with the Config of the code that wrote them.
func (c Config) StoredResult(ctx context.Context, rec Record) ([]byte, error) {
	if rec.Status != StatusCompleted || rec.OmittedBytes > 0 {
		return nil, nil
	}
	c, err := c.resolve()
	if err != nil {
		return nil, err
	}
	return c.replay(ctx, &rec)
}
