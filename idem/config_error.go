package idem

import (
	"errors"
	"fmt"
)

// ConfigError says which setting of which package is bad: a Config field
// that cannot be safe, a nil option, or a nil or empty argument of a
// constructor. Every idemq package returns one (alone, or wrapped, as Do
// wraps it in an *Error for op "claim") for a bad setting, found before
// the first request; a program tells which setting by errors.As:
//
//	var bad *idem.ConfigError
//	if errors.As(err, &bad) && bad.Package == "idem" && bad.Field == "Heartbeat" { ... }
type ConfigError struct {
	// Package is the package whose setting is bad, without a path:
	// "idem", "handler", "consumer", "dynamostore", "pgstore",
	// "redisstore", "memstore" or "s3blob".
	Package string
	// Field names the setting: a Config field ("Heartbeat"), a
	// constructor's argument ("store", "table") or an option by its index
	// ("options[2]").
	Field string
	// Value is the bad value as Error shows it ("0", `""`, "-1s"), or ""
	// when the field's name says enough (a nil argument).
	Value string
	// Err says what is wrong with it: "must be at least 1".
	Err error
}

// Error reads "package: Field value: what is wrong", as in
// "handler: Concurrency 0: must be at least 1".
func (e *ConfigError) Error() string {
	s := e.Package + ": " + e.Field
	if e.Value != "" {
		s += " " + e.Value
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns what is wrong.
func (e *ConfigError) Unwrap() error { return e.Err }

// ErrNil is what a ConfigError wraps for a nil argument or option: a
// store, a client, a function or an option that must be given.
var ErrNil = errors.New("is nil")

// ApplyOptions applies opts, in order, over the zero Config of package
// pkg: the first step of every constructor that takes options of the one
// option shape (type Option func(*Config)). Options only set fields; a
// nil option is skipped and reported as a *ConfigError naming it by its
// index ("options[2]"), wrapping ErrNil. The error joins one such error
// for each nil option, so that the constructor can report them with
// every other bad setting at once (docs/options.md).
func ApplyOptions[C any, O ~func(*C)](pkg string, opts []O) (C, error) {
	var c C
	var errs []error
	for i, opt := range opts {
		if opt == nil {
			errs = append(errs, &ConfigError{Package: pkg, Field: fmt.Sprintf("options[%d]", i), Err: ErrNil})
			continue
		}
		opt(&c)
	}
	return c, errors.Join(errs...)
}

// ConfigErrors lists the *ConfigError values err holds: every bad setting
// a constructor or a Validate method reported, in the order they were
// found (each package's resolve joins them with errors.Join). It is nil
// when err holds none.
func ConfigErrors(err error) []*ConfigError {
	var list []*ConfigError
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case *ConfigError:
			list = append(list, e)
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				walk(inner)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return list
}
