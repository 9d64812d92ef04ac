package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemq/idemq/idem/dynamostore/dynamoenv"
	"github.com/idemq/idemq/idem/s3blob"
	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/optkit"
)

// open ends the checks made before any request: given readErr (the
// environment's, nil for settings given whole) and errs (what the
// program's checks found), it opens the store and the bucket, which makes
// no request (unless the settings name none, or their own variables are
// bad), and reports every error at once: "bad configuration:" and one
// line each, named after its variable. With none, it reads what the store
// can check (a PostgreSQL table's shape).
func (w *Worker) open(ctx context.Context, readErr error, errs []error) error {
	s := w.Settings
	soundStore := s.Program != idemqenv.Dispatch && idemqenv.CheckStore(s.Program, s.Store) == nil
	if soundStore {
		var err error
		all := append([]stores.Opener{dynamoenv.Opener()}, w.cfg.Stores...)
		w.Store, w.closeStore, err = stores.Open(ctx, s.Store, stores.Config{AWS: w.clients.aws, Connections: w.Connections}, all...)
		errs = append(errs, named(err))
	}
	if s.Blobs.Bucket != "" && s.Program != idemqenv.Dispatch {
		errs = append(errs, named(w.openBlobs(ctx)))
	}
	if err := badConfig(readErr, errs...); err != nil {
		w.Close()
		return stores.Redact(err, s.Store.URL)
	}
	if ch, ok := w.Store.(checker); ok {
		// Only a look at the catalog: creating the table needs DDL rights
		// and takes locks, which is a migration's business, not every
		// cold start's.
		if err := ch.Check(ctx); err != nil {
			w.Close()
			err = fmt.Errorf("IDEMQ_TABLE=%s on IDEMQ_STORE_URL: %w", s.Store.Table, err)
			return stores.Redact(err, s.Store.URL)
		}
	}
	return nil
}

// checker is a store that can check, at start-up, that its table has its
// shape: pgstore.Store.
type checker interface {
	Check(ctx context.Context) error
}

// openBlobs opens the bucket of large results (IDEMQ_BLOB_BUCKET,
// IDEMQ_BLOB_PREFIX) through the S3 client; it makes no request.
func (w *Worker) openBlobs(ctx context.Context) error {
	client, err := w.clients.S3(ctx)
	if err != nil {
		return err
	}
	b, err := s3blob.New(client, w.Settings.Blobs.Bucket, w.Settings.Blobs.Prefix)
	if err != nil {
		return err
	}
	w.Blobs = b
	return nil
}

// failed is err, an error of wiring after the checks, as the caller gets
// it: a refusal of a setting is a bad configuration, named after its
// variable; and no error holds the store's password.
func (w *Worker) failed(err error) error {
	if len(optkit.ConfigErrors(err)) > 0 {
		err = badConfig(nil, named(err))
	}
	return stores.Redact(err, w.Settings.Store.URL)
}

// named is err with each refusal of a setting it holds named after the
// variable that sets it (idemqenv.SettingError).
func named(err error) error {
	if err == nil {
		return nil
	}
	return idemqenv.SettingError(err)
}

// badConfig joins readErr's errors and errs, each once (the environment's
// reader and a part may refuse one setting alike), under "bad
// configuration:"; nil when there are none.
func badConfig(readErr error, errs ...error) error {
	var list []error
	seen := map[string]bool{}
	var add func(error)
	add = func(err error) {
		switch e := err.(type) {
		case nil:
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				add(inner)
			}
		default:
			if msg := err.Error(); !seen[msg] {
				seen[msg] = true
				list = append(list, err)
			}
		}
	}
	add(readErr)
	for _, err := range errs {
		add(err)
	}
	if len(list) == 0 {
		return nil
	}
	return fmt.Errorf("bad configuration:\n%w", errors.Join(list...))
}
