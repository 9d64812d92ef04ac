package dynamostore

import (
	"errors"
	"fmt"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/optkit"
)

// Config is a Store's settings, besides the client and the table that New
// takes. They are declared, defaulted and checked here, once, as every
// idemq package does it (docs/options.md): a zero field is its default,
// and the options only set fields; New resolves them once, refusing every
// setting that cannot work at once, and WithConfig passes a Config whole.
// The zero value takes every default. CreateTable and CheckTable take the
// same options, to make and check the table such a Store needs.
type Config struct {
	// Attributes names the attributes of a record's item; an empty field
	// takes its default. Two fields naming one attribute are refused.
	// Defaults to Powertools' names (see Attributes).
	Attributes Attributes
	// SortKey is, for a table whose primary key has a sort key, the sort
	// key attribute (a string) that holds the idem.Key, and
	// PartitionValue the partition key of every record (see WithSortKey).
	// Both or neither must be set; SortKey must not name another
	// attribute. Default to none: the partition key holds the idem.Key.
	SortKey, PartitionValue string
	// MultiRegionStrong says the table is, or is to become, a global
	// table with multi-Region strong consistency (MRSC), which keeps no
	// TTL and runs no transactions: the store refuses staged writes
	// (dynamostore.Stage, idem.Completion.Writes) with
	// idem.ErrUnsupportedWrite before it sends anything, CreateTable leaves
	// TTL off, and CheckTable does not ask for TTL (see
	// WithMultiRegionStrong). Defaults to false: a table in one Region,
	// with TTL.
	MultiRegionStrong bool
}

// Option changes a Config; New, CreateTable and CheckTable apply them in
// order over the zero Config. An option only sets fields: a value that
// cannot work is stored as given, and New refuses it.
type Option func(*Config)

// WithConfig sets the whole Config: options after it change its fields,
// and options before it are overwritten. Defaults to the zero Config,
// every field its default.
func WithConfig(cfg Config) Option { return func(c *Config) { *c = cfg } }

// errEmpty is what a ConfigError says of a required name left empty.
var errEmpty = errors.New("must not be empty")

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) error {
	return &idem.ConfigError{Package: "dynamostore", Field: field, Value: value, Err: err}
}

// Validate reports every setting of c that cannot work, each an
// *idem.ConfigError naming its field, joined (errors.Join); nil
// when there is none. It is the resolve step New runs, without its result.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and checks c, joining every setting that
// cannot work.
func (c Config) resolve() (Config, error) {
	c.Attributes = c.Attributes.withDefaults()
	var errs []error
	switch {
	case c.SortKey == "" && c.PartitionValue != "":
		errs = append(errs, configError("SortKey", `""`, fmt.Errorf("must be set with PartitionValue %q", c.PartitionValue)))
	case c.SortKey != "" && c.PartitionValue == "":
		errs = append(errs, configError("PartitionValue", `""`, fmt.Errorf("must be set with SortKey %q", c.SortKey)))
	}
	errs = append(errs, c.Attributes.validate(c.SortKey))
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// resolve applies opts to the zero Config, as New does, and resolves it,
// joining every nil option and every setting that cannot work.
func resolve(opts []Option) (Config, error) {
	c, optErr := optkit.ApplyOptions("dynamostore", opts)
	c, err := c.resolve()
	if err := errors.Join(optErr, err); err != nil {
		return Config{}, err
	}
	return c, nil
}

// WithAttributes sets the attribute names, for a table whose partition key
// is not "id" or whose items must match other code's. Empty fields keep
// their defaults. Defaults to Powertools' names (see Attributes).
func WithAttributes(a Attributes) Option {
	return func(c *Config) { c.Attributes = a }
}

// validate reports two fields, or a field and the sort key (empty: none),
// naming one attribute.
func (a Attributes) validate(sortKey string) error {
	var errs []error
	seen := make(map[string]string)
	fields := a.fields()
	if sortKey != "" {
		fields = append(fields, attrField{field: "the sort key", name: &sortKey})
	}
	for _, f := range fields {
		if other, dup := seen[*f.name]; dup {
			field := "Attributes." + f.field
			if f.field == "the sort key" {
				field = "SortKey"
			}
			errs = append(errs, configError(field, fmt.Sprintf("%q", *f.name), fmt.Errorf("names the same attribute as Attributes.%s", other)))
			continue
		}
		seen[*f.name] = f.field
	}
	return errors.Join(errs...)
}
