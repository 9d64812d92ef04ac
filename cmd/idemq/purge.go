package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/idemq/idemq/idem"
)

// runPurge deletes a record whatever its status. A claim whose lease is
// live needs --force, as release does.
func runPurge(ctx context.Context, e *env, fs *flag.FlagSet, args []string) int {
	return e.remove(ctx, fs, args, "purge", func(rec idem.Record, now time.Time, force bool) verdict {
		live, why := liveLease(rec, now)
		switch {
		case live && !force:
			return verdict{refused: errors.New(why + ": " + forcedMeaning)}
		case live:
			return verdict{meaning: "Purge: " + why + "; " + forcedMeaning + "."}
		case rec.Status == idem.StatusInProgress:
			return verdict{meaning: "Purge: " + why + ". The next delivery claims the key and runs the work."}
		}
		meaning := "Purge: the key's result is deleted with its record: the next delivery of this key runs the work again " +
			"(a second provider call, billed again) instead of replaying the stored result."
		if blob, ok := rec.Blob(); ok {
			meaning += fmt.Sprintf(" The offloaded result object (%s) is not deleted: the bucket's lifecycle rule expires it.", blob.Name)
		}
		return verdict{meaning: meaning}
	})
}
