package sim

import (
	"fmt"

	"github.com/idemq/idemq/idem"
)

// newExec starts the execution of a claim request by wk.
func (w *world) newExec(wk *worker, req idem.ClaimRequest) *exec {
	ex := &exec{n: len(w.execs) + 1, key: w.keyOf[req.Key], owner: req.Owner}
	w.execs = append(w.execs, ex)
	w.byOwner[req.Owner] = ex
	wk.batch.claims[ex.key] = ex
	return ex
}

// allow lets ex's key reach the provider once more, for the reason why:
// ex called the provider and its result will not be stored.
func (w *world) allow(ex *exec, why string) {
	if ex.allowance != "" {
		return
	}
	ex.allowance = why
	w.allowances[ex.key] = append(w.allowances[ex.key], ex)
	w.logf("%s: %s; %s may reach the provider again", ex, why, ex.key)
}

// describe says what a record holds, naming owners by their executions.
func (w *world) describe(rec idem.Record, ok bool) string {
	if !ok {
		return "absent"
	}
	who := "an unknown owner"
	if x := w.byOwner[rec.Owner]; x != nil {
		who = x.String()
	}
	if rec.Status == idem.StatusCompleted {
		return fmt.Sprintf("COMPLETED by %s with %q", who, rec.Result)
	}
	return fmt.Sprintf("%s by %s until %s", rec.Status, who, rec.LeaseUntil.Format(clockFormat))
}
