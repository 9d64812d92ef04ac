package linearize

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
)

// History is what Record recorded: every operation of a run, with its
// call and return on one clock, and the Report of the run. Check checks
// it.
type History struct {
	Report Report

	name        string
	start, end  int64 // true time (ns); operations with no answer return at end
	ops         []porcupine.Operation
	annotations []porcupine.Annotation
	pictureDir  string
	timeout     time.Duration
}

// Record drives s as cfg says (see Linearizable) and returns the history
// it recorded, unchecked, for Check. Its error says why a restart
// (Config.Restart) failed; the history is whole even then.
func Record(s idem.Store, cfg Config) (*History, error) {
	cfg = cfg.resolve()
	seed := cfg.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	now := time.Now()
	rec := &recorder{start: now, startNs: now.UnixNano(), faults: cfg.Faults}
	cfg.Faults.start(seed)
	run := &runner{cfg: cfg, store: s, rec: rec, name: "lin-" + idem.NewOwner()[:8], seed: seed}
	getter, _ := s.(idemtest.Getter)
	run.getter = getter
	run.keys = newKeyPool(run.name, cfg.Keys)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	restarts := 0
	if cfg.Restart != nil {
		wg.Go(func() { restarts = run.restarts(ctx) })
	}
	var clients sync.WaitGroup
	for i := range cfg.Clients {
		c := run.newClient(i)
		clients.Go(func() { c.loop(ctx) })
	}
	clients.Wait()
	cancel()
	wg.Wait()
	ran := time.Since(now)

	h := &History{name: cfg.Name, start: rec.startNs, pictureDir: cfg.PictureDir, timeout: cfg.CheckTimeout}
	h.Report = run.report(restarts, ran)
	h.ops, h.annotations, h.Report.Resent, h.end = rec.history(run)
	if err := run.restartErr.Load(); err != nil {
		return h, fmt.Errorf("linearize: restarting the server: %w", *err)
	}
	return h, nil
}

// history turns the recorded operations into porcupine's: an operation
// with no answer returns after the last one; each answer lost and sent
// again adds its first send, as a ghost over the same span.
func (r *recorder) history(run *runner) (ops []porcupine.Operation, notes []porcupine.Annotation, resent int, end int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	end = r.now()
	for _, op := range r.ops {
		end = max(end, op.ret)
	}
	end++
	add := func(op *liveOp, in linInput, out linOutput) {
		ret := op.ret
		if ret == 0 {
			ret = end
		}
		in.Return = ret
		ops = append(ops, porcupine.Operation{ClientId: in.Client, Input: in, Call: op.call, Output: out, Return: ret})
	}
	for _, op := range r.ops {
		add(op, op.in, op.out)
		ghosts := r.faults.lostOf(op) + op.resent
		if ghosts > 0 {
			resent++
		}
		for range ghosts {
			ghost := op.in
			ghost.Ghost = true
			add(op, ghost, linOutput{Unknown: true})
		}
	}
	for i, off := range run.offsets {
		r.annotations = append(r.annotations, porcupine.Annotation{ClientId: i, Start: r.startNs,
			Description: fmt.Sprintf("clock %+v", off), Details: fmt.Sprintf("client %d's clock is %s off the true time", i, off)})
	}
	return ops, r.annotations, resent, end
}

// ErrNotLinearizable is what Check returns, in a *LinearizationError,
// for a history that no order of its operations explains.
var ErrNotLinearizable = errors.New("linearize: the history is not linearizable")

// LinearizationError is a history that is not linearizable, with the
// pictures of it that were written (each with a .txt beside it: Keys).
type LinearizationError struct {
	Report   Report
	Pictures []string
	// Keys lists the operations of each key whose history fails, in the
	// order of their calls.
	Keys string
}

func (e *LinearizationError) Error() string {
	keys := e.Keys
	if len(keys) > 4000 {
		keys = keys[:4000] + "…"
	}
	return fmt.Sprintf("%s: %s; picture: %v\n%s", ErrNotLinearizable, e.Report, e.Pictures, keys)
}

// Unwrap returns ErrNotLinearizable.
func (e *LinearizationError) Unwrap() error { return ErrNotLinearizable }

// Check checks the history against the model of a key's record. It
// returns nil when it is linearizable; a *LinearizationError (with
// ErrNotLinearizable) when it is not, after writing its picture,
// porcupine's HTML visualization, into Config.PictureDir (each
// directory of the list; Linearizable adds the test's artifact
// directory); and an error saying so when the check did not end within
// Config.CheckTimeout. Report says what was found.
func (h *History) Check() error {
	model := recordModel(h.start)
	began := time.Now()
	result, info := porcupine.CheckOperationsVerbose(model, h.ops, h.timeout)
	h.Report.Checked = time.Since(began)
	switch result {
	case porcupine.Ok:
		h.Report.Verdict = "linearizable"
		return nil
	case porcupine.Unknown:
		h.Report.Verdict = "not checked"
		return fmt.Errorf("linearize: the check of %d operations did not end within %s: %s", len(h.ops), h.timeout, h.Report)
	}
	h.Report.Verdict = "not linearizable"
	// The picture holds the keys whose histories fail (the first
	// pictureKeys of them), not every key: it stays small enough to open.
	failing, failingOps := h.failingKeys(model)
	if _, only := porcupine.CheckOperationsVerbose(model, failingOps, h.timeout); len(failingOps) > 0 {
		info = only
	}
	info.AddAnnotations(h.annotations)
	var pictures []string
	var errs []error
	for _, dir := range filepath.SplitList(h.pictureDir) {
		if dir == "" {
			continue
		}
		path := filepath.Join(dir, pictureName(h.name))
		err := os.MkdirAll(dir, 0o755)
		if err == nil {
			err = porcupine.VisualizePath(model, info, path)
		}
		if err == nil {
			err = os.WriteFile(strings.TrimSuffix(path, ".html")+".txt", []byte(failing), 0o644)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("linearize: the picture: %w", err))
			continue
		}
		pictures = append(pictures, path)
	}
	if len(pictures) > 0 {
		h.Report.Picture = pictures[len(pictures)-1]
	}
	return errors.Join(append(errs, &LinearizationError{Report: h.Report, Pictures: pictures, Keys: failing})...)
}

// pictureKeys is how many failing keys a picture shows at most.
const pictureKeys = 20

// failingKeys checks each key's history alone and describes the
// operations of those that fail, in the order of their calls, times
// counted from the run's start; it returns the operations of the first
// pictureKeys of them too.
func (h *History) failingKeys(model porcupine.Model) (string, []porcupine.Operation) {
	var b strings.Builder
	var ops []porcupine.Operation
	keys := 0
	for _, part := range model.Partition(h.ops) {
		if porcupine.CheckOperationsTimeout(model, part, h.timeout) != porcupine.Illegal {
			continue
		}
		if keys++; keys <= pictureKeys {
			ops = append(ops, part...)
		}
		part = slices.Clone(part)
		slices.SortFunc(part, func(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) })
		fmt.Fprintf(&b, "key %s, %d operations:\n", part[0].Input.(linInput).Key, len(part))
		for _, op := range part {
			ret := "never"
			if op.Return < h.end {
				ret = since(h.start, op.Return)
			}
			fmt.Fprintf(&b, "  [%s, %s] %s\n", since(h.start, op.Call), ret, describeOp(h.start, op.Input.(linInput), op.Output.(linOutput)))
		}
	}
	return b.String(), ops
}

// pictureName is the file a test's picture is written to.
func pictureName(test string) string {
	b := []byte("linearize-" + test)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b) + ".html"
}
