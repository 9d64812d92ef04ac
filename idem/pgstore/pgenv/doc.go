// Package pgenv opens the PostgreSQL store of records from the worker's
// settings (IDEMQ_STORE=postgres, IDEMQ_STORE_URL, IDEMQ_TABLE, as package
// idemqenv reads them into a stores.Settings): the worker, the command
// and your own function open it through Opener.
package pgenv
