package dynamostore_test

import (
	"slices"
	"testing"

	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/internal/optiontest"
)

// The option behaviour every idemq package shares (docs/options.md): a
// zero value is the default, a nil option is refused, a whole Config can
// be passed and changed by the options after it, and every bad setting is
// reported at once.
func TestOptionBehaviour(t *testing.T) {
	t.Parallel()
	api := &countingAPI{}
	defaults := must(dynamostore.New(api, "t")).Attributes()
	if defaults.Key != "id" || defaults.Expiry != "expiration" {
		t.Fatalf("the defaults: %+v", defaults)
	}
	for name, opt := range map[string]dynamostore.Option{
		"WithAttributes(Attributes{})": dynamostore.WithAttributes(dynamostore.Attributes{}),
		"WithSortKey(\"\", \"\")":      dynamostore.WithSortKey("", ""),
		"WithConfig(Config{})":         dynamostore.WithConfig(dynamostore.Config{}),
	} {
		s, err := dynamostore.New(api, "t", opt)
		if err != nil || s.Attributes() != defaults {
			t.Errorf("%s: %v; want the defaults", name, err)
		}
	}

	// A whole Config, then an option over it; an option before it is
	// overwritten.
	s, err := dynamostore.New(api, "t", dynamostore.WithSortKey("sk", "pk"),
		dynamostore.WithConfig(dynamostore.Config{Attributes: dynamostore.Attributes{Key: "pk", Status: "state"}}),
		dynamostore.WithAttributes(dynamostore.Attributes{Key: "key"}))
	if err != nil || s.Attributes().Key != "key" || s.Attributes().Status != defaults.Status {
		t.Errorf("WithConfig then WithAttributes: %+v, %v; want the option's attributes over the Config's", s.Attributes(), err)
	}

	// Every bad setting at once.
	_, err = dynamostore.New(nil, "", nil, dynamostore.WithSortKey("sk", ""),
		dynamostore.WithAttributes(dynamostore.Attributes{Status: "id", Result: "id"}))
	want := [][2]string{{"dynamostore", "client"}, {"dynamostore", "table"}, {"dynamostore", "options[0]"},
		{"dynamostore", "PartitionValue"}, {"dynamostore", "Attributes.Status"}, {"dynamostore", "Attributes.Result"}}
	if got := optiontest.Names(err); !slices.Equal(got, want) {
		t.Errorf("every bad setting: %v\nnames %v, want %v", err, got, want)
	}
	if err := dynamostore.CheckTable(t.Context(), nil, "t", nil, dynamostore.WithSortKey("", "pk")); !slices.Equal(optiontest.Names(err), [][2]string{{"dynamostore", "options[0]"}, {"dynamostore", "SortKey"}}) {
		t.Errorf("CheckTable: %v, want options[0] and SortKey", err)
	}
}
