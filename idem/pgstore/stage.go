package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/optkit"
)

// Write is a write staged for a completion: it runs in the transaction
// that completes the record, after the record's UPDATE applied, so the
// record and the write commit together or not at all. It must use tx (not
// the pool) and must not commit or roll it back.
type Write func(ctx context.Context, tx pgx.Tx) error

// stagedWrite is the type Stage hands to idem.Stage; only this store
// knows it.
type stagedWrite struct{ fn Write }

// Stage stages w to be committed with the result of the work running
// under ctx (an idem.Func run by idem.Do on a pgstore Store). It fails
// outside such a Func, or after it returned. A nil w is an
// *idem.ConfigError, and nothing is staged.
//
// A write may run more than once (a completion whose connection failed
// before COMMIT is sent again), but commits at most once, and only with
// the completion.
func Stage(ctx context.Context, w Write) error {
	if w == nil {
		return configError("w", "", optkit.ErrNil)
	}
	return idem.Stage(ctx, stagedWrite{fn: w})
}

// stagedWrites checks that every staged write is this store's.
func stagedWrites(ws []any) ([]Write, error) {
	out := make([]Write, 0, len(ws))
	for _, w := range ws {
		sw, ok := w.(stagedWrite)
		if !ok {
			return nil, fmt.Errorf("%w: pgstore takes writes staged with pgstore.Stage, not %T", idem.ErrUnsupportedWrite, w)
		}
		out = append(out, sw.fn)
	}
	return out, nil
}
