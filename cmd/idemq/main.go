// Command idemq is the operator's command for idemq's records and dead
// letters: it reads the worker's store with the worker's own settings
// (the same IDEMQ_* variables, each also a flag) and says what a key is
// doing, what is stuck, and releases, purges or redrives what an operator
// decides to. See docs/cli.md.
//
//	idemq inspect KEY                    a record: status, owner, lease and expiry left, result, fingerprint
//	idemq list --status in-progress|completed [--older-than D] [--limit N] [--cursor C] [--all]
//	idemq stuck                          the namespace's IN_PROGRESS records past their lease
//	idemq release KEY [--force]          delete an IN_PROGRESS record, so the next delivery runs the work
//	idemq purge KEY [--force]            delete a record whatever its status
//	idemq redrive --dlq URL|ARN [--to URL|ARN] [--max-per-second N]
//
// Every command that changes something asks y/N on the terminal first
// (unless --yes) and prints what it changed. KEY is the request's key
// within the namespace, as the worker's handler reads it from a message
// (a body member's value, an attribute's, or what a natural key's fields
// make: document_id:doc-1:version:1); --body takes a message body instead,
// read with the worker's key settings (IDEMQ_KEY_FIELD, IDEMQ_KEY_FIELDS);
// --scope names a front door caller's request. The command makes the
// stored key as the worker does (internal/recordkey, through the request
// contract); --raw takes a stored key as it is. list and stuck show the
// namespace's (IDEMQ_NAMESPACE) records only; --all every namespace's.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
