package worker

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/optiontest"
	"github.com/idemq/idemq/internal/optkit"
)

// The option behaviour every idemq package shares (docs/options.md): a
// zero value is the default, a nil option is refused, a whole Config can
// be passed and changed by the options after it, and every bad setting is
// reported at once.
func TestOptionBehaviour(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]Option{
		"none":                 nil,
		"WithLogger(nil)":      {WithLogger(nil)},
		"WithAWS(nil)":         {WithAWS(nil)},
		"WithEMF(nil)":         {WithEMF(nil)},
		"WithConfig(Config{})": {WithConfig(Config{})},
	} {
		c, err := optkit.ApplyOptions("worker", opts)
		if err == nil {
			c, err = c.resolve()
		}
		if err != nil || c.Logger == nil || c.AWS == nil || c.EMF == nil || c.Tracing != nil || len(c.Stores) != 0 {
			t.Errorf("%s: %+v, %v; want the defaults", name, c, err)
		}
	}

	// A whole Config, then options over it; options before it are
	// overwritten.
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	c, err := optkit.ApplyOptions("worker", []Option{WithEMF(io.Discard), WithConfig(Config{Logger: logger, HandlerOptions: []handler.Option{handler.WithConcurrency(2)}}),
		WithHandlerOptions(func(c *handler.Config) { c.NoBatchError = true })})
	if err == nil {
		c, err = c.resolve()
	}
	if err != nil || c.Logger != logger || len(c.HandlerOptions) != 2 || c.EMF == io.Discard {
		t.Errorf("WithConfig then WithHandlerOptions: %+v, %v; want the Config's logger, both handler options, the default EMF writer", c, err)
	}

	// Every bad setting at once: nil options, a nil function, the mode.
	_, err = New(context.Background(), idemqenv.Settings{Program: idemqenv.Dispatch}, nil, nil, WithLogger(logger), nil)
	got := optiontest.Names(err)
	if want := [][2]string{{"worker", "fn"}, {"worker", "options[0]"}, {"worker", "options[2]"}}; !slices.Equal(got, want) || !strings.Contains(err.Error(), "worker mode only") {
		t.Errorf("every bad setting: %v\nnames %v, want %v and the mode", err, got, want)
	}
}
