// Package optiontest is what the option-behaviour tests of every idemq
// package share (docs/options.md).
package optiontest

import "github.com/idemq/idemq/internal/optkit"

// Names lists the package and the field of each *idem.ConfigError err
// holds, in order: what a test compares with the settings it made bad.
func Names(err error) [][2]string {
	var got [][2]string
	for _, bad := range optkit.ConfigErrors(err) {
		got = append(got, [2]string{bad.Package, bad.Field})
	}
	return got
}
