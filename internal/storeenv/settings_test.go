package storeenv

import (
	"strings"
	"testing"
)

// A command that takes flags for the variables names them in what it
// requires, and may accept fewer stores; the value of a URL is never shown
// but redacted.
func TestCheckOptions(t *testing.T) {
	t.Parallel()
	flags := Flags(map[string]string{Table: "table", StoreURL: "store-url"})
	for _, c := range []struct {
		s    Settings
		opts []CheckOption
		want []string // each in the error
	}{
		{Settings{}, nil, []string{"IDEMQ_TABLE is required: the name of the DynamoDB idempotency table"}},
		{Settings{}, []CheckOption{flags}, []string{"IDEMQ_TABLE (or --table) is required"}},
		{Settings{Store: "redis"}, []CheckOption{flags}, []string{"IDEMQ_STORE_URL (or --store-url) is required; want a redis:// or rediss:// URL"}},
		{Settings{Store: "Mongo"}, nil, []string{`IDEMQ_STORE="mongo": want dynamodb, postgres, redis or memory`}},
		{Settings{Store: "memory"}, []CheckOption{OnlyStores(DynamoDB, Postgres, Redis)}, []string{`IDEMQ_STORE="memory": want dynamodb, postgres or redis`}},
		{Settings{Store: "postgres", URL: "mysql://u:s3cret@h/db"}, nil, []string{"IDEMQ_TABLE is required with IDEMQ_STORE=postgres", `IDEMQ_STORE_URL=mysql://u:xxxxx@h/db: the scheme is "mysql"`}},
		{Settings{Table: "t", URL: "redis://h"}, nil, []string{"IDEMQ_STORE_URL is set but IDEMQ_STORE is dynamodb"}},
	} {
		err := c.s.Check(c.opts...)
		if err == nil {
			t.Errorf("%+v: no error", c.s)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "s3cret") {
				t.Errorf("%+v: %q; want it to say %q, without the password", c.s, err, w)
			}
		}
	}
	for _, s := range []Settings{{Table: "t"}, {Store: "REDIS", URL: "rediss://h:6380"}, {Store: "postgres", Table: "t", URL: "postgres://u@h/db"}, {Store: "memory"}} {
		if err := s.Check(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}
