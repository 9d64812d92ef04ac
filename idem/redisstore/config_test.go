package redisstore_test

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/redisstore"
)

// Wiring errors are returned, naming the setting.
func TestConfigErrors(t *testing.T) {
	t.Parallel()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled: New sends nothing
	t.Cleanup(func() { _ = client.Close() })
	for _, tc := range []struct {
		field string
		call  func() error
	}{
		{"client", func() error { _, err := redisstore.New(nil); return err }},
		{"client", func() error { _, err := redisstore.New((*redis.Client)(nil)); return err }},
		{"MaxResultBytes", func() error { _, err := redisstore.New(client, redisstore.WithMaxResultBytes(-1)); return err }},
		{"options[1]", func() error { _, err := redisstore.New(client, redisstore.WithPrefix("p:"), nil); return err }},
	} {
		if bad, ok := errors.AsType[*idem.ConfigError](tc.call()); !ok || bad.Package != "redisstore" || bad.Field != tc.field {
			t.Errorf("%s: err %v; want an *idem.ConfigError naming it", tc.field, tc.call())
		}
	}
	if _, err := redisstore.New(client, redisstore.WithMaxResultBytes(0)); err != nil {
		t.Errorf("WithMaxResultBytes(0): %v; want the default", err)
	}
}
