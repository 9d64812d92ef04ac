package pgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/pgstore"
)

// Wiring errors are returned, naming the setting, and send nothing.
func TestConfigErrors(t *testing.T) {
	t.Parallel()
	// A pool that is never connected: New and these calls send nothing.
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s := must(pgstore.New(pool, "t"))
	for _, tc := range []struct {
		field string
		call  func() error
	}{
		{"db", func() error { _, err := pgstore.New(nil, "t"); return err }},
		{"db", func() error { _, err := pgstore.New((*pgxpool.Pool)(nil), "t"); return err }},
		{"table", func() error { _, err := pgstore.New(pool, ""); return err }},
		{"MaxResultBytes", func() error { _, err := pgstore.New(pool, "t", pgstore.WithMaxResultBytes(-1)); return err }},
		{"options[0]", func() error { _, err := pgstore.New(pool, "t", nil); return err }},
		{"limit", func() error { _, err := s.DeleteExpired(context.Background(), time.Now(), 0); return err }},
		{"w", func() error { return pgstore.Stage(context.Background(), nil) }},
		{"table", func() error { return pgstore.CreateTable(context.Background(), pool, "") }},
	} {
		if bad, ok := errors.AsType[*idem.ConfigError](tc.call()); !ok || bad.Package != "pgstore" || bad.Field != tc.field {
			t.Errorf("%s: err %v; want an *idem.ConfigError naming it", tc.field, tc.call())
		}
	}
}
