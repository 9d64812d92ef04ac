// Package storeenv is which store of records, from which settings: the
// IDEMQ_* variables that name it, their check, and Open, which connects
// to it. The worker (lambda/) and the operator's command (cmd/idemq)
// both open the store through it, so the command looks at the records
// the worker writes: the same table, the same Redis key prefix, the same
// endpoint. It is a module of its own, so that only they pay for the
// store's drivers.
//
// Read and Check (or Load, both) read the settings and report every bad
// or missing variable at once; a URL is shown with its password hidden
// (ShowVar), and an error of the store's client about it is stripped of
// it (URLError).
package storeenv
