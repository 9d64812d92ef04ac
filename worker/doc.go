// Package worker is the one place where the IDEMQ_* settings (package
// idemqenv, which only parses and checks them) become each part's options
// and each AWS client is made, once. For a function of your own it wires
// what the reference worker (lambda/) wires for its model calls: the
// store of records, the handler around your function with the request's
// identity, the claim's settings, the back-off, EMF metrics and the
// bucket of large results, in consumer mode the consumer, and the
// start-up checks (every variable at once, whether the environment's
// reader or a part refuses it; the namespace; the queue's settings
// against the expiry and the lease; the PostgreSQL table's shape). The
// reference worker's front door and dispatcher are wired here too
// (NewFrontDoor, NewDispatcher). A variable the CDK construct sets
// (infra/idemqcdk) is read as the reference worker reads it.
//
//	func main() {
//		w, err := worker.FromEnv(context.Background(), os.Getenv, summarise)
//		if err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//		defer w.Close()
//		if err := w.Run(context.Background()); err != nil { // lambda.Start, or the consumer until SIGTERM
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//	}
//
// It opens the DynamoDB and the memory stores itself; the PostgreSQL and
// Redis stores are opened by their modules' openers, passed with
// WithStores (pgenv.Opener, redisenv.Opener), so that a function on
// DynamoDB carries neither pgx nor go-redis. A setting the library
// refuses stops FromEnv with the library's message after the name of the
// variable that set it; no message holds the store's password.
//
// Its settings take the one option shape of every idemq package
// (docs/options.md): Config's fields, set by the options or whole by
// WithConfig; a zero value is the default; New reports every bad setting
// at once, each an *idem.ConfigError.
package worker
