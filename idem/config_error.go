package idem

import "github.com/idemq/idemq/internal/optkit"

// ConfigError says which setting of which package is bad: a Config field
// that cannot be safe, a nil option, or a nil or empty argument of a
// constructor. Every idemq package returns one (alone, or wrapped, as Do
// wraps it in an *Error for op "claim") for a bad setting, found before
// the first request; a constructor joins one for every bad setting
// (errors.Join), and a program tells which setting by errors.As:
//
//	var bad *idem.ConfigError
//	if errors.As(err, &bad) && bad.Package == "idem" && bad.Field == "Heartbeat" { ... }
//
// Its fields: Package, the package whose setting is bad, without a path
// ("idem", "handler", "consumer", "dynamostore", ...); Field, the setting
// (a Config field "Heartbeat", a constructor's argument "store", an
// option by its index "options[2]"); Value, the bad value as Error shows
// it ("0", `""`, "-1s"), or "" when the field's name says enough (a nil
// argument); Err, what is wrong with it ("must be at least 1"). Error
// reads "package: Field value: what is wrong", as in "handler:
// Concurrency 0: must be at least 1".
type ConfigError = optkit.ConfigError
