// Command idemq is the operator's command for idemq's records and dead
// letters: it reads the worker's store with the worker's own settings
// (the same IDEMQ_* variables, each also a flag) and says what a key is
// doing, what is stuck, and releases, purges or redrives what an operator
// decides to. See docs/cli.md.
//
//	idemq inspect KEY                    a record: status, owner, lease and expiry left, result, fingerprint
//	idemq list --status in-progress|completed [--older-than D] [--limit N] [--cursor C]
//	idemq stuck                          IN_PROGRESS records past their lease
//	idemq release KEY [--force]          delete an IN_PROGRESS record, so the next delivery runs the work
//	idemq purge KEY [--force]            delete a record whatever its status
//	idemq redrive --dlq URL|ARN [--to URL|ARN] [--max-per-second N]
//
// Every command that changes something asks y/N on the terminal first
// (unless --yes) and prints what it changed. KEY is the client's key, as
// in the message body: the command puts the namespace (IDEMQ_NAMESPACE)
// before it as the worker does; --raw takes a stored key as it is.
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
