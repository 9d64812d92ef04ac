package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/idemq/idemq/idem"
)

// runRelease deletes an IN_PROGRESS record, so that the next delivery of
// its message claims the key and runs the work. A claim whose lease is
// live is refused unless --force.
func runRelease(ctx context.Context, e *env, fs *flag.FlagSet, args []string) int {
	return e.remove(ctx, fs, args, "release", func(rec idem.Record, now time.Time, force bool) verdict {
		if rec.Status != idem.StatusInProgress {
			return verdict{refused: fmt.Errorf("the record is %s: release frees IN_PROGRESS claims only; purge deletes a completed record (and the next delivery then runs the work again)", rec.Status)}
		}
		live, why := liveLease(rec, now)
		switch {
		case live && !force:
			return verdict{refused: errors.New(why + ": " + forcedMeaning)}
		case live:
			return verdict{meaning: "Release: " + why + "; " + forcedMeaning + "."}
		}
		return verdict{meaning: "Release: " + why + ". The next delivery would take the key over anyway; " +
			"releasing deletes the claim now, and the next delivery claims the key and runs the work."}
	})
}
