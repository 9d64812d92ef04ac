// Package optkit is the options kit of every idemq package: the one error
// a bad setting is reported with (idem.ConfigError is this ConfigError),
// the first step of every constructor that takes options
// (ApplyOptions), the list of the bad settings an error holds
// (ConfigErrors), and a size setting resolved as every store reads it
// (ByteLimit). It imports no package of the repository, so the model
// (package idem) and every package above it build their options with it.
package optkit

import (
	"errors"
	"fmt"
)

// ConfigError says which setting of which package is bad: a Config field
// that cannot be safe, a nil option, or a nil or empty argument of a
// constructor. Users name it idem.ConfigError, whose documentation says
// how to match it.
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

// ByteLimit resolves a store's size setting n (a result's or an object's
// most bytes): 0 takes def, and a negative n is refused with a
// *ConfigError of package pkg naming field. Every store reads its limits
// through it, so a zero limit means the default everywhere.
func ByteLimit(pkg, field string, n, def int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0:
		return 0, &ConfigError{Package: pkg, Field: field, Value: fmt.Sprint(n), Err: errors.New("must be positive")}
	}
	return n, nil
}
