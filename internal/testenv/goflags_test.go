package testenv

import (
	"runtime/debug"
	"slices"
	"testing"
)

func TestGoFlags(t *testing.T) {
	settings := []debug.BuildSetting{
		{Key: "-buildmode", Value: "exe"}, {Key: "-compiler", Value: "gc"},
		{Key: "-race", Value: "true"}, {Key: "-tags", Value: "lambda.norpc,x"},
		{Key: "-trimpath", Value: "true"}, {Key: "CGO_ENABLED", Value: "1"}, {Key: "GOARCH", Value: "amd64"},
	}
	if got, want := goFlags(settings), []string{"-race", "-tags=lambda.norpc,x", "-trimpath"}; !slices.Equal(got, want) {
		t.Errorf("goFlags = %q, want %q", got, want)
	}
	if got := goFlags([]debug.BuildSetting{{Key: "-race", Value: "false"}, {Key: "-tags", Value: ""}}); len(got) != 0 {
		t.Errorf("goFlags of a plain build = %q, want none", got)
	}
	// This binary's own: -race exactly when go test ran with it.
	if got := slices.Contains(GoFlags(t), "-race"); got != raceEnabled {
		t.Errorf("GoFlags(t) = %q: -race %v, want %v", GoFlags(t), got, raceEnabled)
	}
}
