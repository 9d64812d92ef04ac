package pgstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
	"github.com/idemq/idemq/internal/netfault"
	"github.com/idemq/idemq/internal/storekit"
)

// A server that does not answer is an *idem.Error for the key, not a
// lost lease and not a panic; idem.Do passes it on and runs nothing.
func TestUnreachableServer(t *testing.T) {
	t.Parallel()
	addr := netfault.ClosedAddr(t)
	pool, err := pgxpool.New(context.Background(), "postgres://postgres@"+addr+"/postgres?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	idemtest.Unreachable(t, must(pgstore.New(pool, "idempotency")))
}

// A claim or a completion whose answer is lost with its connection was
// applied; the store sends it again on a new connection, which finds it
// applied by the same owner: a success, not a key stuck until its lease
// passes. The connection goes through a proxy that cuts it after the
// server answered, before the store reads the answer.
func TestLostAnswers(t *testing.T) {
	b := setup(t)
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	p := netfault.New(t, fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port))
	host, port, _ := net.SplitHostPort(p.Addr())
	cfg.ConnConfig.Host = host
	if _, err := fmt.Sscan(port, &cfg.ConnConfig.Port); err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	// Describe statements in the same exchange as their execution, so
	// that the answer the proxy drops is the one of the write.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := pool.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	idemtest.LostAnswers(t, must(pgstore.New(pool, b.table)), b.store, p.DropNextReply)
	if p.Dropped() != 2 {
		t.Fatalf("the proxy cut %d connections, want 2", p.Dropped())
	}
}

func TestResultOverTheLimit(t *testing.T) {
	b := setup(t, pgstore.WithMaxResultBytes(10))
	idemtest.ResultLimit(t, b.store, 10)
}

// A table of that name made by someone else, with another shape: every
// operation is ErrTableShape in an *idem.Error, CreateTable and Check say
// what differs, and the table's rows are left as they were.
func TestWrongShapeTable(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	shapes := map[string]string{
		"other columns":  "id text PRIMARY KEY, payload jsonb",
		"id not unique":  strings.Replace(columnsDDL, "id                     text   PRIMARY KEY", "id text", 1),
		"expiry as time": strings.Replace(columnsDDL, "expiration             bigint NOT NULL", "expiration timestamptz NOT NULL", 1),
		"extra required": columnsDDL + ", tenant text NOT NULL",
	}
	for name, ddl := range shapes {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			table := pgtest.TableName()
			quoted := pgx.Identifier{table}.Sanitize()
			if _, err := pool.Exec(ctx, "CREATE TABLE "+quoted+" ("+ddl+")"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _, _ = pool.Exec(ctx, "DROP TABLE "+quoted) })
			if name == "other columns" {
				if _, err := pool.Exec(ctx, "INSERT INTO "+quoted+" (id) VALUES ('theirs')"); err != nil {
					t.Fatal(err)
				}
			}
			var before int
			_ = pool.QueryRow(ctx, "SELECT count(*) FROM "+quoted).Scan(&before)

			if err := pgstore.CreateTable(ctx, pool, table); !errors.Is(err, pgstore.ErrTableShape) {
				t.Fatalf("CreateTable over it: %v, want pgstore.ErrTableShape", err)
			}
			store := must(pgstore.New(pool, table))
			if err := store.Check(ctx); !errors.Is(err, pgstore.ErrTableShape) {
				t.Fatalf("Check: %v, want pgstore.ErrTableShape", err)
			}
			now := time.Now()
			_, err := store.Claim(ctx, idem.ClaimRequest{Key: "t#shape", Owner: storekit.NewOwner(), Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)})
			var ie *idem.Error
			if !errors.Is(err, pgstore.ErrTableShape) || !errors.As(err, &ie) || ie.Key != "t#shape" || idem.Retryable(err) {
				t.Fatalf("claim: %v, want pgstore.ErrTableShape in an *idem.Error, not retryable", err)
			}
			var after int
			_ = pool.QueryRow(ctx, "SELECT count(*) FROM "+quoted).Scan(&after)
			if after != before {
				t.Fatalf("%d rows before, %d after", before, after)
			}
		})
	}
	if err := must(pgstore.New(pool, pgtest.TableName())).Check(ctx); !errors.Is(err, pgstore.ErrTableShape) {
		t.Fatalf("Check of a missing table: %v, want pgstore.ErrTableShape", err)
	}
}

// columnsDDL is the store's columns as Schema writes them.
var columnsDDL = func() string {
	ddl := pgstore.Schema("x")
	return ddl[strings.Index(ddl, "(")+1 : strings.Index(ddl, "\n);")]
}()

// One retry layer: a completion against a PostgreSQL that never gets the
// completing statement (the proxy cuts the connection as it goes out)
// costs CompleteAttempts statements, the store's own retries, and no more:
// idem.Do sends it once. The claim and the release after the failed
// completion go through, so the key is free again. With a staged write
// the completion runs in a transaction, counted the same way.
func TestCompletionRequestsWhileDown(t *testing.T) {
	b := setup(t)
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	var completions atomic.Int32
	p, err := netfault.Start(fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port), func(req []byte) netfault.Verdict {
		if bytes.Contains(req, []byte("SET status = 'COMPLETED'")) {
			completions.Add(1)
			return netfault.Refuse
		}
		return netfault.Pass
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	host, port, _ := net.SplitHostPort(p.Addr())
	cfg.ConnConfig.Host = host
	if _, err := fmt.Sscan(port, &cfg.ConnConfig.Port); err != nil {
		t.Fatal(err)
	}
	// The statement's text goes out with each execution, on every new
	// connection alike.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := must(pgstore.New(pool, b.table))
	for key, staged := range map[idem.Key]bool{"t#down": false, "t#downstaged": true} {
		completions.Store(0)
		r, err := idem.Do(context.Background(), store, key, "", func(ctx context.Context) ([]byte, error) {
			if staged {
				return []byte("answer"), pgstore.Stage(ctx, func(context.Context, pgx.Tx) error { return nil })
			}
			return []byte("answer"), nil
		})
		if r.Outcome != idem.NotStored || err == nil || errors.Is(err, idem.ErrLeaseLost) {
			t.Fatalf("%s: %+v, %v; want NotStored with the connection's error", key, r, err)
		}
		if n := completions.Load(); n != pgstore.CompleteAttempts {
			t.Errorf("%s: %d completing statements, want %d (one completion, the store's attempts)", key, n, pgstore.CompleteAttempts)
		}
		if _, ok := idemtest.MustGet(t, b.store, key); ok {
			t.Errorf("%s: the claim was not released", key)
		}
	}
}
