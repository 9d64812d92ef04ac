package worker

import (
	"net/http"
	"sync"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/idemqenv"
)

// Worker is a program wired from the IDEMQ_* settings, with what it runs
// on: in worker mode (New, FromEnv) a handler around a function of your
// own; in front-door mode (NewFrontDoor) the HTTP front door over the
// worker's records; in dispatch mode (NewDispatcher) the dispatcher to a
// Lambda durable function.
type Worker struct {
	// Settings are the settings it was wired from.
	Settings idemqenv.Settings
	// Handler runs each batch: what lambda.Start takes, and what Run
	// serves. Nil in front-door mode.
	Handler handler.Handler
	// FrontDoor serves the front door's HTTP requests, in front-door mode;
	// nil in the others.
	FrontDoor http.Handler
	// Store is the store of records (IDEMQ_STORE); nil in dispatch mode,
	// which keeps none.
	Store stores.Records
	// Blobs keeps the results too large for a record (IDEMQ_BLOB_BUCKET);
	// nil without a bucket.
	Blobs idem.Blobs
	// Consumer receives from IDEMQ_CONSUMER_QUEUE_URL, running Handler;
	// nil on Lambda.
	Consumer *consumer.Consumer
	// Connections is how many requests to one backend can be under way at
	// once: the batches at once times the records of each. Every pool of
	// the Worker keeps that many connections; give your own clients (a
	// model provider's) as many.
	Connections int

	cfg     Config
	clients *clients
	// offLambda is set by FromEnv when getenv has no
	// AWS_LAMBDA_RUNTIME_API: Run then has no Lambda to serve.
	offLambda  bool
	closeStore func()
	closeOnce  sync.Once
}

// Close closes the store's connections. It is safe to call more than
// once.
func (w *Worker) Close() {
	w.closeOnce.Do(func() {
		if w.closeStore != nil {
			w.closeStore()
		}
	})
}
