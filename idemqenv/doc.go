// Package idemqenv declares every IDEMQ_* variable once: its name, how
// its value is written and parsed, its default, which programs read it
// and what it means (Vars). The reference worker (lambda/) in each of its
// modes, package worker (the same contract for a function of your own),
// the operator's command (cmd/idemq, whose flags map onto the same
// variables) and the CDK construct (infra/idemqcdk, which writes them)
// all take the names and the parsing from here, and docs/environment.md's
// table is generated from it.
//
// Read parses an environment into Settings, typed, and checks each
// variable alone and against the others, reporting every bad or missing
// one in one error; Settings.Environ writes them back. The request's
// identity (IDEMQ_NAMESPACE, IDEMQ_KEY_FIELD, IDEMQ_KEY_FIELDS,
// IDEMQ_KEY_ATTRIBUTE, IDEMQ_FINGERPRINT_FIELDS) parses into one
// request.Identity. Read makes no request: opening the store (package
// stores, with the openers of the stores' modules), turning the settings
// into each part's options and the checks that need the network are
// package worker's.
//
// It parses and checks only: it imports none of the parts it configures
// (handler, consumer, front door, dispatcher, worker), and the defaults
// its table shows are theirs, held equal by its tests. Like the rest of
// the library it reads no environment itself: it is given getenv
// (os.Getenv, or a map's lookup in a test).
package idemqenv
