package dynamostore

import (
	"errors"
	"fmt"

	"github.com/idemq/idemq/idem"
)

// Config is a Store's settings, besides the client and the table that New
// takes. The zero value takes every default. CreateTable and CheckTable
// take the same options, to make and check the table such a Store needs.
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
}

// Option changes a Config.
type Option func(*Config)

// errEmpty is what a ConfigError says of a required name left empty.
var errEmpty = errors.New("must not be empty")

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) error {
	return &idem.ConfigError{Package: "dynamostore", Field: field, Value: value, Err: err}
}

// Validate reports the first setting of c that cannot work, as an
// *idem.ConfigError naming its field, or nil.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and checks c.
func (c Config) resolve() (Config, error) {
	c.Attributes = c.Attributes.withDefaults()
	switch {
	case c.SortKey == "" && c.PartitionValue != "":
		return Config{}, configError("SortKey", `""`, fmt.Errorf("must be set with PartitionValue %q", c.PartitionValue))
	case c.SortKey != "" && c.PartitionValue == "":
		return Config{}, configError("PartitionValue", `""`, fmt.Errorf("must be set with SortKey %q", c.SortKey))
	}
	if err := c.Attributes.validate(c.SortKey); err != nil {
		return Config{}, err
	}
	return c, nil
}

// resolve applies opts to the zero Config, as New does, and resolves it.
func resolve(opts []Option) (Config, error) {
	c, err := idem.ApplyOptions("dynamostore", opts)
	if err != nil {
		return Config{}, err
	}
	return c.resolve()
}
