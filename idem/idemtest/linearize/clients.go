package linearize

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/internal/storekit"
)

// runner is one history's run: its settings, the store, the clients'
// shared state and counts.
type runner struct {
	cfg     Config
	store   idem.Store
	getter  idemtest.Getter
	rec     *recorder
	name    string
	seed    uint64
	keys    *keyPool
	offsets []time.Duration

	issued                                     atomic.Int64
	byKind                                     [opGet + 1]atomic.Int64
	noAnswer, resent, lostHere, timeouts       atomic.Int64
	pauses, pausedRefused, takeOvers, reclaims atomic.Int64
	restartErr                                 atomic.Pointer[error]
}

// A key serves at most picksPerKey rounds, and claimsPerKey claims,
// before a fresh one replaces it, so that each key's history stays short.
const (
	picksPerKey  = 150
	claimsPerKey = 6
)

// keyPool is the keys in play, and the retired keys whose completed
// records expire soon, to be claimed again once they have.
type keyPool struct {
	mu     sync.Mutex
	name   string
	slots  []idem.Key
	uses   []int
	claims []int
	made   int
	later  []revisit
}

type revisit struct {
	key idem.Key
	at  time.Time
}

func newKeyPool(name string, n int) *keyPool {
	p := &keyPool{name: name, slots: make([]idem.Key, n), uses: make([]int, n), claims: make([]int, n)}
	for i := range p.slots {
		p.slots[i] = p.fresh()
	}
	return p
}

func (p *keyPool) fresh() idem.Key {
	p.made++
	return idem.Key(fmt.Sprintf("%s#%d", p.name, p.made))
}

func (p *keyPool) pick(rng *rand.Rand) idem.Key {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.later) > 0 && time.Now().After(p.later[0].at) {
		k := p.later[0].key
		p.later = p.later[1:]
		return k
	}
	i := rng.IntN(len(p.slots))
	if p.uses[i]++; p.uses[i] > picksPerKey {
		p.slots[i], p.uses[i], p.claims[i] = p.fresh(), 1, 0
	}
	return p.slots[i]
}

// claimed counts a claim of key, and retires the key after claimsPerKey.
func (p *keyPool) claimed(key idem.Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, k := range p.slots {
		if k == key {
			if p.claims[i]++; p.claims[i] >= claimsPerKey {
				p.slots[i], p.uses[i], p.claims[i] = p.fresh(), 0, 0
			}
		}
	}
}

// retire replaces key, if it is still in play, by a fresh one; with a
// revisit time, the key comes back once then (its record expired).
func (p *keyPool) retire(key idem.Key, revisitAt time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, k := range p.slots {
		if k == key {
			p.slots[i], p.uses[i], p.claims[i] = p.fresh(), 0, 0
			if !revisitAt.IsZero() {
				p.later = append(p.later, revisit{key, revisitAt})
			}
		}
	}
}

func (p *keyPool) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.made
}

// client is one worker: its clock's offset from the truth, its choices.
type client struct {
	run    *runner
	id     int
	offset time.Duration
	rng    *rand.Rand
}

func (r *runner) newClient(i int) *client {
	off := time.Duration(0)
	if n := r.cfg.Clients; n > 1 {
		off = -r.cfg.ClockOffset + time.Duration(int64(2*r.cfg.ClockOffset)*int64(i)/int64(n-1))
	}
	r.offsets = append(r.offsets, off)
	return &client{run: r, id: i, offset: off, rng: rand.New(rand.NewPCG(r.seed, uint64(i)+1))}
}

func (c *client) loop(ctx context.Context) {
	for c.run.issued.Load() < int64(c.run.cfg.Operations) && ctx.Err() == nil {
		c.round(ctx)
	}
}

// clock reads the client's clock: the true time it was read at (ns) and
// the time it says.
func (c *client) clock() (int64, time.Time) {
	readAt := c.run.rec.now()
	return readAt, time.Unix(0, readAt+int64(c.offset))
}

// config is the idem.Config the client's requests are made with.
func (c *client) config(expiry time.Duration) idem.Config {
	return idem.Config{ClockSkew: c.run.cfg.ClockSkew, Expiry: expiry}
}

func (c *client) sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// expiry is a claim's record expiry: mostly long; often a second or two,
// so that completed records expire and are claimed again.
func (c *client) expiry() time.Duration {
	switch c.rng.IntN(4) {
	case 0:
		return time.Second
	case 1:
		return 2 * time.Second
	}
	return time.Hour
}

// round is one go at a key: claim it; if claimed, work, perhaps extend,
// then complete or release, sometimes after a pause past the lease,
// sometimes with a stray write after.
func (c *client) round(ctx context.Context) {
	cfg := c.run.cfg
	key := c.run.keys.pick(c.rng)
	if c.run.getter != nil && c.rng.IntN(10) == 0 {
		c.get(ctx, key)
	}
	owner := storekit.NewOwner()
	expiry := c.expiry()
	out, answered := c.claim(ctx, key, owner, expiry)
	if !answered {
		// It may have claimed the key: count it, so that a key's
		// operations with no answer (every one while a server restarts)
		// stay few, and free it.
		c.run.keys.claimed(key)
		if c.rng.IntN(2) == 0 {
			c.release(ctx, key, owner)
		}
		c.sleep(ctx, cfg.Lease/10)
		return
	}
	if !out.Claimed {
		// A key completed is done with, mostly; one whose record
		// expires soon comes back once it has, to be claimed again.
		if h := out.Holder; h.Status == idem.StatusCompleted && c.rng.IntN(4) != 0 {
			var revisitAt time.Time
			if expires := time.Unix(h.ExpiresAt, 0); expires.Before(time.Now().Add(5 * time.Second)) {
				revisitAt = expires.Add(2*cfg.ClockSkew + cfg.ClockOffset + time.Second)
			}
			c.run.keys.retire(key, revisitAt)
		}
		c.sleep(ctx, cfg.Lease/40+time.Duration(c.rng.Int64N(int64(cfg.Lease/10)+1)))
		return
	}
	c.run.keys.claimed(key)
	if c.rng.Float64() < cfg.Pauses {
		c.pausePastLease(ctx, key, owner, expiry)
		return
	}
	c.sleep(ctx, c.work())
	if c.rng.IntN(10) < 3 {
		c.extend(ctx, key, owner, expiry)
		c.sleep(ctx, time.Duration(c.rng.Int64N(int64(cfg.Lease/8)+1)))
	}
	if c.rng.IntN(8) == 0 {
		c.release(ctx, key, owner) // the work failed
		return
	}
	result := "r-" + owner[:8]
	lost := c.complete(ctx, key, owner, result, expiry)
	if lost || c.rng.IntN(6) != 0 {
		return
	}
	// A stray write of an owner that completed: a release after a
	// completion whose answer was lost (idem.Do's), the completion sent
	// again, another result, a late extension.
	switch c.rng.IntN(4) {
	case 0:
		c.release(ctx, key, owner)
	case 1:
		c.complete(ctx, key, owner, result, expiry)
	case 2:
		c.complete(ctx, key, owner, result+"-other", expiry)
	default:
		c.extend(ctx, key, owner, expiry)
	}
}

// work is how long a client holds its claim before it completes it:
// mostly briefly, sometimes for up to half its lease.
func (c *client) work() time.Duration {
	lease := int64(c.run.cfg.Lease)
	if c.rng.IntN(10) < 3 {
		return time.Duration(lease/4 + c.rng.Int64N(lease/4+1))
	}
	return time.Duration(c.rng.Int64N(lease/8 + 1))
}

// pausePastLease is a client that stops after its claim, as a process
// paused by its host or the garbage collector, until every other clock
// (within ClockOffset) sees its lease passed, then goes on: its write must
// be refused if another client took the key over meanwhile.
func (c *client) pausePastLease(ctx context.Context, key idem.Key, owner string, expiry time.Duration) {
	cfg := c.run.cfg
	c.run.pauses.Add(1)
	c.sleep(ctx, cfg.Lease+2*cfg.ClockSkew+2*cfg.ClockOffset+time.Duration(c.rng.Int64N(int64(cfg.Lease/4)+1)))
	var lost bool
	switch c.rng.IntN(5) {
	case 0:
		lost = c.release(ctx, key, owner)
	case 1:
		lost = c.extend(ctx, key, owner, expiry)
	default:
		lost = c.complete(ctx, key, owner, "r-"+owner[:8], expiry)
	}
	if lost {
		c.run.pausedRefused.Add(1)
	}
}

// send records one operation: in, the request's call, the answer of do
// (its error: none came), within a deadline of a few milliseconds for
// Config.Timeouts of them; a share of Config.LoseAnswers of them
// have their answer lost here after the store applied them.
func (c *client) send(ctx context.Context, in linInput, do func(context.Context) (linOutput, error)) (linOutput, bool) {
	cfg := c.run.cfg
	c.run.issued.Add(1)
	c.run.byKind[in.Kind].Add(1)
	in.Client = c.id
	deadline := c.rng.Float64() < cfg.Timeouts
	if deadline {
		c.run.timeouts.Add(1)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(100+c.rng.IntN(3000))*time.Microsecond)
		defer cancel()
	} else {
		ctx = context.WithoutCancel(ctx)
	}
	op := c.run.rec.begin(in)
	out, err := do(ctx)
	if err == nil && in.Owner != "" && c.rng.Float64() < cfg.LoseAnswers {
		if c.rng.IntN(2) == 0 {
			err = errLostHere
			c.run.lostHere.Add(1)
		} else {
			op.resent++
			c.run.resent.Add(1)
			out, err = do(ctx)
		}
	}
	if err != nil {
		c.run.noAnswer.Add(1)
	}
	c.run.rec.end(op, out, err == nil)
	if err != nil && !deadline && err != errLostHere {
		// The store failed (a server restarting, a client's retries
		// spent): wait a lease, as a worker's retry would, rather than
		// fill the history with requests that cannot be answered.
		c.sleep(ctx, cfg.Lease)
	}
	return out, err == nil
}

var errLostHere = errors.New("linearize: answer lost by the checker")

func (c *client) claim(ctx context.Context, key idem.Key, owner string, expiry time.Duration) (linOutput, bool) {
	readAt, now := c.clock()
	req := c.config(expiry).NewClaim(key, owner, "", now, c.run.cfg.Lease)
	in := linInput{Kind: opClaim, Key: key, Owner: owner, Now: req.Now.UnixNano(), LeaseUntil: req.LeaseUntil.UnixMilli(),
		ExpiresAt: storekit.ExpirySeconds(req.ExpiresAt), ReadAt: readAt, Holds: readAt + int64(c.run.cfg.Lease)}
	out, ok := c.send(ctx, in, func(ctx context.Context) (linOutput, error) {
		cl, err := c.run.store.Claim(ctx, req)
		if err != nil {
			return linOutput{}, err
		}
		out := linOutput{Claimed: cl.Claimed}
		if cl.Previous != nil {
			v := view(*cl.Previous)
			out.Previous = &v
		}
		if !cl.Claimed {
			out.Holder = view(cl.Record)
		}
		return out, nil
	})
	if ok && out.Previous != nil {
		switch out.Previous.Status {
		case idem.StatusInProgress:
			c.run.takeOvers.Add(1)
		case idem.StatusCompleted:
			c.run.reclaims.Add(1)
		}
	}
	return out, ok
}

// complete, release and extend send a fenced write, and report whether
// it was refused.
func (c *client) complete(ctx context.Context, key idem.Key, owner, result string, expiry time.Duration) bool {
	_, now := c.clock()
	exp := c.config(expiry).CompletionExpiry(now)
	in := linInput{Kind: opComplete, Key: key, Owner: owner, Result: result, ExpiresAt: storekit.ExpirySeconds(exp)}
	out, ok := c.send(ctx, in, func(ctx context.Context) (linOutput, error) {
		return fenced(c.run.store.Complete(ctx, idem.Completion{Key: key, Owner: owner, Result: []byte(result), ExpiresAt: exp}))
	})
	return ok && out.Lost
}

func (c *client) release(ctx context.Context, key idem.Key, owner string) bool {
	out, ok := c.send(ctx, linInput{Kind: opRelease, Key: key, Owner: owner}, func(ctx context.Context) (linOutput, error) {
		return fenced(c.run.store.Release(ctx, key, owner))
	})
	return ok && out.Lost
}

func (c *client) extend(ctx context.Context, key idem.Key, owner string, expiry time.Duration) bool {
	readAt, now := c.clock()
	x := c.config(expiry).NewExtension(key, owner, now, c.run.cfg.Lease)
	in := linInput{Kind: opExtend, Key: key, Owner: owner, LeaseUntil: x.LeaseUntil.UnixMilli(), ExpiresAt: storekit.ExpirySeconds(x.ExpiresAt),
		ReadAt: readAt, Holds: readAt + int64(c.run.cfg.Lease)}
	out, ok := c.send(ctx, in, func(ctx context.Context) (linOutput, error) {
		return fenced(c.run.store.Extend(ctx, x))
	})
	return ok && out.Lost
}

func (c *client) get(ctx context.Context, key idem.Key) {
	c.send(ctx, linInput{Kind: opGet, Key: key}, func(ctx context.Context) (linOutput, error) {
		rec, found, err := c.run.getter.Get(ctx, key)
		if err != nil {
			return linOutput{}, err
		}
		return linOutput{Found: found, Record: view(rec)}, nil
	})
}

// fenced is the answer of a fenced write: nil, or a lost lease naming
// what the store found; any other error is no answer.
func fenced(err error) (linOutput, error) {
	if err == nil {
		return linOutput{}, nil
	}
	if lost, ok := errors.AsType[*idem.LeaseLostError](err); ok {
		return linOutput{Lost: true, LostStatus: lost.Status, LostHolder: lost.Holder}, nil
	}
	if errors.Is(err, idem.ErrLeaseLost) {
		// A refusal that does not say what holds the key (the
		// conformance suite requires it to): no state of the model
		// gives it.
		return linOutput{Lost: true, LostStatus: "(not said)"}, nil
	}
	return linOutput{}, err
}

// view is a record as the model compares it.
func view(r idem.Record) recView {
	v := recView{Status: r.Status, Owner: r.Owner, ExpiresAt: r.ExpiresAt.Unix(), Result: string(r.Result)}
	if !r.LeaseUntil.IsZero() {
		v.LeaseUntil = r.LeaseUntil.UnixMilli()
	}
	return v
}

// restarts calls Restart RestartEvery after the start and after each
// restart ended (a server that takes long to start still serves that
// long between two), until ctx ends, and returns how many times it did.
func (r *runner) restarts(ctx context.Context) int {
	n := 0
	for {
		t := time.NewTimer(r.cfg.RestartEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return n
		case <-t.C:
		}
		// A restart begun runs to its end, even once the clients are
		// done: a server left down would fail whatever runs next.
		at := r.rec.now()
		err := r.cfg.Restart(context.WithoutCancel(ctx))
		desc := "server restarted"
		if err != nil {
			desc = "restart failed: " + err.Error()
			r.restartErr.Store(&err)
		}
		r.rec.annotate(porcupine.Annotation{Tag: "server", Start: at, End: r.rec.now(), Description: desc})
		n++
	}
}

// report counts what the run did.
func (r *runner) report(restarts int, ran time.Duration) Report {
	lost, refused := r.cfg.Faults.counts()
	rep := Report{
		Store: reflect.TypeOf(r.store).String(), Seed: r.seed, Clients: r.cfg.Clients, Keys: r.keys.count(),
		ClockSkew: r.cfg.ClockSkew, ClockOffset: r.cfg.ClockOffset, ByKind: map[string]int{},
		NoAnswer: int(r.noAnswer.Load()), LostAnswers: lost + int(r.resent.Load()) + int(r.lostHere.Load()), Refused: refused,
		Timeouts: int(r.timeouts.Load()), Pauses: int(r.pauses.Load()), PausedRefused: int(r.pausedRefused.Load()),
		TakeOvers: int(r.takeOvers.Load()), Reclaimed: int(r.reclaims.Load()), Restarts: restarts, Ran: ran,
	}
	for k := opClaim; k <= opGet; k++ {
		if n := int(r.byKind[k].Load()); n > 0 {
			rep.ByKind[k.String()] = n
			rep.Operations += n
		}
	}
	return rep
}
