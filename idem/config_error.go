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
// pkg: the first step of every New that takes options of the one option
// shape (type Option func(*Config)). A nil option is a *ConfigError
// naming it by its index ("options[2]"), wrapping ErrNil.
func ApplyOptions[C any, O ~func(*C)](pkg string, opts []O) (C, error) {
	var c C
	for i, opt := range opts {
		if opt == nil {
			var zero C
			return zero, &ConfigError{Package: pkg, Field: fmt.Sprintf("options[%d]", i), Err: ErrNil}
		}
		opt(&c)
	}
	return c, nil
}
