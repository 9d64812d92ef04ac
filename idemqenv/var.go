package idemqenv

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemq/idemq/queue"
)

// Var is one IDEMQ_* variable: its name, how its value is written, its
// default, which programs read it and what it means. Vars lists them all;
// Read parses them, Settings.Environ writes them.
type Var struct {
	// Name is the variable's name: IDEMQ_ and the setting.
	Name string
	// Programs are the programs that read it. A worker mode refuses it
	// when set but not its own; the command ignores the variables it does
	// not read.
	Programs Program
	// Default is what applies when it is unset, for the docs: a value
	// written as the variable takes it, or what decides it. "" when
	// unset means none (or it is required: Doc says when).
	Default string
	// Needs names a variable without which it means nothing: a worker
	// mode refuses it set alone. "" when it stands alone.
	Needs string
	// Flag is the command's flag that also sets it (without the dashes),
	// or "" when the command has none.
	Flag string
	// Sets are the library settings it sets, as an *idem.ConfigError
	// names them ("idem.Expiry"): a refusal of one of them is reported
	// under the variable's name (SettingError).
	Sets []string
	// Secret says its value is never shown in a message: a password or a
	// key. A URL's password is hidden whether or not it is Secret.
	Secret bool
	// ReferenceOnly says only the reference worker (lambda/) reads it: it
	// is its model provider's. Package worker parses it and leaves it to
	// the caller.
	ReferenceOnly bool
	// Doc says what it does, in one line of Markdown.
	Doc string

	value value // how it is parsed into and written from Settings
}

// Kind is how a variable's value is written.
type Kind string

// The kinds of values.
const (
	kindString   Kind = "string"    // text, as it is
	kindEnum     Kind = "enum"      // one of Var.Values, in any case
	kindDuration Kind = "duration"  // a positive Go duration: 90s, 120h
	kindBytes    Kind = "bytes"     // a size in bytes, at least 1
	kindCount    Kind = "count"     // a whole number, at least 1
	kindBool     Kind = "bool"      // true or false (strconv.ParseBool)
	kindURL      Kind = "URL"       // an absolute http or https URL
	kindStoreURL Kind = "store URL" // a postgres:// or redis:// URL, checked against IDEMQ_STORE
	kindHostPort Kind = "host:port" // an address to listen on
	kindList     Kind = "list"      // comma-separated values
	kindJSON     Kind = "JSON"      // a JSON object
)

// Kind is how v's value is written.
func (v Var) Kind() Kind { return v.value.kind }

// value parses a variable into its field of Settings and writes it back.
type value struct {
	kind   Kind
	values []string // kindEnum
	// parse sets the field from a non-empty value, or says what is wrong
	// with it ("want ...": the caller names the variable).
	parse func(s *Settings, v string) error
	// format writes the field as the variable takes it; "" when it says
	// nothing (unset).
	format func(s Settings) string
}

// stringValue is a string field, taken as it is; check, when not nil,
// refuses some values.
func stringValue(field func(*Settings) *string, check func(string) error) value {
	return value{kind: kindString,
		parse: func(s *Settings, v string) error {
			if check != nil {
				if err := check(v); err != nil {
					return err
				}
			}
			*field(s) = v
			return nil
		},
		format: func(s Settings) string { return *field(&s) },
	}
}

// enumValue is a string field holding one of values, in lower case.
func enumValue(field func(*Settings) *string, values ...string) value {
	return value{kind: kindEnum, values: values,
		parse: func(s *Settings, v string) error {
			v = strings.ToLower(v)
			if !slices.Contains(values, v) {
				return fmt.Errorf("want %s", oneOf(values))
			}
			*field(s) = v
			return nil
		},
		format: func(s Settings) string { return *field(&s) },
	}
}

// durationValue is a positive duration; 0 is unset.
func durationValue(field func(*Settings) *time.Duration) value {
	return value{kind: kindDuration,
		parse: func(s *Settings, v string) error {
			d, err := time.ParseDuration(v)
			switch {
			case err != nil:
				return errors.New("not a Go duration (like 120h or 90s)")
			case d <= 0:
				return errors.New("must be positive")
			}
			*field(s) = d
			return nil
		},
		format: func(s Settings) string {
			if d := *field(&s); d != 0 {
				return d.String()
			}
			return ""
		},
	}
}

// atLeastOne is an int value of at least 1; 0 is unset.
func atLeastOne(kind Kind, field func(*Settings) *int, want string) value {
	return value{kind: kind,
		parse: func(s *Settings, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return errors.New(want)
			}
			*field(s) = n
			return nil
		},
		format: func(s Settings) string {
			if n := *field(&s); n != 0 {
				return strconv.Itoa(n)
			}
			return ""
		},
	}
}

// bytesValue is a size in bytes of at least 1; 0 is unset.
func bytesValue(field func(*Settings) *int) value {
	return atLeastOne(kindBytes, field, "want a size in bytes of at least 1")
}

// countValue is a whole number of at least 1; 0 is unset.
func countValue(field func(*Settings) *int) value {
	return atLeastOne(kindCount, field, "want a whole number of at least 1")
}

// boolValue is true or false, written always: its zero value is a value.
func boolValue(field func(*Settings) *bool) value {
	return value{kind: kindBool,
		parse: func(s *Settings, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return errors.New("want true or false")
			}
			*field(s) = b
			return nil
		},
		format: func(s Settings) string { return strconv.FormatBool(*field(&s)) },
	}
}

// urlValue is an absolute http or https URL.
func urlValue(field func(*Settings) *string) value {
	v := stringValue(field, checkURL)
	v.kind = kindURL
	return v
}

// checkURL accepts an absolute http or https URL. Its error never quotes
// s, which may hold a password.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a valid URL")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("want an absolute http(s) URL")
	}
	return nil
}

// hostPortValue is an address to listen on, host:port.
func hostPortValue(field func(*Settings) *string, example string) value {
	v := stringValue(field, func(s string) error {
		if _, _, err := net.SplitHostPort(s); err != nil {
			return fmt.Errorf("want host:port, like %s", example)
		}
		return nil
	})
	v.kind = kindHostPort
	return v
}

// queueValue is the queue's settings as JSON (queue.Settings), valid
// ones; the zero Settings is unset.
func queueValue(field func(*Settings) *queue.Settings) value {
	return value{kind: kindJSON,
		parse: func(s *Settings, v string) error {
			var q queue.Settings
			if err := json.Unmarshal([]byte(v), &q); err != nil {
				return fmt.Errorf("%v; want the queue's settings as JSON, like %s", err, queueExample)
			}
			if err := q.Validate(); err != nil {
				return err
			}
			*field(s) = q
			return nil
		},
		format: func(s Settings) string {
			q := *field(&s)
			if q == (queue.Settings{}) {
				return ""
			}
			b, err := json.Marshal(q)
			if err != nil { // unreachable: durations, a number and a bool
				panic(err)
			}
			return string(b)
		},
	}
}

// queueExample is an IDEMQ_QUEUE value, as the CDK stack writes it.
const queueExample = `{"retention":"96h0m0s","visibilityTimeout":"12m0s","maxReceives":5,"batchingWindow":"0s","deadLetterRetention":"336h0m0s","fifo":false}`

// oneOf is "a, b or c".
func oneOf(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
