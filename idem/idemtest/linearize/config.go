package linearize

import (
	"cmp"
	"context"
	"time"
)

// Config is what a history check (Linearizable, Record) does: how
// many clients drive the store, on how many keys, for how many
// operations, with which leases, clocks and faults. Its zero value takes
// every default, a history of a few seconds.
type Config struct {
	// Clients is how many clients run at once, each a worker with a
	// clock of its own. Defaults to 12.
	Clients int
	// Keys is how many keys are in play at once; each is retired after
	// about 40 operations and replaced by a fresh one, so that each key's
	// history stays short enough to check. Defaults to 8.
	Keys int
	// Operations is how many operations the run records, at least: the
	// clients stop starting new work past it. Defaults to 2,000.
	Operations int
	// Lease is the clients' lease: a client works a fraction of it,
	// and a paused client sleeps past it. Defaults to 300 ms.
	Lease time.Duration
	// ClockSkew is the bound the clients' requests are made with
	// (idem.Config.ClockSkew, through idem.Config.NewClaim and
	// NewExtension). Defaults to 50 ms.
	ClockSkew time.Duration
	// ClockOffset is how far the clients' clocks are from the true time:
	// spread evenly from -ClockOffset to +ClockOffset, the first and the
	// last client at the extremes. Defaults to ClockSkew: every clock
	// within the bound, where no live lease may be taken over; above it
	// the bound is broken, and a take-over while its holder still counts
	// on its lease (a key executed twice) fails the check. A negative
	// value puts every clock on the true time.
	ClockOffset time.Duration
	// LoseAnswers is the share of requests whose answer the checker
	// itself loses after the store applied them (the store is wrapped):
	// half of them then fail with no answer, the other half are sent
	// again and answer what the second send found, as a store's client
	// does after a lost connection. For a store with a fault layer of its
	// own (Faults) leave it 0. Defaults to 0.
	LoseAnswers float64
	// Faults is the fault layer between the store and its server, if
	// there is one (a proxy calling Faults.Decide): the operations whose
	// answers it lost are recorded with their first send. Defaults to
	// none.
	Faults *Faults
	// Timeouts is the share of operations sent with a deadline of a few
	// milliseconds, which may end them before or after the store acted:
	// no answer. A negative value turns them off. Defaults to 0.05.
	Timeouts float64
	// Pauses is the share of claims whose client, once it holds the key,
	// pauses past its lease before it completes, extends or releases, so
	// that another client takes the key over and the late write must be
	// refused. A negative value turns them off. Defaults to 0.1.
	Pauses float64
	// Restart restarts the store's server, keeping its data, while the
	// clients run: RestartEvery after the start and after each restart
	// ended, the requests in flight failing. A restart begun runs to its
	// end (its context is not cancelled with the run). Defaults to nil:
	// never.
	Restart func(ctx context.Context) error
	// RestartEvery is how long the server runs between two restarts.
	// Defaults to 2 s.
	RestartEvery time.Duration
	// CheckTimeout bounds the check of the history; a check that does not
	// end in time fails the test, as not checked. Defaults to 5 minutes.
	CheckTimeout time.Duration
	// PictureDir is where a failing history's picture (porcupine's HTML
	// visualization) is written, besides the test's artifact directory
	// (t.ArtifactDir). Defaults to none.
	PictureDir string
	// Seed makes the clients' choices; the history still depends on the
	// store's timing. Defaults to a random seed, which the report gives.
	Seed uint64
	// Name names the picture's file (linearize-Name.html). Defaults to
	// the test's name under Linearizable, else "history".
	Name string
}

// resolve fills in the defaults.
func (c Config) resolve() Config {
	c.Clients = cmp.Or(c.Clients, 12)
	c.Keys = cmp.Or(c.Keys, 8)
	c.Operations = cmp.Or(c.Operations, 2000)
	c.Lease = cmp.Or(c.Lease, 300*time.Millisecond)
	c.ClockSkew = cmp.Or(c.ClockSkew, 50*time.Millisecond)
	switch {
	case c.ClockOffset == 0:
		c.ClockOffset = c.ClockSkew
	case c.ClockOffset < 0:
		c.ClockOffset = 0
	}
	c.Timeouts = cmp.Or(c.Timeouts, 0.05)
	c.Pauses = cmp.Or(c.Pauses, 0.1)
	c.RestartEvery = cmp.Or(c.RestartEvery, 2*time.Second)
	c.CheckTimeout = cmp.Or(c.CheckTimeout, 5*time.Minute)
	c.Name = cmp.Or(c.Name, "history")
	return c
}
