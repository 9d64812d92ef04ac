package pgenv_test

import (
	"fmt"

	"github.com/idemq/idemq/idem/pgstore/pgenv"
)

// The pool a worker opens keeps as many connections as records run at
// once, unless the URL says otherwise.
func ExamplePoolConfig() {
	for _, url := range []string{
		"postgres://worker:secret@db.internal:5432/idemq",
		"postgres://worker:secret@db.internal:5432/idemq?pool_max_conns=4",
	} {
		cfg, err := pgenv.PoolConfig(url, 100)
		if err != nil {
			panic(err)
		}
		fmt.Println(cfg.MaxConns)
	}
	// Output:
	// 100
	// 4
}
