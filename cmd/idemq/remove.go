package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/idemq/idemq/idem"
)

// forcedMeaning says what deleting a claim whose lease is live does.
const forcedMeaning = "a worker may be running the work of this claim now. Deleting it anyway (--force) means: " +
	"that worker's completion fails with lease lost and its result is dropped, " +
	"and the next delivery of the message runs the work again: a second provider call, billed again"

// verdict is what a command decides about a record it read: refused (and
// why), or what deleting it means.
type verdict struct {
	refused error
	meaning string
}

// remove is release and purge: read the record of the key, judge it,
// ask, and delete it fenced by what was read (idem.Admin's Delete), so
// that a record claimed, completed or renewed in between is left as it
// is and reported.
func (e *env) remove(ctx context.Context, fs *flag.FlagSet, args []string, verb string, judge func(rec idem.Record, now time.Time, force bool) verdict) int {
	force := fs.Bool("force", false, "delete even a claim whose lease is live (see what it means in the prompt)")
	kr, code, ok := e.readKey(ctx, fs, args)
	if !ok {
		return code
	}
	defer kr.close()
	st, key, rec, found := kr.st, kr.key, kr.rec, kr.found
	if !found {
		fmt.Fprintf(e.stderr, "%s: no record for key %s: nothing to %s\n", fs.Name(), escape(string(key)), verb)
		return exitFailed
	}
	now := e.now()
	v := viewOf(&e.settings, rec, now)
	out := e.stdout
	if e.json {
		out = e.stderr // stdout carries the JSON only
	}
	v.print(out)
	d := judge(rec, now, *force)
	if d.refused != nil {
		fmt.Fprintf(e.stderr, "%s: refused: %s\n", fs.Name(), escape(d.refused.Error()))
		return exitFailed
	}
	fmt.Fprintf(out, "\n%s\n", escape(d.meaning))
	if !confirm(&e.settings, e.stdin, out, fmt.Sprintf("%s key %s?", verb, escape(string(key)))) {
		fmt.Fprintf(out, "nothing changed\n")
		return exitFailed
	}
	if err := st.Delete(ctx, idem.DeletionOf(rec)); err != nil {
		if changed, ok := errors.AsType[*idem.RecordChangedError](err); ok {
			fmt.Fprintf(e.stderr, "%s: refused: the record changed after it was read (now %s), nothing was deleted; inspect it again\n",
				fs.Name(), describeChange(changed))
			return exitChanged
		}
		return e.fail(fs.Name(), err)
	}
	if e.json {
		writeJSON(e.stdout, struct {
			Action  string `json:"action"`
			Deleted view   `json:"deleted"`
		}{verb, v})
		return exitOK
	}
	fmt.Fprintf(out, "%sd: deleted the %s record of key %s (owner %s)\n", verb, escape(string(rec.Status)), escape(string(key)), escape(rec.Owner))
	return exitOK
}

// describeChange says what a fenced delete found.
func describeChange(c *idem.RecordChangedError) string {
	if c.Status == "" {
		return "gone"
	}
	return fmt.Sprintf("%s, owner %s", escape(string(c.Status)), escape(c.Owner))
}

// liveLease reports whether rec is an IN_PROGRESS claim whose lease has
// not passed at now, or that has no lease (held until it expires), and
// describes it.
func liveLease(rec idem.Record, now time.Time) (bool, string) {
	switch {
	case rec.Status != idem.StatusInProgress:
		return false, ""
	case rec.LeaseUntil.IsZero():
		return true, "it has no lease: it is held until the record expires"
	case rec.LeaseUntil.UnixMilli() >= now.UnixMilli():
		return true, fmt.Sprintf("its lease is live, %s left", left(rec.LeaseUntil.Sub(now)))
	}
	return false, fmt.Sprintf("its lease passed %s ago: the worker that claimed it stopped", left(now.Sub(rec.LeaseUntil)))
}
