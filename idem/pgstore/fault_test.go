package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/internal/netfault"
	"github.com/idemq/idemq/internal/pgtest"
)

// A server that does not answer is an *idem.Error for the key, not a
// lost lease and not a panic; idem.Do passes it on and runs nothing.
func TestUnreachableServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there now
	pool, err := pgxpool.New(context.Background(), "postgres://postgres@"+addr+"/postgres?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	store := pgstore.New(pool, "idempotency")
	ran := false
	_, err = idem.Do(context.Background(), store, "t#down", "", func(context.Context) ([]byte, error) { ran = true; return nil, nil })
	var ie *idem.Error
	if !errors.As(err, &ie) || ie.Op != "claim" || ie.Key != "t#down" || errors.Is(err, idem.ErrLeaseLost) || ran {
		t.Fatalf("err %v (ran %v), want a claim *idem.Error for the key and the work not run", err, ran)
	}
}

// proxied returns a store on a one-connection pool that reaches the
// server through a proxy that can cut the connection, and a store on the
// same table that does not.
func proxied(t *testing.T) (*netfault.Proxy, *pgstore.Store, *bundle) {
	b := setup(t)
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	p := netfault.New(t, fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port))
	host, port, _ := net.SplitHostPort(p.Addr())
	cfg.ConnConfig.Host = host
	fmt.Sscan(port, &cfg.ConnConfig.Port)
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := pgstore.New(pool, b.table)
	// Prepare the statements on the connection first, so that the next
	// request is one exchange whose answer the proxy can drop.
	owner := idem.NewOwner()
	if _, err := s.Claim(context.Background(), b.request("t#warm", owner)); err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(context.Background(), idem.Completion{Key: "t#warm", Owner: owner, Result: []byte("w"), ExpiresAt: b.now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	return p, s, b
}

// A claim whose answer is lost with its connection was applied; the store
// sends it again on a new connection, which finds the record held by the
// same owner: Claimed, not a key stuck until its lease passes.
func TestDroppedConnectionMidClaim(t *testing.T) {
	p, s, b := proxied(t)
	req := b.request("t#dropped", idem.NewOwner())
	p.DropNextReply()
	c, err := s.Claim(context.Background(), req)
	if err != nil || !c.Claimed {
		t.Fatalf("claim across a dropped connection: %+v, %v; want claimed", c, err)
	}
	if p.Dropped() != 1 {
		t.Fatalf("the proxy cut %d connections, want 1", p.Dropped())
	}
	if rec, ok := b.get(t, "t#dropped"); !ok || rec.Owner != req.Owner || rec.Status != idem.StatusInProgress {
		t.Fatalf("record %+v, want the claim's", rec)
	}
}

// A completion whose answer is lost was applied; sent again, it finds the
// record completed by its owner with its result: a success.
func TestDroppedConnectionMidComplete(t *testing.T) {
	p, s, b := proxied(t)
	owner := b.mustClaim(t, "t#dropdone")
	p.DropNextReply()
	err := s.Complete(context.Background(), idem.Completion{Key: "t#dropdone", Owner: owner, Result: []byte("kept"), ExpiresAt: b.now.Add(time.Hour)})
	if err != nil {
		t.Fatalf("complete across a dropped connection: %v", err)
	}
	if p.Dropped() != 1 {
		t.Fatalf("the proxy cut %d connections, want 1", p.Dropped())
	}
	if rec, _ := b.get(t, "t#dropdone"); rec.Status != idem.StatusCompleted || string(rec.Result) != "kept" {
		t.Fatalf("record %+v, want COMPLETED with the result", rec)
	}
}

func TestResultOverTheLimit(t *testing.T) {
	b := setup(t, pgstore.WithMaxResultBytes(10))
	owner := b.mustClaim(t, "t#limit")
	err := b.store.Complete(context.Background(), idem.Completion{Key: "t#limit", Owner: owner, Result: make([]byte, 11), ExpiresAt: b.now.Add(time.Hour)})
	var ie *idem.Error
	if !errors.Is(err, idem.ErrResultTooLarge) || !errors.As(err, &ie) || ie.Key != "t#limit" {
		t.Fatalf("err %v, want idem.ErrResultTooLarge in an *idem.Error", err)
	}
	if err := b.store.Complete(context.Background(), idem.Completion{Key: "t#limit", Owner: owner, Result: make([]byte, 10), ExpiresAt: b.now.Add(time.Hour)}); err != nil {
		t.Fatalf("a result at the limit: %v", err)
	}
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
			store := pgstore.New(pool, table)
			if err := store.Check(ctx); !errors.Is(err, pgstore.ErrTableShape) {
				t.Fatalf("Check: %v, want pgstore.ErrTableShape", err)
			}
			now := time.Now()
			_, err := store.Claim(ctx, idem.ClaimRequest{Key: "t#shape", Owner: idem.NewOwner(), Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)})
			var ie *idem.Error
			if !errors.Is(err, pgstore.ErrTableShape) || !errors.As(err, &ie) || ie.Key != "t#shape" {
				t.Fatalf("claim: %v, want pgstore.ErrTableShape in an *idem.Error", err)
			}
			var after int
			_ = pool.QueryRow(ctx, "SELECT count(*) FROM "+quoted).Scan(&after)
			if after != before {
				t.Fatalf("%d rows before, %d after", before, after)
			}
		})
	}
	if err := pgstore.New(pool, pgtest.TableName()).Check(ctx); !errors.Is(err, pgstore.ErrTableShape) {
		t.Fatalf("Check of a missing table: %v, want pgstore.ErrTableShape", err)
	}
}

// columnsDDL is the store's columns as Schema writes them.
var columnsDDL = func() string {
	ddl := pgstore.Schema("x")
	return ddl[strings.Index(ddl, "(")+1 : strings.Index(ddl, "\n);")]
}()
