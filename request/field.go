package request

import (
	"errors"
	"slices"
)

// Field is one setting of an Identity that a deployment carries outside
// code: in an environment variable, a CDK context key and a flag of the
// idemq command. Fields lists them. Package idemqenv (its variables, their
// check and Settings.Environ), the CDK constructs (infra/idemqcdk) and the
// idemq command range over that list and name nothing of it themselves,
// so a setting added to it is read, written, checked and documented by
// each of them.
type Field struct {
	// Name is the Identity's field it sets: "KeyFields". A refusal of the
	// field (an *idem.ConfigError of package "request") names it.
	Name string
	// Var is the environment variable: "IDEMQ_KEY_FIELDS".
	Var string
	// Context is the CDK context key: "idemq:keyFields".
	Context string
	// Flag is the idemq command's flag, without the dashes: "key-fields".
	Flag string
	// List says the value is a list of names: comma-separated in a
	// variable, a JSON array of strings (or comma-separated) in the
	// context.
	List bool
	// Payload says it sets what the payload check covers, not who the
	// request is: the parts that claim a request read it (the worker,
	// the front door), the dispatcher and the command do not.
	Payload bool
	// Default is what applies when it is unset, in Markdown, for the
	// docs.
	Default string
	// Doc says what it does, in one line of Markdown.
	Doc string

	// get returns the value id sets, one item for a field that is not a
	// List; nil when unset.
	get func(id Identity) []string
	// set sets the field of id from values, none empty; an error says what
	// is wrong with them ("want ...").
	set func(id *Identity, values []string) error
}

// Get returns the value id sets for f: one string for a field that is
// not a List, the names of one that is; nil when id leaves it unset.
func (f Field) Get(id Identity) []string { return f.get(id) }

// Set sets f in id from values (a field that is not a List takes one): a
// field is set whole, as the variable or the context key gives it. It
// refuses an empty value or name, and a value the field cannot hold;
// whether id is then valid is Identity.Validate's to say.
func (f Field) Set(id *Identity, values []string) error {
	switch {
	case len(values) == 0:
		return errors.New("want a value")
	case !f.List && len(values) > 1:
		return errors.New("want one value")
	case slices.Contains(values, ""):
		return errors.New("want names separated by commas, none empty")
	}
	return f.set(id, slices.Clone(values))
}

// stringField is f, a field of Identity that holds one string.
func stringField(f Field, field func(*Identity) *string) Field {
	return withAccess(f, func(id Identity) []string {
		if v := *field(&id); v != "" {
			return []string{v}
		}
		return nil
	}, func(id *Identity, values []string) error {
		*field(id) = values[0]
		return nil
	})
}

// listField is f, a field of Identity that holds names.
func listField(f Field, field func(*Identity) *[]string) Field {
	f.List = true
	return withAccess(f, func(id Identity) []string {
		if v := *field(&id); len(v) > 0 {
			return slices.Clone(v)
		}
		return nil
	}, func(id *Identity, values []string) error {
		*field(id) = values
		return nil
	})
}

// withAccess is f with its get and set.
func withAccess(f Field, get func(Identity) []string, set func(*Identity, []string) error) Field {
	f.get, f.set = get, set
	return f
}
