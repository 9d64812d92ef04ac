package loadtest_test

import (
	"encoding/json"
	"io"
	"log/slog"
)

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
